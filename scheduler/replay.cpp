// Replay picks the scheduled task; checking that it is enabled is the execution's job.
#include "replay.hpp"

namespace lockcheck::detail {

TaskId Replay::pick(std::uint32_t, TaskSet, const Execution&) {
    return next_ < schedule_.size() ? schedule_[next_++] : kNoTask;
}

std::uint32_t Replay::choose(std::uint32_t, std::uint32_t) {
    return next_ < schedule_.size() ? schedule_[next_++] : kNoTask;
}

} // namespace lockcheck::detail
