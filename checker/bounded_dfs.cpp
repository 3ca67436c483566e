// Preemption-bounded depth-first backtracking, deterministic like Dfs.
#include "bounded_dfs.hpp"

#include <cassert>

#include "dfs_path.hpp"
#include "progress.hpp"

namespace lockcheck::detail {

bool BoundedDfs::allowed(const Branch& b, TaskId task) const {
    return b.last == kNoTask || task == b.last || !contains(b.options, b.last) || b.before < bound_;
}

TaskSet BoundedDfs::within(const Branch& b) const {
    TaskSet set = 0;
    for (TaskSet s = b.options; s; s &= s - 1)
        if (allowed(b, lowest(s))) set |= task_bit(lowest(s));
    return set;
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
    path_.push_back(Branch{first_n(n), task_bit(0), 0, kNoTask, used_, true});
    ++position_;
    return 0;
}

bool BoundedDfs::next_execution() {
    path_.resize(position_);
    position_ = 0;
    while (path_.size() > floor_) {
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

std::uint32_t BoundedDfs::divergence() const {
    return deepest_branch(path_, floor_);
}

void BoundedDfs::resume_at(std::uint32_t position) {
    position_ = position;
    const Branch* pick = last_pick_before(path_, position);
    last_ = pick ? pick->chosen : kNoTask;
    used_ = pick ? after(*pick) : 0;
}

double BoundedDfs::explored() const {
    ExploredFraction f;
    for (std::size_t i = floor_; i < path_.size(); ++i) {
        // Only the branches within the bound are run.
        const Branch& b = path_[i];
        const TaskSet run = within(b);
        if (!f.level(count(run & b.tried & ~task_bit(b.chosen)), count(run))) break;
    }
    return f.fraction();
}

Handoff BoundedDfs::split() {
    const auto [at, share] = split_point(
        path_, floor_, [this](const Branch& b) { return within(b) & ~b.tried; },
        [this](const Branch& b) { return count(within(b)); });
    if (at == path_.size()) return {};
    auto part = std::make_unique<BoundedDfs>(bound_);
    hand_over(path_, at, part->path_, part->floor_, part->position_);
    part->next_execution(); // the lowest option left at `at`
    return {std::move(part), share};
}

} // namespace lockcheck::detail
