// Depth-first backtracking; tasks are tried in id order, so the search is deterministic.
#include "dfs.hpp"

#include <cassert>

#include "dfs_path.hpp"

namespace lockcheck {

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
    return backtrack(path_, position_);
}

double Dfs::explored() const {
    return explored_fraction(path_);
}

} // namespace lockcheck
