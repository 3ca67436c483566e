// The marks ChainDepth (chain_depth.hpp) keeps of the steps taken: what a later step depends on
// for its depth. Apart from ChainDepth so that an Object can keep its own beside it (object.hpp)
// and the scheduling step finds them with no lookup.
#pragma once

#include <cstdint>

#include "task_set.hpp"

namespace lockcheck::detail {

// A step, or the deepest of several, as its successors see it: its depth and its task. Depths
// are signed so that "no step" is one less than the first step's depth, 0: a step follows any
// mark at that mark's depth, plus one if another task took it, with no test for a missing one.
struct ChainMark {
    static constexpr std::int32_t kNone = -1;
    std::int32_t depth = kNone;
    TaskId task = kNoTask;
};

// What a step of an object depends on there: its last write, and the reads since, by the
// deepest read (with its task) and the deepest read of any other task than that one's.
struct ObjectSteps {
    ChainMark write;
    ChainMark read;
    std::int32_t other_read = ChainMark::kNone;
};

} // namespace lockcheck::detail
