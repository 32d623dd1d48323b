// The boxed interpreter on its own: semantics Python programs rely on, the errors Python raises,
// and reference counting (every object a program allocates is freed).
#include <gtest/gtest.h>

#include "interpreter/interpreter.hpp"
#include "cpu/00_boxed/matmul_program.hpp"

namespace ladder::boxed {
namespace {

// Owns a new reference for the duration of a test.
struct Ref {
  explicit Ref(Object* o) : o(o) {}
  ~Ref() { decref(o); }
  Object* o;
};

// Runs `body` (which emits code into a function of `locals` locals) with `args`.
Ref run(int locals, const std::function<void(Code&)>& body, const std::vector<Object*>& args = {}) {
  Code code;
  code.num_locals = locals;
  body(code);
  code.finish();
  Globals globals;
  return Ref(execute(code, args, globals));
}

double float_of(Object* o) {
  EXPECT_EQ(o->type, &float_type);
  return static_cast<FloatObject*>(o)->value;
}
std::int64_t int_of(Object* o) {
  EXPECT_EQ(o->type, &int_type);
  return static_cast<IntObject*>(o)->value;
}

TEST(Interpreter, AddsAndMultipliesFloatsAndInts) {
  auto r = run(0, [](Code& c) {  // return 2.5 * 4 + 1
    c.emit(Op::load_const, c.add_const(new_float(2.5)));
    c.emit(Op::load_const, c.add_const(new_int(4)));
    c.emit(Op::binary_multiply);
    c.emit(Op::load_const, c.add_const(new_int(1)));
    c.emit(Op::binary_add);
    c.emit(Op::return_value);
  });
  EXPECT_EQ(float_of(r.o), 11.0);
}

TEST(Interpreter, IntArithmeticStaysInt) {
  auto r = run(0, [](Code& c) {  // return 300 * 300 + 7  (outside the small-int cache)
    int k = c.add_const(new_int(300));
    c.emit(Op::load_const, k);
    c.emit(Op::load_const, k);
    c.emit(Op::binary_multiply);
    c.emit(Op::load_const, c.add_const(new_int(7)));
    c.emit(Op::inplace_add);
    c.emit(Op::return_value);
  });
  EXPECT_EQ(int_of(r.o), 90007);
}

TEST(Interpreter, SumsARangeWithAForLoop) {
  auto r = run(2, [](Code& c) {  // s = 0; for i in range(1000): s += i; return s
    c.emit(Op::load_const, c.add_const(new_int(0)));
    c.emit(Op::store_fast, 0);
    c.emit(Op::load_global, c.add_name("range"));
    c.emit(Op::load_const, c.add_const(new_int(1000)));
    c.emit(Op::call_function, 1);
    c.emit(Op::get_iter);
    int top = c.new_label(), done = c.new_label();
    c.bind(top);
    c.emit_jump(Op::for_iter, done);
    c.emit(Op::store_fast, 1);
    c.emit(Op::load_fast, 0);
    c.emit(Op::load_fast, 1);
    c.emit(Op::inplace_add);
    c.emit(Op::store_fast, 0);
    c.emit_jump(Op::jump, top);
    c.bind(done);
    c.emit(Op::load_fast, 0);
    c.emit(Op::return_value);
  });
  EXPECT_EQ(int_of(r.o), 999 * 1000 / 2);
}

TEST(Interpreter, WhileLoopWithComparison) {
  auto r = run(1, [](Code& c) {  // i = 0; while i < 10: i = i + 3; return i
    c.emit(Op::load_const, c.add_const(new_int(0)));
    c.emit(Op::store_fast, 0);
    int top = c.new_label(), done = c.new_label();
    c.bind(top);
    c.emit(Op::load_fast, 0);
    c.emit(Op::load_const, c.add_const(new_int(10)));
    c.emit(Op::compare_lt);
    c.emit_jump(Op::pop_jump_if_false, done);
    c.emit(Op::load_fast, 0);
    c.emit(Op::load_const, c.add_const(new_int(3)));
    c.emit(Op::binary_add);
    c.emit(Op::store_fast, 0);
    c.emit_jump(Op::jump, top);
    c.bind(done);
    c.emit(Op::load_fast, 0);
    c.emit(Op::return_value);
  });
  EXPECT_EQ(int_of(r.o), 12);
}

TEST(Interpreter, ListIndexingIncludingNegative) {
  Ref list(new_list(3));
  auto& items = static_cast<ListObject*>(list.o)->items;
  for (int i = 0; i < 3; ++i) items[i] = new_float(i + 0.5);
  auto r = run(1,
               [](Code& c) {  // return xs[-1] + xs[0]
                 c.emit(Op::load_fast, 0);
                 c.emit(Op::load_const, c.add_const(new_int(-1)));
                 c.emit(Op::binary_subscr);
                 c.emit(Op::load_fast, 0);
                 c.emit(Op::load_const, c.add_const(new_int(0)));
                 c.emit(Op::binary_subscr);
                 c.emit(Op::binary_add);
                 c.emit(Op::return_value);
               },
               {list.o});
  EXPECT_EQ(float_of(r.o), 3.0);
}

std::string error_of(int locals, const std::function<void(Code&)>& body, const std::vector<Object*>& args = {}) {
  try {
    run(locals, body, args);
  } catch (const InterpreterError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Interpreter, RaisesPythonsErrors) {
  Ref list(new_list(2));
  EXPECT_EQ(error_of(1,
                     [](Code& c) {
                       c.emit(Op::load_fast, 0);
                       c.emit(Op::load_const, c.add_const(new_int(2)));
                       c.emit(Op::binary_subscr);
                       c.emit(Op::return_value);
                     },
                     {list.o}),
            "IndexError: list index out of range");
  EXPECT_EQ(error_of(1,
                     [](Code& c) {
                       c.emit(Op::load_fast, 0);
                       c.emit(Op::load_const, c.add_const(new_float(1.0)));
                       c.emit(Op::binary_add);
                       c.emit(Op::return_value);
                     },
                     {list.o}),
            "TypeError: unsupported operand type(s) for +: 'list' and 'float'");
  EXPECT_EQ(error_of(1,
                     [](Code& c) {
                       c.emit(Op::load_fast, 0);
                       c.emit(Op::load_const, c.add_const(new_float(1.0)));
                       c.emit(Op::binary_subscr);
                       c.emit(Op::return_value);
                     },
                     {list.o}),
            "TypeError: list indices must be integers, not float");
  EXPECT_EQ(error_of(0,
                     [](Code& c) {
                       c.emit(Op::load_global, c.add_name("numpy"));
                       c.emit(Op::return_value);
                     }),
            "NameError: name 'numpy' is not defined");
  EXPECT_EQ(error_of(0,
                     [](Code& c) {
                       c.emit(Op::load_const, c.add_const(new_float(1.0)));
                       c.emit(Op::load_const, c.add_const(new_int(3)));
                       c.emit(Op::binary_subscr);
                       c.emit(Op::return_value);
                     }),
            "TypeError: 'float' object is not subscriptable");
}

TEST(Interpreter, FreesEverythingItAllocates) {
  const std::int64_t before = live_objects();
  {
    float a[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    Ref A(box_matrix(a, 3)), B(box_matrix(a, 3)), C(box_matrix(a, 3)), n(new_int(3));
    Code code;
    compile_matmul(code);
    Globals globals;
    Ref result(execute(code, {A.o, B.o, C.o, n.o}, globals));
  }
  EXPECT_EQ(live_objects(), before);
  // An error half-way through a loop must release the frame's stack and locals too.
  {
    Ref list(new_list(2));
    error_of(2,
             [](Code& c) {
               c.emit(Op::load_const, c.add_const(new_float(1.0)));
               c.emit(Op::store_fast, 1);
               c.emit(Op::load_fast, 1);
               c.emit(Op::load_fast, 0);
               c.emit(Op::load_const, c.add_const(new_int(5)));
               c.emit(Op::binary_subscr);
               c.emit(Op::return_value);
             },
             {list.o});
  }
  EXPECT_EQ(live_objects(), before);
}

TEST(Interpreter, MatmulProgramComputesAProduct) {
  float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, out[4];
  Ref A(box_matrix(a, 2)), B(box_matrix(b, 2)), C(box_matrix(a, 2)), n(new_int(2));
  Code code;
  compile_matmul(code);
  Globals globals;
  Ref result(execute(code, {A.o, B.o, C.o, n.o}, globals));
  EXPECT_EQ(result.o, none());
  unbox_matrix(C.o, out, 2);
  EXPECT_EQ(out[0], 19);
  EXPECT_EQ(out[1], 22);
  EXPECT_EQ(out[2], 43);
  EXPECT_EQ(out[3], 50);
}

}  // namespace
}  // namespace ladder::boxed
