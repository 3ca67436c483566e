// Replay: the strategy that follows a given schedule, one execution only.
#pragma once

#include "schedule.hpp"
#include "strategy.hpp"

namespace lockcheck::detail {

class Replay final : public Strategy {
  public:
    explicit Replay(Schedule schedule) : schedule_(std::move(schedule)) {}
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override;
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override;
    bool next_execution() override { return false; }
    const Schedule& schedule() const { return schedule_; }
    // How many entries of the schedule the execution used.
    std::size_t consumed() const { return next_; }

  private:
    Schedule schedule_;
    std::size_t next_ = 0; // the schedule holds task picks and choices in the order made
};

} // namespace lockcheck::detail
