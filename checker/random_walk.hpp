// RandomWalk: each step a uniformly random enabled task, each model choice a uniformly random
// value, for a given number of executions. Every random number comes from one generator
// seeded once (std::mt19937_64, whose output the C++ standard fixes), so the same seed gives
// the same executions on every machine.
#pragma once

#include <cstdint>
#include <random>

#include "scheduler/strategy.hpp"

namespace lockcheck {

class RandomWalk final : public Strategy {
  public:
    RandomWalk(std::uint64_t seed, std::uint64_t executions)
        : random_(seed), executions_(executions) {}
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override;
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override;
    bool next_execution() override { return ++done_ < executions_; }

  private:
    // A uniform value in [0, n) (Lemire's multiply-and-shift; the bias is below 2^-58).
    std::uint32_t below(std::uint32_t n);

    std::mt19937_64 random_;
    std::uint64_t executions_;
    std::uint64_t done_ = 0;
};

} // namespace lockcheck
