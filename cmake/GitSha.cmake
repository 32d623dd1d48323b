# Writes OUT with the source tree's git SHA (and -dirty), touching it only when it changes, so
# that results name the exact code that produced them without rebuilding on every build.
# LADDER_SOURCE_SHA, where set, is taken as given: a copy of the tree sent to another machine
# may carry no .git, or (as on a lent GPU machine) an older one than its files.
if(DEFINED ENV{LADDER_SOURCE_SHA} AND NOT "$ENV{LADDER_SOURCE_SHA}" STREQUAL "")
  set(sha "$ENV{LADDER_SOURCE_SHA}")
else()
  execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SRC}
    OUTPUT_VARIABLE sha OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT sha)
    set(sha "unknown")
  else()
    execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SRC}
      OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(changes)
      set(sha "${sha}-dirty")
    endif()
  endif()
endif()
file(WRITE ${OUT}.tmp "#pragma once\n#define LADDER_GIT_SHA \"${sha}\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
file(REMOVE ${OUT}.tmp)
