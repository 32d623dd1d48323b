# One set of warnings for the project's own C++ (every target links ladder_warnings); the ci
# preset makes them errors (LADDER_WARNINGS_AS_ERRORS), so that a warning cannot land.
option(LADDER_WARNINGS_AS_ERRORS "Treat the project's compiler warnings as errors" OFF)
add_library(ladder_warnings INTERFACE)
target_compile_options(ladder_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic $<$<BOOL:${LADDER_WARNINGS_AS_ERRORS}>:-Werror>>)
