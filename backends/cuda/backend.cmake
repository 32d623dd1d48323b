# The CUDA backend (kernels and cuBLAS): built wherever nvcc is, run wherever a device answers.
# Included at the top level's scope, where enable_language(CUDA) must be. The GPU ladder's rungs
# are its numbered files (NN_<rung>.cu or .cpp), each listed once in rungs.def.
ladder_dependency_option(LADDER_WITH_CUDA "CUDA rungs (kernels and cuBLAS)")
set(LADDER_HAVE_CUDA OFF)
# Where NVIDIA's toolkit is looked for when nvcc is not on PATH (its installer's default).
set(LADDER_CUDA_HOME /usr/local/cuda CACHE PATH "CUDA toolkit searched when nvcc is not on PATH")
if(NOT LADDER_WITH_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS ${LADDER_CUDA_HOME}/bin/nvcc)
    set(CMAKE_CUDA_COMPILER ${LADDER_CUDA_HOME}/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 75 80 90)  # T4; A100; H100/H200
    endif()
    enable_language(CUDA)
    # CMake 3.25 does not know nvcc 13's C++20 switch: teach it (the targets inherit C++20).
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
      list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
    endif()
    find_package(CUDAToolkit)
    if(TARGET CUDA::cudart AND TARGET CUDA::cublas)
      set(LADDER_HAVE_CUDA ON)
    endif()
  endif()
  ladder_dependency_check(LADDER_WITH_CUDA LADDER_HAVE_CUDA "nvidia-cuda-toolkit (or NVIDIA's CUDA toolkit in /usr/local/cuda)")
endif()
file(GLOB cuda_rung_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/[0-9][0-9]_*.cu
     ${CMAKE_CURRENT_LIST_DIR}/[0-9][0-9]_*.cpp)
set(LADDER_CUDA_SOURCES ${CMAKE_CURRENT_LIST_DIR}/cuda_device.cpp ${CMAKE_CURRENT_LIST_DIR}/device_gemm.cpp
    ${cuda_rung_sources} ${CMAKE_CURRENT_LIST_DIR}/device_kernels.cu ${CMAKE_CURRENT_LIST_DIR}/register_cuda.cpp)
set(LADDER_CUDA_LIBRARIES CUDA::cudart CUDA::cublas)
