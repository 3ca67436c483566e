// Depth-first backtracking; tasks are tried in id order, so the search is deterministic.
#include "dfs.hpp"

#include <cassert>

#include "progress.hpp"

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
        assert(b.enabled == choices && "model is not deterministic");
        return b.chosen;
    }
    const TaskId first = lowest(choices);
    path_.push_back(Branch{choices, task_bit(first), first});
    ++position_;
    return first;
}

bool Dfs::next_execution() {
    // An execution that ended early (a violation) leaves branches it never reached.
    path_.resize(position_);
    position_ = 0;
    while (!path_.empty()) {
        Branch& b = path_.back();
        const TaskSet untried = b.enabled & ~b.tried;
        if (untried) {
            b.chosen = lowest(untried);
            b.tried |= task_bit(b.chosen);
            return true;
        }
        path_.pop_back();
    }
    return false;
}

double Dfs::explored() const {
    ExploredFraction f;
    for (const Branch& b : path_)
        if (!f.level(count(b.tried) - 1, count(b.enabled))) break;
    return f.fraction();
}

} // namespace lockcheck
