// Pct: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte,
// ASPLOS 2010). Each execution gives the tasks random distinct priorities and picks d - 1
// random change points among the first k steps; the highest-priority enabled task always
// runs, and at the i-th change point the task about to run drops to priority i, below every
// other. A bug of depth d (d ordering constraints) is found by one execution with
// probability at least 1 / (n k^(d-1)) for n tasks.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "random_source.hpp"
#include "scheduler/strategy.hpp"

namespace lockcheck {

class Pct final : public Strategy {
  public:
    // `steps`: k, the bound on an execution's steps the change points are drawn from.
    Pct(std::uint64_t seed, std::uint64_t executions, std::uint32_t depth, std::uint32_t steps);
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override;
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override;
    bool next_execution() override;
    // The probability that one execution finds a given bug of depth d, for n tasks.
    double bound_per_execution(std::uint32_t tasks) const;

  private:
    void begin_execution();

    RandomSource random_;
    std::uint64_t executions_;
    std::uint64_t done_ = 0;
    std::uint32_t depth_;
    std::uint32_t steps_;
    std::array<std::uint32_t, kMaxTasks> priority_{}; // by task id; higher runs first
    std::vector<std::uint32_t> change_points_;        // steps, in the order drawn
};

} // namespace lockcheck
