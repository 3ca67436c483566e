// The path of a depth-first search over schedules, shared by Dfs and StatefulDfs: each branch
// point offers `options` (enabled tasks, or a choice's values), has `tried` some of them and
// `chosen` one (tried too). Lowest first, so that the search is deterministic.
#pragma once

#include <vector>

#include "progress.hpp"
#include "scheduler/task_set.hpp"

namespace lockcheck {

// Moves to the next execution: drops the branches the last one never reached (it ended
// early) and makes the deepest branch with an untried option take the lowest. False when
// every branch is exhausted.
template <class Branch> bool backtrack(std::vector<Branch>& path, std::size_t& position) {
    path.resize(position);
    position = 0;
    while (!path.empty()) {
        Branch& b = path.back();
        const TaskSet untried = b.options & ~b.tried;
        if (untried) {
            b.chosen = lowest(untried);
            b.tried |= task_bit(b.chosen);
            return true;
        }
        path.pop_back();
    }
    return false;
}

// The fraction of the tree the path has left behind (Strategy::explored()).
template <class Branch> double explored_fraction(const std::vector<Branch>& path) {
    ExploredFraction f;
    for (const Branch& b : path)
        if (!f.level(count(b.tried & ~task_bit(b.chosen)), count(b.options))) break;
    return f.fraction();
}

} // namespace lockcheck
