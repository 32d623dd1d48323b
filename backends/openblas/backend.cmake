# The OpenBLAS backend: its option, how it is found, its sources and libraries (read by the
# top-level CMakeLists.txt, which includes every backend listed in LADDER_OPTIONAL_BACKENDS).
# Its OpenMP build where there is one (its threads and ours then share one pool), else its
# pthread build (Ubuntu's GPU images ship only that one; ladderbench then sets its thread count
# explicitly and keeps it out of OpenMP regions), else any libopenblas.
ladder_dependency_option(LADDER_WITH_OPENBLAS "OpenBLAS rungs (cblas_sgemm)")
# LADDER_OPENBLAS_BUILD=pthread picks the pthread build where both are installed.
set(LADDER_OPENBLAS_BUILD "openmp" CACHE STRING "OpenBLAS build to prefer: openmp or pthread")
# Given both, these are linked as they are (gpu-check.sh's .deps/); else the builds are searched.
set(LADDER_OPENBLAS_LIBRARY "" CACHE FILEPATH "OpenBLAS library to link instead of searching")
set(LADDER_OPENBLAS_INCLUDE_DIR "" CACHE PATH "Folder of cblas.h for LADDER_OPENBLAS_LIBRARY")
# Configurations before the pthread build was searched cached a search of the default paths here,
# which finds whichever build the system's alternatives point at.
unset(OPENBLAS_LIBRARY CACHE)
unset(OPENBLAS_INCLUDE_DIR CACHE)
set(LADDER_HAVE_OPENBLAS OFF)
if(NOT LADDER_WITH_OPENBLAS STREQUAL "OFF")
  set(OPENBLAS_LIBRARY "")
  set(OPENBLAS_INCLUDE_DIR "")
  if(LADDER_OPENBLAS_LIBRARY AND LADDER_OPENBLAS_INCLUDE_DIR)
    set(OPENBLAS_LIBRARY ${LADDER_OPENBLAS_LIBRARY})
    set(OPENBLAS_INCLUDE_DIR ${LADDER_OPENBLAS_INCLUDE_DIR})
  endif()
  set(openblas_builds openmp pthread)
  if(LADDER_OPENBLAS_BUILD STREQUAL "pthread")
    set(openblas_builds pthread openmp)
  endif()
  foreach(build IN LISTS openblas_builds)
    if(OPENBLAS_LIBRARY AND OPENBLAS_INCLUDE_DIR)
      break()
    endif()
    find_library(OPENBLAS_LIBRARY_${build} NAMES openblas NO_DEFAULT_PATH
      PATHS /usr/lib/x86_64-linux-gnu/openblas-${build} /usr/lib/aarch64-linux-gnu/openblas-${build})
    find_path(OPENBLAS_INCLUDE_DIR_${build} cblas.h NO_DEFAULT_PATH
      PATHS /usr/include/x86_64-linux-gnu/openblas-${build} /usr/include/aarch64-linux-gnu/openblas-${build})
    if(OPENBLAS_LIBRARY_${build} AND OPENBLAS_INCLUDE_DIR_${build})
      set(OPENBLAS_LIBRARY ${OPENBLAS_LIBRARY_${build}})
      set(OPENBLAS_INCLUDE_DIR ${OPENBLAS_INCLUDE_DIR_${build}})
    endif()
  endforeach()
  if(NOT OPENBLAS_LIBRARY OR NOT OPENBLAS_INCLUDE_DIR)
    find_library(OPENBLAS_LIBRARY_any NAMES openblas)
    find_path(OPENBLAS_INCLUDE_DIR_any cblas.h PATH_SUFFIXES openblas)
    set(OPENBLAS_LIBRARY ${OPENBLAS_LIBRARY_any})
    set(OPENBLAS_INCLUDE_DIR ${OPENBLAS_INCLUDE_DIR_any})
  endif()
  if(OPENBLAS_LIBRARY AND OPENBLAS_INCLUDE_DIR)
    add_library(ladder_openblas INTERFACE)
    target_link_libraries(ladder_openblas INTERFACE ${OPENBLAS_LIBRARY})
    target_include_directories(ladder_openblas SYSTEM INTERFACE ${OPENBLAS_INCLUDE_DIR})
    set(LADDER_HAVE_OPENBLAS ON)
    message(STATUS "ladderbench: OpenBLAS ${OPENBLAS_LIBRARY}")
  endif()
  ladder_dependency_check(LADDER_WITH_OPENBLAS LADDER_HAVE_OPENBLAS "libopenblas-openmp-dev (or libopenblas-pthread-dev)")
endif()
set(LADDER_OPENBLAS_SOURCES ${CMAKE_CURRENT_LIST_DIR}/openblas_gemm.cpp)
set(LADDER_OPENBLAS_LIBRARIES ladder_openblas)
