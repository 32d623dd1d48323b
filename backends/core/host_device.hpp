// LADDER_HD marks a function callable from CUDA kernels and from host code alike, so that the
// logic it holds can be unit-tested on a machine without a GPU.
#pragma once
#ifdef __CUDACC__
#define LADDER_HD __host__ __device__
#else
#define LADDER_HD
#endif
