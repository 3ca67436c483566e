// DeadlineDfs: the exhaustive DFS, stopped once a deadline has passed, so that a rename-pin
// size too large to search to the end within a benchmark run (2x1) still yields a rate. It
// reads the clock only every 256 executions, so that the deadline adds nothing measurable to
// the time it bounds (a read per execution would add about 1 %).
#pragma once

#include <cstdint>

#include "checker/dfs.hpp"
#include "timing.hpp"

namespace lockcheck::detail::bench {

class DeadlineDfs final : public Strategy {
  public:
    DeadlineDfs(std::uint32_t depth, Clock::time_point deadline)
        : dfs_(depth), deadline_(deadline) {}

    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override {
        const TaskId id = dfs_.pick(step, enabled, ex);
        if (step == 1 || id != last_) ++switching_steps_;
        last_ = id;
        return id;
    }
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override {
        return dfs_.choose(step, n);
    }
    bool next_execution() override {
        if (!dfs_.next_execution()) return false;
        if (++executions_ % 256 != 0 || Clock::now() < deadline_) return true;
        stopped_ = true;
        return false;
    }
    // True if the deadline ended the search before it was exhaustive.
    bool stopped() const { return stopped_; }
    // Steps taken by another task than the step before, an execution's first step included.
    std::uint64_t switching_steps() const { return switching_steps_; }

  private:
    Dfs dfs_;
    Clock::time_point deadline_;
    std::uint64_t executions_ = 0;
    std::uint64_t switching_steps_ = 0;
    TaskId last_ = kNoTask;
    bool stopped_ = false;
};

} // namespace lockcheck::detail::bench
