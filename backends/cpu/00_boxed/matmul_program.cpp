#include "matmul_program.hpp"

namespace ladder::boxed {

void compile_matmul(Code& code) {
  enum Local { A, B, C, N, I, J, K, S, kCount };
  code.num_locals = kCount;
  const int zero = code.add_const(new_float(0.0));
  const int none_const = code.add_const(none());

  auto [i_top, i_exit] = code.emit_for_in_range(N, I);
  auto [j_top, j_exit] = code.emit_for_in_range(N, J);
  code.emit(Op::load_const, zero);  // s = 0.0
  code.emit(Op::store_fast, S);
  auto [k_top, k_exit] = code.emit_for_in_range(N, K);
  code.emit(Op::load_fast, S);  // s += A[i][k] * B[k][j]
  code.emit(Op::load_fast, A);
  code.emit(Op::load_fast, I);
  code.emit(Op::binary_subscr);
  code.emit(Op::load_fast, K);
  code.emit(Op::binary_subscr);
  code.emit(Op::load_fast, B);
  code.emit(Op::load_fast, K);
  code.emit(Op::binary_subscr);
  code.emit(Op::load_fast, J);
  code.emit(Op::binary_subscr);
  code.emit(Op::binary_multiply);
  code.emit(Op::inplace_add);
  code.emit(Op::store_fast, S);
  code.emit_jump(Op::jump, k_top);
  code.bind(k_exit);
  code.emit(Op::load_fast, S);  // C[i][j] = s
  code.emit(Op::load_fast, C);
  code.emit(Op::load_fast, I);
  code.emit(Op::binary_subscr);
  code.emit(Op::load_fast, J);
  code.emit(Op::store_subscr);
  code.emit_jump(Op::jump, j_top);
  code.bind(j_exit);
  code.emit_jump(Op::jump, i_top);
  code.bind(i_exit);
  code.emit(Op::load_const, none_const);
  code.emit(Op::return_value);
  code.finish();
}

Object* box_matrix(const float* data, std::int64_t n) {
  Object* rows = new_list(static_cast<std::size_t>(n));
  auto& row_items = static_cast<ListObject*>(rows)->items;
  for (std::int64_t i = 0; i < n; ++i) {
    Object* row = new_list(static_cast<std::size_t>(n));
    auto& items = static_cast<ListObject*>(row)->items;
    for (std::int64_t j = 0; j < n; ++j) items[j] = new_float(data[i * n + j]);  // None is immortal
    row_items[i] = row;
  }
  return rows;
}

void unbox_matrix(Object* matrix, float* out, std::int64_t n) {
  if (matrix->type != &list_type) throw InterpreterError("TypeError", "matrix is not a list");
  auto& rows = static_cast<ListObject*>(matrix)->items;
  for (std::int64_t i = 0; i < n; ++i) {
    if (rows[i]->type != &list_type) throw InterpreterError("TypeError", "matrix row is not a list");
    auto& items = static_cast<ListObject*>(rows[i])->items;
    for (std::int64_t j = 0; j < n; ++j) out[i * n + j] = static_cast<float>(as_double(items[j]));
  }
}

}  // namespace ladder::boxed
