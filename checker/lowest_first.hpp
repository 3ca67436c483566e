// LowestFirst: one execution in which the lowest-numbered enabled task always takes the step.
// The cheapest strategy there is: the benchmark measures the scheduler under it, and tests
// record one known execution with it. It never searches.
#pragma once

#include "scheduler/strategy.hpp"

namespace lockcheck::detail {

class LowestFirst final : public Strategy {
  public:
    TaskId pick(std::uint32_t, TaskSet enabled, const Execution&) override {
        return lowest(enabled);
    }
    std::uint32_t choose(std::uint32_t, std::uint32_t) override { return 0; }
    bool next_execution() override { return false; }
};

} // namespace lockcheck::detail
