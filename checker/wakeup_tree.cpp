// Wake-up tree insertion: walk down the children that are weak initials of the new sequence,
// taking their step out of it, and add what is left as a new last child where none is.
#include "wakeup_tree.hpp"

#include <algorithm>

namespace lockcheck::detail {

bool weak_initial(TaskId task, Access access, const WakeupSequence& v, WriteOrder writes) {
    const auto first =
        std::find_if(v.begin(), v.end(), [task](const WakeupStep& s) { return s.task == task; });
    if (first == v.end()) {
        return std::none_of(v.begin(), v.end(), [&](const WakeupStep& s) {
            return dependent(s.access, access, writes);
        });
    }
    // A step of another task that it depends on would have to come first. Steps of one task
    // are ordered, so a longer chain ends in such a step too.
    return std::none_of(v.begin(), first, [&](const WakeupStep& s) {
        return dependent(s.access, first->access, writes);
    });
}

void WakeupTree::insert(WakeupSequence v, WriteOrder writes) {
    // Leaves [lo, hi) share the prefix of length d: the children of the node reached.
    std::size_t lo = 0, hi = leaves_.size(), d = 0;
    for (;;) {
        bool descended = false;
        for (std::size_t k = lo; k < hi && !descended;) {
            const WakeupStep& child = leaves_[k][d];
            std::size_t end = k + 1;
            while (end < hi && leaves_[end][d].task == child.task)
                ++end;
            if (!weak_initial(child.task, child.access, v, writes)) {
                k = end;
                continue;
            }
            if (end == k + 1 && leaves_[k].size() == d + 1) return; // a leaf: it covers v
            const auto step = std::find_if(
                v.begin(), v.end(), [&](const WakeupStep& s) { return s.task == child.task; });
            if (step != v.end()) v.erase(step);
            if (v.empty()) return;
            lo = k;
            hi = end;
            ++d;
            descended = true;
        }
        if (descended) continue;
        WakeupSequence branch;
        if (lo < hi) branch.assign(leaves_[lo].begin(), leaves_[lo].begin() + d);
        branch.insert(branch.end(), v.begin(), v.end());
        leaves_.insert(leaves_.begin() + static_cast<std::ptrdiff_t>(hi), std::move(branch));
        return;
    }
}

WakeupTree WakeupTree::take_first() {
    const TaskId task = first_task();
    std::size_t end = 0;
    while (end < leaves_.size() && leaves_[end].front().task == task)
        ++end;
    WakeupTree rest;
    for (std::size_t k = 0; k < end; ++k)
        if (leaves_[k].size() > 1)
            rest.leaves_.emplace_back(leaves_[k].begin() + 1, leaves_[k].end());
    leaves_.erase(leaves_.begin(), leaves_.begin() + static_cast<std::ptrdiff_t>(end));
    return rest;
}

TaskSet WakeupTree::leading_steps(TaskSet tasks) const {
    TaskSet steps = 0;
    for (const WakeupSequence& leaf : leaves_) {
        if (leaf.size() != 1 || !contains(tasks, leaf.front().task)) break;
        steps |= task_bit(leaf.front().task);
    }
    return steps;
}

WakeupTree WakeupTree::take_leading_steps(TaskSet tasks) {
    std::size_t end = 0;
    while (end < leaves_.size() && leaves_[end].size() == 1 &&
           contains(tasks, leaves_[end].front().task))
        ++end;
    WakeupTree taken;
    taken.leaves_.assign(leaves_.begin(), leaves_.begin() + static_cast<std::ptrdiff_t>(end));
    leaves_.erase(leaves_.begin(), leaves_.begin() + static_cast<std::ptrdiff_t>(end));
    return taken;
}

WakeupSequence WakeupTree::first_steps() const {
    WakeupSequence steps;
    for (const WakeupSequence& leaf : leaves_)
        if (steps.empty() || steps.back().task != leaf.front().task) steps.push_back(leaf.front());
    return steps;
}

int WakeupTree::first_tasks() const {
    TaskSet firsts = 0;
    for (const WakeupSequence& leaf : leaves_)
        firsts |= task_bit(leaf.front().task);
    return count(firsts);
}

} // namespace lockcheck::detail
