// Rung 0, boxed: the triple loop of matmul.py run as bytecode by the interpreter in this folder.
// Every element is a heap object with a reference count and a type tag, every multiply and add
// is looked up in a type's slot table and allocates its result, every A[i][k] is a checked list
// index: this is where an interpreted language's time goes, with no arithmetic removed.
#include "../../core/registry.hpp"
#include "matmul_program.hpp"

namespace ladder {

GemmRung boxed_rung() {
  GemmRung rung;
  rung.name = "boxed";
  rung.dtype = DType::f32;
  rung.threading = Threading::one_core;
  rung.max_n = 128;
  // The k loop runs 17 instructions (FOR_ITER … JUMP) for one multiply and one add.
  rung.dispatches_per_flop = 17.0 / 2;
  rung.mechanism = Mechanism::reference;
  rung.unit = Unit::fastest;  // the interpreter's arithmetic is one scalar op among many dispatches
  rung.traffic = compulsory_traffic_only;
  rung.parent = boxed::kPythonRung;
  rung.rivals = {{boxed::kPythonRung, "within 1/3 .. 3"}};  // a faithful model of CPython's costs
  rung.summary = "bytecode interpreter over boxed, reference-counted values (CPython's model)";
  rung.prepare = [](const GemmOperands& op) {
    struct Kernel final : GemmKernel {
      explicit Kernel(const GemmOperands& op) : op_(op) {
        boxed::compile_matmul(code_);
        a_ = boxed::box_matrix(op.a, op.n);
        b_ = boxed::box_matrix(op.b, op.n);
        c_ = boxed::new_list(static_cast<std::size_t>(op.n));
        for (std::int64_t i = 0; i < op.n; ++i) {
          boxed::Object* row = boxed::new_list(static_cast<std::size_t>(op.n));
          for (auto& item : static_cast<boxed::ListObject*>(row)->items) item = boxed::new_float(0.0);
          static_cast<boxed::ListObject*>(c_)->items[i] = row;
        }
        n_ = boxed::new_int(op.n);
      }
      ~Kernel() override {
        boxed::decref(a_);
        boxed::decref(b_);
        boxed::decref(c_);
        boxed::decref(n_);
      }
      void run() override {
        boxed::decref(boxed::execute(code_, {a_, b_, c_, n_}, globals_));
        boxed::unbox_matrix(c_, op_.c, op_.n);
      }
      GemmOperands op_;
      boxed::Code code_;
      boxed::Globals globals_;
      boxed::Object *a_, *b_, *c_, *n_;
    };
    return std::unique_ptr<GemmKernel>(std::make_unique<Kernel>(op));
  };
  return rung;
}

}  // namespace ladder
