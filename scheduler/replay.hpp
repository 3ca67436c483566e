// Replay: the strategy that follows a given schedule, one execution only.
#pragma once

#include "schedule.hpp"
#include "strategy.hpp"

namespace lockcheck {

class Replay final : public Strategy {
  public:
    explicit Replay(Schedule schedule) : schedule_(std::move(schedule)) {}
    TaskId pick(std::uint32_t step, TaskSet enabled) override;
    bool next_execution() override { return false; }
    const Schedule& schedule() const { return schedule_; }

  private:
    Schedule schedule_;
};

} // namespace lockcheck
