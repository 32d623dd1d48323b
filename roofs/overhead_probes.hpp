// Fixed costs: what one call, one parallel region, one bytecode dispatch and one boxed add cost,
// each measured as a batch of many so that the clock's own cost disappears.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace ladder::overhead {

// `count` calls of an empty function through a pointer the compiler cannot see through.
void empty_calls(std::int64_t count);

// `count` empty OpenMP parallel regions on all threads: fork, barrier, join.
void fork_joins(std::int64_t count);

// A bytecode program of the boxed interpreter run once: `ops()` operations of one kind.
class BoxedProgram {
 public:
  enum class Kind {
    dispatch,  // LOAD_FAST x; POP_TOP — one op is one instruction dispatch
    add,       // LOAD_FAST x; LOAD_FAST y; BINARY_ADD; POP_TOP — one op is one boxed float add
  };
  explicit BoxedProgram(Kind kind);
  ~BoxedProgram();
  void run();
  std::int64_t ops() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Seconds per operation of `body(batch)`: the best of a few timed batches.
double seconds_per_op(const std::function<void(std::int64_t)>& body, std::int64_t ops_per_batch_unit, double seconds = 0.02);

}  // namespace ladder::overhead
