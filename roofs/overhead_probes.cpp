#include "roofs/overhead_probes.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <functional>

#include "interpreter/interpreter.hpp"

namespace ladder::overhead {
namespace {

__attribute__((noinline)) void empty_function() { asm volatile(""); }
void (*volatile g_empty)() = empty_function;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

void empty_calls(std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) g_empty();
}

void fork_joins(std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) {
#pragma omp parallel
    asm volatile("");
  }
}

struct BoxedProgram::Impl {
  boxed::Code code;
  boxed::Globals globals;
  std::int64_t ops = 0;
  boxed::Object* x = nullptr;
  boxed::Object* y = nullptr;
};

BoxedProgram::BoxedProgram(Kind kind) : impl_(std::make_unique<Impl>()) {
  using boxed::Op;
  auto& c = impl_->code;
  c.num_locals = 2;
  impl_->x = boxed::new_float(1.5);
  impl_->y = boxed::new_float(2.25);
  constexpr int kRepeats = 500;
  for (int i = 0; i < kRepeats; ++i) {
    if (kind == Kind::dispatch) {
      c.emit(Op::load_fast, 0);
      c.emit(Op::pop_top);
    } else {
      c.emit(Op::load_fast, 0);
      c.emit(Op::load_fast, 1);
      c.emit(Op::binary_add);
      c.emit(Op::pop_top);
    }
  }
  c.emit(Op::load_const, c.add_const(boxed::none()));
  c.emit(Op::return_value);
  c.finish();
  impl_->ops = kind == Kind::dispatch ? 2 * kRepeats : kRepeats;
}

BoxedProgram::~BoxedProgram() {
  boxed::decref(impl_->x);
  boxed::decref(impl_->y);
}

void BoxedProgram::run() { boxed::decref(boxed::execute(impl_->code, {impl_->x, impl_->y}, impl_->globals)); }

std::int64_t BoxedProgram::ops() const { return impl_->ops; }

double seconds_per_op(const std::function<void(std::int64_t)>& body, std::int64_t ops_per_unit, double seconds) {
  std::int64_t units = 1;
  for (;;) {  // grow the batch until one lasts a quarter of the trial time
    double start = now();
    body(units);
    if (now() - start > seconds / 4 || units > (std::int64_t{1} << 40)) break;
    units *= 4;
  }
  double best = 1e30;
  for (int trial = 0; trial < 5; ++trial) {
    double start = now();
    body(units);
    best = std::min(best, (now() - start) / static_cast<double>(units * ops_per_unit));
  }
  return best;
}

}  // namespace ladder::overhead
