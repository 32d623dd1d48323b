// The boxed interpreter: its object model (boxed, reference-counted values) and its eval loop.
// One file over 400 lines because the two are read together: every instruction of the loop is
// the object operations it makes, as in CPython's ceval.c.
#include "interpreter.hpp"

#include <array>
#include <limits>
#include <memory>

namespace ladder::boxed {
namespace {

std::int64_t g_live_objects = 0;
constexpr std::int64_t kImmortal = std::numeric_limits<std::int64_t>::max() / 2;

// --- float: allocation through a free list, as CPython's float_alloc does ---------------------
constexpr int kFloatFreeListMax = 100;
FloatObject* g_float_free_list[kFloatFreeListMax];
int g_float_free_count = 0;

void float_dealloc(Object* o) {
  --g_live_objects;
  auto* f = static_cast<FloatObject*>(o);
  if (g_float_free_count < kFloatFreeListMax) {
    g_float_free_list[g_float_free_count++] = f;
  } else {
    delete f;
  }
}

// CPython's CONVERT_TO_DOUBLE: floats and ints mix; anything else is NotImplemented.
bool to_double(Object* o, double& out) {
  if (o->type == &float_type) {
    out = static_cast<FloatObject*>(o)->value;
    return true;
  }
  if (o->type == &int_type) {
    out = static_cast<double>(static_cast<IntObject*>(o)->value);
    return true;
  }
  return false;
}

Object* float_add(Object* a, Object* b) {
  double x, y;
  if (!to_double(a, x) || !to_double(b, y)) return nullptr;
  return new_float(x + y);
}
Object* float_multiply(Object* a, Object* b) {
  double x, y;
  if (!to_double(a, x) || !to_double(b, y)) return nullptr;
  return new_float(x * y);
}
int number_lt(Object* a, Object* b) {
  if (a->type == &int_type && b->type == &int_type) return static_cast<IntObject*>(a)->value < static_cast<IntObject*>(b)->value;
  double x, y;
  if (!to_double(a, x) || !to_double(b, y)) return -1;
  return x < y;
}

// --- int ---------------------------------------------------------------------------------------
void int_dealloc(Object* o) {
  --g_live_objects;
  delete static_cast<IntObject*>(o);
}
Object* int_add(Object* a, Object* b) {
  if (a->type != &int_type || b->type != &int_type) return nullptr;  // float's slot takes it
  return new_int(static_cast<IntObject*>(a)->value + static_cast<IntObject*>(b)->value);
}
Object* int_multiply(Object* a, Object* b) {
  if (a->type != &int_type || b->type != &int_type) return nullptr;
  return new_int(static_cast<IntObject*>(a)->value * static_cast<IntObject*>(b)->value);
}

// --- list --------------------------------------------------------------------------------------
void list_dealloc(Object* o) {
  --g_live_objects;
  auto* l = static_cast<ListObject*>(o);
  for (Object* item : l->items) decref(item);
  delete l;
}

std::size_t list_index(ListObject* l, Object* index, const char* what) {
  if (index->type != &int_type)
    throw InterpreterError("TypeError", std::string("list indices must be integers, not ") + index->type->name);
  std::int64_t i = static_cast<IntObject*>(index)->value;
  auto size = static_cast<std::int64_t>(l->items.size());
  if (i < 0) i += size;
  if (i < 0 || i >= size) throw InterpreterError("IndexError", std::string(what) + " out of range");
  return static_cast<std::size_t>(i);
}
Object* list_subscript(Object* container, Object* index) {
  auto* l = static_cast<ListObject*>(container);
  Object* item = l->items[list_index(l, index, "list index")];
  incref(item);
  return item;
}
void list_store_subscript(Object* container, Object* index, Object* value) {
  auto* l = static_cast<ListObject*>(container);
  Object*& slot = l->items[list_index(l, index, "list assignment index")];
  incref(value);
  Object* old = slot;
  slot = value;
  decref(old);
}

// --- range and its iterator --------------------------------------------------------------------
struct RangeObject : Object {
  std::int64_t start, stop;
};
struct RangeIterObject : Object {
  std::int64_t next, stop;
};
void range_dealloc(Object* o) {
  --g_live_objects;
  delete static_cast<RangeObject*>(o);
}
void range_iter_dealloc(Object* o) {
  --g_live_objects;
  delete static_cast<RangeIterObject*>(o);
}
Object* range_iter_next(Object* o) {
  auto* it = static_cast<RangeIterObject*>(o);
  if (it->next >= it->stop) return nullptr;
  return new_int(it->next++);
}
const TypeObject range_iter_type = {"range_iterator", range_iter_dealloc, nullptr, nullptr, nullptr, nullptr,
                                    nullptr,          range_iter_next,    nullptr, nullptr};
Object* range_iter(Object* o) {
  auto* r = static_cast<RangeObject*>(o);
  auto* it = new RangeIterObject{{1, &range_iter_type}, r->start, r->stop};
  ++g_live_objects;
  return it;
}
const TypeObject range_type = {"range", range_dealloc, nullptr, nullptr, nullptr, nullptr, range_iter, nullptr, nullptr, nullptr};

std::int64_t int_argument(Object* o, const char* function) {
  if (o->type != &int_type)
    throw InterpreterError(
        "TypeError", std::string("'") + o->type->name + "' object cannot be interpreted as an integer in " + function + "()");
  return static_cast<IntObject*>(o)->value;
}

Object* builtin_range(Object* const* args, int n) {
  if (n < 1 || n > 2) throw InterpreterError("TypeError", "range expected 1 or 2 arguments, got " + std::to_string(n));
  std::int64_t start = n == 2 ? int_argument(args[0], "range") : 0;
  std::int64_t stop = int_argument(args[n - 1], "range");
  auto* r = new RangeObject{{1, &range_type}, start, stop};
  ++g_live_objects;
  return r;
}

// --- builtin functions -------------------------------------------------------------------------
struct BuiltinObject : Object {
  Object* (*function)(Object* const*, int);
};
void builtin_dealloc(Object* o) {
  --g_live_objects;
  delete static_cast<BuiltinObject*>(o);
}
Object* builtin_call(Object* self, Object* const* args, int n) { return static_cast<BuiltinObject*>(self)->function(args, n); }
const TypeObject builtin_type = {
    "builtin_function_or_method", builtin_dealloc, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, builtin_call, nullptr};
Object* new_builtin(Object* (*function)(Object* const*, int)) {
  ++g_live_objects;
  return new BuiltinObject{{1, &builtin_type}, function};
}

void immortal_dealloc(Object*) {}

// --- immortal singletons -----------------------------------------------------------------------
Object g_none{kImmortal, &none_type};

constexpr int kSmallIntMin = -5, kSmallIntMax = 256;
std::array<IntObject, kSmallIntMax - kSmallIntMin + 1> make_small_ints() {
  std::array<IntObject, kSmallIntMax - kSmallIntMin + 1> ints{};
  for (int i = 0; i < static_cast<int>(ints.size()); ++i) {
    ints[i].refcount = kImmortal;
    ints[i].type = &int_type;
    ints[i].value = i + kSmallIntMin;
  }
  return ints;
}
auto g_small_ints = make_small_ints();

const char* op_symbol(Op op) {
  switch (op) {
    case Op::binary_add:
    case Op::inplace_add:
      return "+";
    case Op::binary_multiply:
      return "*";
    default:
      return "?";
  }
}

// CPython's binary_op1: the left operand's slot, then the right's if its type differs.
Object* binary_op(Op op, Object* a, Object* b) {
  auto slot = [op](const TypeObject* t) { return op == Op::binary_multiply ? t->multiply : t->add; };
  if (auto f = slot(a->type)) {
    if (Object* r = f(a, b)) return r;
  }
  if (b->type != a->type) {
    if (auto f = slot(b->type)) {
      if (Object* r = f(a, b)) return r;
    }
  }
  throw InterpreterError("TypeError", std::string("unsupported operand type(s) for ") + op_symbol(op) + ": '" + a->type->name +
                                          "' and '" + b->type->name + "'");
}

// A frame's locals and value stack, released on return and on an exception alike.
struct Frame {
  explicit Frame(const Code& code) : locals(static_cast<std::size_t>(code.num_locals), nullptr), stack(64) {}
  ~Frame() {
    for (Object* o : locals)
      if (o) decref(o);
    for (int i = 0; i < sp; ++i) decref(stack[i]);
  }
  void push(Object* o) {
    if (sp == static_cast<int>(stack.size())) stack.resize(stack.size() * 2);
    stack[sp++] = o;
  }
  Object* pop() { return stack[--sp]; }
  Object* top() const { return stack[sp - 1]; }

  std::vector<Object*> locals;
  std::vector<Object*> stack;
  int sp = 0;
};

}  // namespace

const TypeObject float_type = {"float", float_dealloc, float_add, float_multiply, nullptr,
                               nullptr, nullptr,       nullptr,   nullptr,        number_lt};
const TypeObject int_type = {"int", int_dealloc, int_add, int_multiply, nullptr, nullptr, nullptr, nullptr, nullptr, number_lt};
const TypeObject list_type = {"list",  list_dealloc, nullptr, nullptr, list_subscript, list_store_subscript,
                              nullptr, nullptr,      nullptr, nullptr};
const TypeObject none_type = {"NoneType", immortal_dealloc, nullptr, nullptr, nullptr,
                              nullptr,    nullptr,          nullptr, nullptr, nullptr};

Object* new_float(double value) {
  ++g_live_objects;
  FloatObject* f = g_float_free_count > 0 ? g_float_free_list[--g_float_free_count] : new FloatObject;
  f->refcount = 1;
  f->type = &float_type;
  f->value = value;
  return f;
}

Object* new_int(std::int64_t value) {
  if (value >= kSmallIntMin && value <= kSmallIntMax) return &g_small_ints[value - kSmallIntMin];
  ++g_live_objects;
  return new IntObject{{1, &int_type}, value};
}

Object* new_list(std::size_t size) {
  ++g_live_objects;
  auto* l = new ListObject{{1, &list_type}, std::vector<Object*>(size, &g_none)};
  return l;
}

Object* none() { return &g_none; }

double as_double(Object* o) {
  double value;
  if (!to_double(o, value)) throw InterpreterError("TypeError", std::string("must be real number, not ") + o->type->name);
  return value;
}

std::int64_t live_objects() { return g_live_objects; }

// --- Code --------------------------------------------------------------------------------------
Code::~Code() {
  for (Object* c : consts) decref(c);
}
int Code::add_const(Object* owned) {
  consts.push_back(owned);
  return static_cast<int>(consts.size()) - 1;
}
int Code::add_name(const std::string& name) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  names.push_back(name);
  return static_cast<int>(names.size()) - 1;
}
int Code::new_label() {
  label_targets_.push_back(-1);
  return static_cast<int>(label_targets_.size()) - 1;
}
void Code::bind(int label) { label_targets_[label] = static_cast<std::int32_t>(instructions.size()); }
void Code::emit(Op op, std::int32_t arg) { instructions.push_back({op, arg}); }
void Code::emit_jump(Op op, int label) {
  fixups_.emplace_back(instructions.size(), label);
  instructions.push_back({op, -1});
}
void Code::finish() {
  for (auto [at, label] : fixups_) {
    if (label_targets_[label] < 0) throw std::logic_error("bytecode label never bound");
    instructions[at].arg = label_targets_[label];
  }
  fixups_.clear();
}

std::pair<int, int> Code::emit_for_in_range(int bound_local, int var_local) {
  emit(Op::load_global, add_name("range"));
  emit(Op::load_fast, bound_local);
  emit(Op::call_function, 1);
  emit(Op::get_iter);
  const int top = new_label(), exit = new_label();
  bind(top);
  emit_jump(Op::for_iter, exit);
  emit(Op::store_fast, var_local);
  return {top, exit};
}

// --- Globals -----------------------------------------------------------------------------------
Globals::Globals() { set("range", new_builtin(builtin_range)); }
Globals::~Globals() {
  for (auto& [name, o] : table_) decref(o);
}
void Globals::set(const std::string& name, Object* owned) {
  auto [it, inserted] = table_.try_emplace(name, owned);
  if (!inserted) {
    decref(it->second);
    it->second = owned;
  }
}
Object* Globals::lookup(const std::string& name) const {
  auto it = table_.find(name);
  if (it == table_.end()) throw InterpreterError("NameError", "name '" + name + "' is not defined");
  return it->second;
}

// --- the evaluation loop -----------------------------------------------------------------------
Object* execute(const Code& code, const std::vector<Object*>& args, const Globals& globals) {
  if (static_cast<int>(args.size()) > code.num_locals) throw InterpreterError("TypeError", "too many arguments");
  Frame f(code);
  for (std::size_t i = 0; i < args.size(); ++i) {
    incref(args[i]);
    f.locals[i] = args[i];
  }
  const Instruction* ip = code.instructions.data();
  const Instruction* const begin = ip;
  for (;;) {
    const Instruction in = *ip++;
    switch (in.op) {
      case Op::load_fast: {
        Object* o = f.locals[in.arg];
        if (!o) throw InterpreterError("UnboundLocalError", "local variable referenced before assignment");
        incref(o);
        f.push(o);
        break;
      }
      case Op::store_fast: {
        Object* old = f.locals[in.arg];
        f.locals[in.arg] = f.pop();
        if (old) decref(old);
        break;
      }
      case Op::load_const: {
        Object* o = code.consts[in.arg];
        incref(o);
        f.push(o);
        break;
      }
      case Op::load_global: {
        Object* o = globals.lookup(code.names[in.arg]);
        incref(o);
        f.push(o);
        break;
      }
      case Op::binary_add:
      case Op::inplace_add:
      case Op::binary_multiply: {
        Object* b = f.pop();
        Object* a = f.top();
        Object* r;
        try {
          r = binary_op(in.op, a, b);
        } catch (...) {
          decref(b);
          throw;
        }
        decref(b);
        decref(a);
        f.stack[f.sp - 1] = r;
        break;
      }
      case Op::compare_lt: {
        Object* b = f.pop();
        Object* a = f.top();
        int lt = a->type->compare_lt ? a->type->compare_lt(a, b) : -1;
        if (lt < 0) {
          std::string message =
              std::string("'<' not supported between instances of '") + a->type->name + "' and '" + b->type->name + "'";
          decref(b);
          throw InterpreterError("TypeError", message);
        }
        decref(b);
        decref(a);
        f.stack[f.sp - 1] = new_int(lt);
        break;
      }
      case Op::binary_subscr: {
        Object* index = f.pop();
        Object* container = f.top();
        if (!container->type->subscript) {
          std::string message = std::string("'") + container->type->name + "' object is not subscriptable";
          decref(index);
          throw InterpreterError("TypeError", message);
        }
        Object* item;
        try {
          item = container->type->subscript(container, index);
        } catch (...) {
          decref(index);
          throw;
        }
        decref(index);
        decref(container);
        f.stack[f.sp - 1] = item;
        break;
      }
      case Op::store_subscr: {
        Object* index = f.pop();
        Object* container = f.pop();
        Object* value = f.pop();
        struct Release {
          Object *a, *b, *c;
          ~Release() { decref(a), decref(b), decref(c); }
        } release{index, container, value};
        if (!container->type->store_subscript)
          throw InterpreterError("TypeError",
                                 std::string("'") + container->type->name + "' object does not support item assignment");
        container->type->store_subscript(container, index, value);
        break;
      }
      case Op::call_function: {
        Object* const* argv = &f.stack[f.sp - in.arg];
        Object* callable = f.stack[f.sp - in.arg - 1];
        if (!callable->type->call)
          throw InterpreterError("TypeError", std::string("'") + callable->type->name + "' object is not callable");
        Object* r = callable->type->call(callable, argv, in.arg);
        for (int i = 0; i <= in.arg; ++i) decref(f.pop());
        f.push(r);
        break;
      }
      case Op::get_iter: {
        Object* o = f.top();
        if (!o->type->iter) throw InterpreterError("TypeError", std::string("'") + o->type->name + "' object is not iterable");
        f.stack[f.sp - 1] = o->type->iter(o);
        decref(o);
        break;
      }
      case Op::for_iter: {
        Object* it = f.top();
        if (Object* next = it->type->next(it)) {
          f.push(next);
        } else {
          decref(f.pop());
          ip = begin + in.arg;
        }
        break;
      }
      case Op::jump:
        ip = begin + in.arg;
        break;
      case Op::pop_jump_if_false: {
        Object* c = f.pop();
        bool truth = c->type == &int_type     ? static_cast<IntObject*>(c)->value != 0
                     : c->type == &float_type ? static_cast<FloatObject*>(c)->value != 0
                                              : c != &g_none;
        decref(c);
        if (!truth) ip = begin + in.arg;
        break;
      }
      case Op::pop_top:
        decref(f.pop());
        break;
      case Op::return_value:
        return f.pop();
    }
  }
}

}  // namespace ladder::boxed
