#pragma once
#include "interpreter/interpreter.hpp"

namespace ladder::boxed {

// The rung that runs matmul.py in the real CPython, which the boxed interpreter mirrors.
inline constexpr const char* kPythonRung = "python";

// Bytecode of matmul.py's matmul(A, B, C, n), as CPython 3.10 would compile it.
void compile_matmul(Code& code);

// A list of n lists of n floats from a row-major array (a new reference).
Object* box_matrix(const float* data, std::int64_t n);
// Row-major floats from a list of lists (type-checked, as Python would).
void unbox_matrix(Object* matrix, float* out, std::int64_t n);

}  // namespace ladder::boxed
