// Pct: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte,
// ASPLOS 2010). Each execution gives the tasks random distinct priorities and picks d - 1
// random change points among the first k steps; the highest-priority enabled task always
// runs, and at the i-th change point the task about to run drops to priority i, below every
// other. A bug of depth d (d ordering constraints) is found by one execution with
// probability at least 1 / (n k^(d-1)) for n tasks and executions of at most k steps. k is
// learned: the first execution draws its change points below the depth bound, every later one
// below the longest execution seen so far.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "random_source.hpp"
#include "scheduler/strategy.hpp"

namespace lockcheck::detail {

class Pct final : public Strategy {
  public:
    // `steps`: the depth bound, k for the first execution.
    Pct(std::uint64_t seed, std::uint64_t executions, std::uint32_t depth, std::uint32_t steps);
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override;
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override;
    bool next_execution() override;
    double explored() const override {
        return static_cast<double>(done_) / static_cast<double>(executions_);
    }

  private:
    void begin_execution();

    RandomSource random_;
    std::uint64_t executions_;
    std::uint64_t done_ = 0;
    std::uint32_t depth_;
    std::uint32_t steps_;                             // k: change points fall in [1, k]
    std::uint32_t longest_ = 0;                       // the most steps an execution has taken
    std::array<std::uint32_t, kMaxTasks> priority_{}; // by task id; higher runs first
    std::vector<std::uint32_t> change_points_;        // steps, in the order drawn
};

} // namespace lockcheck::detail
