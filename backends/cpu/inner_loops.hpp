// Each CPU rung's hottest compiled loop as scripts/inner_loops.py read it from the rung's object
// file at build time: the measured evidence of register spills (stack loads and stores in the
// loop that does the arithmetic), which no blocking arithmetic on paper can show.
#pragma once
#include <span>

namespace ladder {

struct InnerLoop {
  const char* rung;
  int instructions;  // in the innermost loop with the most floating-point arithmetic
  int arithmetic;    // its multiply-adds, multiplies, adds and dot products
  int stack_loads;   // its loads from the stack: values the registers could not hold
  int stack_stores;  // its stores to the stack
  int flops;         // the FLOPs one pass of it does (a multiply-add 2 a lane; matrix units 0)
};

// Empty where the build found no Python or objdump. A rung whose kernel lives in another rung's
// file (parallel runs tiled's) has no entry.
std::span<const InnerLoop> inner_loops();

}  // namespace ladder
