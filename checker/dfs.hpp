// Dfs: exhaustive depth-first search over schedules. The whole search state is one path of
// branch points (what was enabled, what has been tried, what was chosen), loom-style: an
// execution replays the path's prefix and extends it; next_execution backtracks.
#pragma once

#include <vector>

#include "scheduler/strategy.hpp"

namespace lockcheck {

class Dfs final : public Strategy {
  public:
    explicit Dfs(std::size_t depth_hint = 0) { path_.reserve(depth_hint); }
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override;
    // A choice among n values is a branch point like a pick among n enabled tasks.
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override;
    bool next_execution() override;
    double explored() const override;

  private:
    TaskId branch(TaskSet choices);
    struct Branch {
        TaskSet options; // the enabled tasks, or a choice's values
        TaskSet tried;
        TaskId chosen;
    };
    std::vector<Branch> path_;
    std::size_t position_ = 0; // next branch to replay in the current execution
};

} // namespace lockcheck
