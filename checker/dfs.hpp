// Dfs: exhaustive depth-first search over schedules. The whole search state is one path of
// branch points (what was enabled, what has been tried, what was chosen), loom-style: an
// execution replays the path's prefix and extends it; next_execution backtracks.
#pragma once

#include <vector>

#include "scheduler/strategy.hpp"

namespace lockcheck::detail {

class Dfs final : public Strategy {
  public:
    explicit Dfs(std::size_t depth_hint = 0) { path_.reserve(depth_hint); }
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override;
    // A choice among n values is a branch point like a pick among n enabled tasks.
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override;
    bool next_execution() override;
    double explored() const override;
    // Hands over the options left at the shallowest branch point that has any.
    Handoff split() override;
    bool splits() const override { return true; }
    bool replaying() const override { return position_ < path_.size(); }
    bool restores() const override { return true; }
    std::uint32_t position() const override { return static_cast<std::uint32_t>(position_); }
    std::uint32_t divergence() const override;
    void resume_at(std::uint32_t position) override { position_ = position; }

  private:
    TaskId branch(TaskSet choices);
    struct Branch {
        TaskSet options; // the enabled tasks, or a choice's values
        TaskSet tried;
        TaskId chosen;
    };
    std::vector<Branch> path_;
    std::size_t position_ = 0; // next branch to replay in the current execution
    std::size_t floor_ = 0;    // branches before it were handed over with the path (dfs_path.hpp)
};

} // namespace lockcheck::detail
