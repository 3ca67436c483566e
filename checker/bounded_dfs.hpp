// BoundedDfs: exhaustive DFS over the schedules with at most K preemptions (CHESS's iterative
// context bounding). A preemption is a step taken by another task while the task of the step
// before could have gone on; switching away from a task that finished or blocked is free.
// At each branch point the task that ran last goes first, so the first executions are the
// ones with the fewest preemptions. Model choices (migrations) cost nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "scheduler/strategy.hpp"

namespace lockcheck::detail {

class BoundedDfs final : public Strategy {
  public:
    explicit BoundedDfs(std::uint32_t preemptions) : bound_(preemptions) {}
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override;
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override;
    bool next_execution() override;
    double explored() const override;
    // Hands over the options left within the bound at the shallowest branch point with any.
    Handoff split() override;
    bool splits() const override { return true; }
    // Preemptions in the execution that just ran.
    std::uint32_t preemptions() const { return used_; }
    // Checkpoints: the task that ran last and the preemptions so far are those its last pick
    // before the position left.
    bool restores() const override { return true; }
    std::uint32_t position() const override { return static_cast<std::uint32_t>(position_); }
    std::uint32_t divergence() const override;
    void resume_at(std::uint32_t position) override;

  private:
    struct Branch {
        TaskSet options; // enabled tasks, or a choice's values
        TaskSet tried;
        TaskId chosen;
        TaskId last = kNoTask;    // pick: the task of the step before (kNoTask: the first)
        std::uint32_t before = 0; // preemptions before this branch point
        bool choice = false;      // a model choice's values, not a pick
    };
    // Whether taking `task` at `b` stays within the bound.
    bool allowed(const Branch& b, TaskId task) const;
    // Preemptions after taking `b.chosen` at `b`.
    std::uint32_t after(const Branch& b) const;
    // The options of `b` within the bound.
    TaskSet within(const Branch& b) const;

    std::uint32_t bound_;
    std::vector<Branch> path_;
    std::size_t position_ = 0;
    std::size_t floor_ = 0;  // branches before it were handed over with the path (dfs_path.hpp)
    TaskId last_ = kNoTask;  // the task of the step before, in the current execution
    std::uint32_t used_ = 0; // preemptions so far in the current execution
};

} // namespace lockcheck::detail
