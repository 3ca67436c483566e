// Preemption-bounded depth-first backtracking, deterministic like Dfs.
#include "bounded_dfs.hpp"

#include <cassert>

#include "progress.hpp"

namespace lockcheck {

bool BoundedDfs::allowed(const Branch& b, TaskId task) const {
    return b.last == kNoTask || task == b.last || !contains(b.options, b.last) || b.before < bound_;
}

std::uint32_t BoundedDfs::after(const Branch& b) const {
    const bool preempts = b.last != kNoTask && b.chosen != b.last && contains(b.options, b.last);
    return b.before + preempts;
}

TaskId BoundedDfs::pick(std::uint32_t step, TaskSet enabled, const Execution&) {
    if (step == 1) {
        last_ = kNoTask;
        used_ = 0;
    }
    if (position_ < path_.size()) {
        Branch& b = path_[position_++];
        assert(b.options == enabled && b.last == last_ && "model is not deterministic");
        used_ = after(b);
        last_ = b.chosen;
        return b.chosen;
    }
    Branch b{enabled, 0, 0, last_, used_};
    // The task that ran last goes on if it can: no preemption.
    b.chosen = last_ != kNoTask && contains(enabled, last_) ? last_ : lowest(enabled);
    b.tried = task_bit(b.chosen);
    used_ = after(b);
    last_ = b.chosen;
    path_.push_back(b);
    ++position_;
    return b.chosen;
}

std::uint32_t BoundedDfs::choose(std::uint32_t, std::uint32_t n) {
    if (position_ < path_.size()) return path_[position_++].chosen;
    path_.push_back(Branch{first_n(n), task_bit(0), 0, kNoTask, used_});
    ++position_;
    return 0;
}

bool BoundedDfs::next_execution() {
    path_.resize(position_);
    position_ = 0;
    while (!path_.empty()) {
        Branch& b = path_.back();
        for (TaskSet untried = b.options & ~b.tried; untried; untried &= untried - 1) {
            const TaskId task = lowest(untried);
            b.tried |= task_bit(task);
            if (!allowed(b, task)) continue;
            b.chosen = task;
            return true;
        }
        path_.pop_back();
    }
    return false;
}

double BoundedDfs::explored() const {
    ExploredFraction f;
    for (const Branch& b : path_) {
        // Only the branches within the bound are run.
        int finished = 0, branches = 0;
        for (TaskSet s = b.options; s; s &= s - 1) {
            if (!allowed(b, lowest(s))) continue;
            ++branches;
            finished += contains(b.tried, lowest(s)) && lowest(s) != b.chosen;
        }
        if (!f.level(finished, branches)) break;
    }
    return f.fraction();
}

} // namespace lockcheck
