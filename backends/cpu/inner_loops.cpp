#include "inner_loops.hpp"

namespace ladder {
namespace {
// An empty table still needs one element; its null name ends the list.
constexpr InnerLoop kInnerLoops[] = {
#include "inner_loops.inc"
    {nullptr, 0, 0, 0, 0, 0}};
}  // namespace

std::span<const InnerLoop> inner_loops() { return {kInnerLoops, std::size(kInnerLoops) - 1}; }

}  // namespace ladder
