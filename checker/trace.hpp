// Trace: a counterexample in full, step by step, as reports print and draw it. It is made by
// replaying a schedule with a TraceRecorder, never during the search itself.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/call_site.hpp"
#include "scheduler/task_set.hpp"
#include "scheduler/trace_sink.hpp"

namespace lockcheck {

struct TraceStep {
    std::uint32_t step = 0;
    TaskId task_id = 0;
    std::string task;
    std::string operation;          // "mutex_lock"
    std::string object;             // "log_mutex"; empty for operations on no object
    std::vector<std::int64_t> args; // shown before the object: set_bit(1, log_tree)
    std::optional<std::int64_t> value;
    std::string state; // the object's state after the step: "held by fsync0"
    // The task of the step before could have gone on but another task took this step.
    bool preempted = false;
    // The step of another task this one waited for or read from: the unlock that let a
    // lock be taken, the wake-up that ended a sleep, the write a read observed. 0: none.
    std::uint32_t synced_from = 0;
    CallSite location{}; // the model's call that made the step; unknown if none did
};

// A task that had not finished when the execution ended, and what it was about to do.
struct PendingTask {
    TaskId task_id = 0;
    std::string task;
    std::string operation;
    std::string object;
    bool blocked = false; // its operation could not run
    std::string holder;   // the task holding what it waits for, if one does
    CallSite location{};  // the model's call of that operation
};

struct Trace {
    std::vector<std::string> tasks; // names, by task id
    std::vector<TraceStep> steps;
    std::vector<PendingTask> pending; // at the end
    // Preemptions: steps taken by another task while the task of the step before could go on.
    std::uint32_t preemptions() const;
};

class TraceRecorder final : public TraceSink {
  public:
    void on_step(const Execution& ex, std::uint32_t step, const Task& task, const Operation& op,
                 std::optional<std::int64_t> value, Context context) override;
    void on_end(const Execution& ex) override;
    // Call after the execution ran, while it still exists.
    Trace take(const Execution& ex);

  private:
    struct LastWrite {
        std::uint32_t step = 0;
        TaskId task = 0;
    };
    Trace trace_;
    std::map<const void*, LastWrite> last_write_; // by object
};

} // namespace lockcheck
