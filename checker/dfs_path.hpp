// The path of a depth-first search over schedules, shared by Dfs, BoundedDfs and StatefulDfs:
// each branch point offers `options` (enabled tasks, or a choice's values), has `tried` some of
// them and `chosen` one (tried too). Lowest first, so that the search is deterministic. A search
// handed part of another (--jobs) starts from a copy of its path: the branches before `floor`
// are the copy's, replayed and never backtracked.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "progress.hpp"
#include "scheduler/strategy.hpp"
#include "scheduler/task_set.hpp"

namespace lockcheck::detail {

// Moves to the next execution: drops the branches the last one never reached (it ended
// early) and makes the deepest branch with an untried option take the lowest. False when
// every branch is exhausted, or when `left(index)`, told of each exhausted branch before it
// goes, returns false (the branches from that one on are kept).
template <class Branch, class Left>
bool backtrack(std::vector<Branch>& path, std::size_t& position, std::size_t floor, Left left) {
    path.resize(position);
    position = 0;
    while (path.size() > floor) {
        Branch& b = path.back();
        const TaskSet untried = b.options & ~b.tried;
        if (untried) {
            b.chosen = lowest(untried);
            b.tried |= task_bit(b.chosen);
            return true;
        }
        if (!left(path.size() - 1)) return false;
        path.pop_back();
    }
    return false;
}
template <class Branch>
bool backtrack(std::vector<Branch>& path, std::size_t& position, std::size_t floor = 0) {
    return backtrack(path, position, floor, [](std::size_t) { return true; });
}

// After backtrack(), which changed the deepest branch left on the path and nothing else: where
// the next execution first decides otherwise (Strategy::divergence()).
template <class Branch>
std::uint32_t deepest_branch(const std::vector<Branch>& path, std::size_t floor = 0) {
    return path.size() > floor ? static_cast<std::uint32_t>(path.size() - 1)
                               : Strategy::kNoPosition;
}

// The last branch before `position` that is a pick, not a model choice (its `choice` flag):
// what it left (the task that ran, a sleep set) is where an execution resumed at `position`
// stands (Strategy::resume_at()). Null when there is none.
template <class Branch>
const Branch* last_pick_before(const std::vector<Branch>& path, std::size_t position) {
    for (std::size_t k = position; k-- > 0;)
        if (!path[k].choice) return &path[k];
    return nullptr;
}

// The fraction of the tree the path has left behind (Strategy::explored()).
template <class Branch>
double explored_fraction(const std::vector<Branch>& path, std::size_t floor = 0) {
    ExploredFraction f;
    for (std::size_t i = floor; i < path.size(); ++i)
        if (!f.level(count(path[i].tried & ~task_bit(path[i].chosen)), count(path[i].options)))
            break;
    return f.fraction();
}

// Hands the options left at branch `at` of `path` to a new search of the same kind (its
// `to`, `to_floor` and `to_position`): the path down to `at`, which becomes its floor. This
// search counts those options as tried.
template <class Branch>
void hand_over(std::vector<Branch>& path, std::size_t at, std::vector<Branch>& to,
               std::size_t& to_floor, std::size_t& to_position) {
    to.assign(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(at + 1));
    to_floor = at;
    to_position = at + 1;
    path[at].tried = path[at].options;
}

// Where a search over `path` splits for another thread (Strategy::split): at its shallowest
// branch from `floor` on with options `left` to try, which come last in the search's order.
// Returns that branch's index (path.size() if there is none) and the options' share of the
// search, branch k weighing `branches(path[k])` equal parts as in explored_fraction.
template <class Branch, class Left, class Branches>
std::pair<std::size_t, double> split_point(const std::vector<Branch>& path, std::size_t floor,
                                           Left left, Branches branches) {
    double weight = 1;
    for (std::size_t i = floor; i < path.size(); ++i) {
        const int n = branches(path[i]);
        if (const TaskSet l = left(path[i])) return {i, weight * count(l) / n};
        weight /= n;
    }
    return {path.size(), 0};
}

} // namespace lockcheck::detail
