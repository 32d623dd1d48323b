// A small bytecode interpreter in the shape of CPython: every value is a heap object with a
// reference count and a pointer to its type; arithmetic and indexing are looked up in the type's
// slot table on every operation; the loop is a dispatch over bytecode on a value stack.
// The boxed GEMM rung runs its triple loop as a program here (see matmul_program.cpp).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace ladder::boxed {

struct Object;

// Python's TypeError / IndexError / NameError, as one C++ exception carrying the kind.
class InterpreterError : public std::runtime_error {
 public:
  InterpreterError(std::string kind, const std::string& message)
      : std::runtime_error(kind + ": " + message), kind_(std::move(kind)) {}
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
};

// A type's slots, as CPython's tp_as_number / tp_as_sequence: null means "not supported".
// Binary slots return a new reference or nullptr for NotImplemented.
struct TypeObject {
  const char* name;
  void (*dealloc)(Object*);
  Object* (*add)(Object*, Object*);
  Object* (*multiply)(Object*, Object*);
  Object* (*subscript)(Object*, Object*);                // container[index]
  void (*store_subscript)(Object*, Object*, Object*);    // container[index] = value
  Object* (*iter)(Object*);                              // iter(obj)
  Object* (*next)(Object*);                              // next(it), nullptr when exhausted
  Object* (*call)(Object*, Object* const* args, int n);  // obj(*args)
  int (*compare_lt)(Object*, Object*);                   // -1: not supported
};

struct Object {
  std::int64_t refcount;
  const TypeObject* type;
};

struct FloatObject : Object {
  double value;
};
struct IntObject : Object {
  std::int64_t value;
};
struct ListObject : Object {
  std::vector<Object*> items;
};

extern const TypeObject float_type, int_type, list_type, none_type;

inline void incref(Object* o) { ++o->refcount; }
inline void decref(Object* o) {
  if (--o->refcount == 0) o->type->dealloc(o);
}

// Constructors return a new reference.
Object* new_float(double value);
Object* new_int(std::int64_t value);  // -5..256 come from a cache of immortal objects
Object* new_list(std::size_t size);   // filled with None
Object* none();                       // the immortal None, a new reference

// Unboxing with the type check CPython's PyFloat_AsDouble does (ints convert, others throw).
double as_double(Object* o);

// Objects allocated and not yet freed: the leak check of the interpreter's tests.
std::int64_t live_objects();

enum class Op : std::uint8_t {
  load_fast,    // push locals[arg]
  store_fast,   // locals[arg] = pop()
  load_const,   // push consts[arg]
  load_global,  // push globals[names[arg]] (a hash lookup, as CPython's LOAD_GLOBAL)
  binary_add,   // b = pop(); a = pop(); push(a + b)
  binary_multiply,
  inplace_add,    // as binary_add (floats are immutable)
  binary_subscr,  // i = pop(); c = pop(); push(c[i])
  store_subscr,   // i = pop(); c = pop(); v = pop(); c[i] = v
  compare_lt,     // b = pop(); a = pop(); push(a < b) as an int 0/1
  call_function,  // call with arg positional arguments below the callable
  get_iter,       // push(iter(pop()))
  for_iter,       // push(next(top)); on exhaustion pop the iterator and jump to arg
  jump,           // goto arg
  pop_jump_if_false,
  pop_top,
  return_value,
};

struct Instruction {
  Op op;
  std::int32_t arg;
};

// A function's code: bytecode plus its constants (owned references) and global names.
class Code {
 public:
  Code() = default;
  Code(const Code&) = delete;
  Code& operator=(const Code&) = delete;
  ~Code();

  int add_const(Object* owned);  // takes the reference
  int add_name(const std::string& name);
  int new_label();
  void bind(int label);  // the label points at the next instruction
  void emit(Op op, std::int32_t arg = 0);
  void emit_jump(Op op, int label);
  void finish();  // resolves labels; call once before running

  // `for <var> in range(<bound>):` over two locals, as CPython compiles it: emits the loop head
  // and returns {top, exit}: the body jumps back to top and binds exit after itself.
  std::pair<int, int> emit_for_in_range(int bound_local, int var_local);

  std::vector<Instruction> instructions;
  std::vector<Object*> consts;
  std::vector<std::string> names;
  int num_locals = 0;

 private:
  std::vector<std::int32_t> label_targets_;
  std::vector<std::pair<std::size_t, int>> fixups_;
};

// Module globals with the builtins the programs use (range).
class Globals {
 public:
  Globals();
  Globals(const Globals&) = delete;
  Globals& operator=(const Globals&) = delete;
  ~Globals();
  void set(const std::string& name, Object* owned);
  Object* lookup(const std::string& name) const;  // borrowed; throws NameError

 private:
  std::unordered_map<std::string, Object*> table_;
};

// Runs `code` with its first locals bound to `args` (borrowed); returns a new reference.
Object* execute(const Code& code, const std::vector<Object*>& args, const Globals& globals);

}  // namespace ladder::boxed
