// Depth-first backtracking; tasks are tried in id order, so the search is deterministic.
#include "dfs.hpp"

#include <cassert>

#include "dfs_path.hpp"

namespace lockcheck::detail {

TaskId Dfs::pick(std::uint32_t, TaskSet enabled, const Execution&) {
    return branch(enabled);
}

std::uint32_t Dfs::choose(std::uint32_t, std::uint32_t n) {
    return branch(first_n(n));
}

TaskId Dfs::branch(TaskSet choices) {
    if (position_ < path_.size()) {
        const Branch& b = path_[position_++];
        // Same prefix, same state: a model that is not deterministic would break this.
        assert(b.options == choices && "model is not deterministic");
        return b.chosen;
    }
    const TaskId first = lowest(choices);
    path_.push_back(Branch{choices, task_bit(first), first});
    ++position_;
    return first;
}

bool Dfs::next_execution() {
    return backtrack(path_, position_, floor_);
}

std::uint32_t Dfs::divergence() const {
    return deepest_branch(path_, floor_);
}

double Dfs::explored() const {
    return explored_fraction(path_, floor_);
}

Handoff Dfs::split() {
    const auto [at, share] = split_point(
        path_, floor_, [](const Branch& b) { return b.options & ~b.tried; },
        [](const Branch& b) { return count(b.options); });
    if (at == path_.size()) return {};
    auto part = std::make_unique<Dfs>();
    hand_over(path_, at, part->path_, part->floor_, part->position_);
    part->next_execution(); // the lowest option left at `at`
    return {std::move(part), share};
}

} // namespace lockcheck::detail
