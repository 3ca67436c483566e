// RandomWalk: each step a uniformly random enabled task, each model choice a uniformly random
// value, for a given number of executions, all drawn from one RandomSource.
#pragma once

#include <cstdint>

#include "random_source.hpp"
#include "scheduler/strategy.hpp"

namespace lockcheck::detail {

class RandomWalk final : public Strategy {
  public:
    RandomWalk(std::uint64_t seed, std::uint64_t executions)
        : random_(seed), executions_(executions) {}
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override;
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override;
    bool next_execution() override { return ++done_ < executions_; }
    double explored() const override {
        return static_cast<double>(done_) / static_cast<double>(executions_);
    }

  private:
    RandomSource random_;
    std::uint64_t executions_;
    std::uint64_t done_ = 0;
};

} // namespace lockcheck::detail
