// Sleeping and spinning as the kernel's scheduler offers them: schedule(), might_sleep(),
// set_current_state(), cpu_relax(). schedule() sleeps until a wake-up sets the task running.
#pragma once

#include "task.hpp"

namespace lockcheck::detail {

// Reports "sleeping function called from invalid context" if the current task is atomic.
// Not a scheduling point. `what(obj)` is the sleeping operation: the report makes its attempt
// the last step of the trace; `loc` is where the model calls it.
void might_sleep(const char* what = "might_sleep", const Object* obj = nullptr,
                 std::source_location loc = std::source_location::current());
void set_current_state(long state, std::source_location loc = std::source_location::current());
void __set_current_state(long state, std::source_location loc = std::source_location::current());
// Sleeps until woken if the task's state is not TASK_RUNNING; a scheduling point either way.
void schedule(std::source_location loc = std::source_location::current());
// schedule_timeout(timeout): as schedule(), but the task's timer may end the sleep first. Time
// is not modelled: the timer may expire at any step at which the task sleeps, and the search
// tries each (the sleep is never a hang). Returns 0 if it expired, else `timeout` (a model
// without jiffies sees none of it spent). MAX_SCHEDULE_TIMEOUT sleeps as schedule() does.
inline constexpr long MAX_SCHEDULE_TIMEOUT = 0x7fffffffffffffffL;
long schedule_timeout(long timeout, std::source_location loc = std::source_location::current());
// One turn of a spin loop. The task runs on when an object it touched during the turn has
// been written since the turn began (what it read may be stale), or when no other task can
// run; spinning while others could run and nothing it looked at changed repeats the same
// reads, so the search skips it. When only spinners can run they take turns (the scheduler's
// next_spinner): a loop bounded by a counter of its own leaves after its bound, and when each
// spun --spin-bound turns with nothing changed anywhere they are reported as a hang.
void cpu_relax(std::source_location loc = std::source_location::current());
// cpu_relax() in a loop of a primitive's own, `loop` (Execution::begin_spin_turn()).
void cpu_relax_in(const void* loop, std::source_location loc);
// Wakes a task sleeping in one of `state`s; returns 1 if it was asleep. A scheduling point.
int wake_up_process(task_struct* task, std::source_location loc = std::source_location::current());

// The core of every wake-up: TASK_RUNNING if the task's state matches.
int try_to_wake_up(task_struct* task, long state);

} // namespace lockcheck::detail
