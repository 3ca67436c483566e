// PCT's priorities and change points, drawn afresh for every execution.
#include "pct.hpp"

#include <algorithm>

namespace lockcheck::detail {

Pct::Pct(std::uint64_t seed, std::uint64_t executions, std::uint32_t depth, std::uint32_t steps)
    : random_(seed), executions_(executions), depth_(std::max(depth, 1u)),
      steps_(std::max(steps, 1u)) {
    begin_execution();
}

void Pct::begin_execution() {
    // Initial priorities d .. d + 63, shuffled over every task id a model may use, so that a
    // task spawned mid-run has one too; change points take the priorities 1 .. d - 1.
    for (std::uint32_t t = 0; t < kMaxTasks; ++t)
        priority_[t] = depth_ + t;
    for (std::uint32_t t = kMaxTasks - 1; t > 0; --t)
        std::swap(priority_[t], priority_[random_.below(t + 1)]);
    change_points_.clear();
    for (std::uint32_t i = 1; i < depth_; ++i)
        change_points_.push_back(1 + random_.below(steps_));
}

TaskId Pct::pick(std::uint32_t step, TaskSet enabled, const Execution&) {
    longest_ = std::max(longest_, step);
    auto highest = [&] {
        TaskId best = lowest(enabled);
        for (TaskSet s = enabled; s; s &= s - 1)
            if (priority_[lowest(s)] > priority_[best]) best = lowest(s);
        return best;
    };
    TaskId task = highest();
    for (std::uint32_t i = 0; i < change_points_.size(); ++i) {
        if (change_points_[i] != step) continue;
        priority_[task] = i + 1;
        task = highest();
    }
    return task;
}

std::uint32_t Pct::choose(std::uint32_t, std::uint32_t n) {
    return random_.below(n);
}

bool Pct::next_execution() {
    if (++done_ >= executions_) return false;
    steps_ = std::max(longest_, 1u);
    begin_execution();
    return true;
}

} // namespace lockcheck::detail
