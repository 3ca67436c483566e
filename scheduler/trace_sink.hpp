// TraceSink: receives every step of an execution in full detail. Only counterexample replays
// use one; the exhaustive search runs with none, so formatting never touches the hot path.
#pragma once

#include <cstdint>
#include <optional>

#include "task_set.hpp"

namespace lockcheck::detail {

class Execution;
class Task;
struct Operation;

class TraceSink {
  public:
    virtual ~TraceSink() = default;
    // How the step came to be taken.
    struct Context {
        TaskSet enabled = 0; // the tasks that could have taken it
        bool waited = false; // its operation could not run at some earlier step
    };
    // Called once set-up is done, before the first step: the objects' first states.
    virtual void on_start(const Execution& ex) = 0;
    // Called after `task` performed `op` as step `step`; `value` is what the operation read,
    // wrote or returned, when it has one.
    virtual void on_step(const Execution& ex, std::uint32_t step, const Task& task,
                         const Operation& op, std::optional<std::int64_t> value,
                         Context context) = 0;
    // Called when the running `task` begins (`begins`) or ends the named operation `name`
    // (lockcheck::op), between its steps: after step ex.step(), so the first step the
    // operation may wait is the next one. An operation left by an exception never ends.
    virtual void on_op(const Execution& ex, const Task& task, const char* name, bool begins) {
        (void)ex, (void)task, (void)name, (void)begins;
    }
    // Called when the execution is over, before its unfinished tasks are torn down (their
    // pending operations still show what they were about to do).
    virtual void on_end(const Execution& ex) = 0;
};

} // namespace lockcheck::detail
