// Replay picks the scheduled task; checking that it is enabled is the execution's job.
#include "replay.hpp"

namespace lockcheck {

TaskId Replay::pick(std::uint32_t step, TaskSet) {
    return step <= schedule_.size() ? schedule_[step - 1] : kNoTask;
}

} // namespace lockcheck
