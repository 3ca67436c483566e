// Sleeping and spinning as the kernel's scheduler offers them: schedule(), might_sleep(),
// set_current_state(), cpu_relax(). schedule() sleeps until a wake-up sets the task running.
#pragma once

#include "task.hpp"

namespace lockcheck {

// Reports "sleeping function called from invalid context" if the current task is atomic.
// Not a scheduling point. `what` names the sleeping operation for the report.
void might_sleep(const char* what = "might_sleep", const Object* obj = nullptr);
void set_current_state(long state);
void __set_current_state(long state);
// Sleeps until woken if the task's state is not TASK_RUNNING; a scheduling point either way.
void schedule();
// One turn of a spin loop. The task is not picked again until another task has changed
// shared state: re-reading unchanged state cannot change the outcome, so that interleaving
// is redundant. Tasks that only spin, waiting for each other, are reported as a hang.
void cpu_relax();
// Wakes a task sleeping in one of `state`s; returns 1 if it was asleep. A scheduling point.
int wake_up_process(task_struct* task);

// The core of every wake-up: TASK_RUNNING if the task's state matches.
int try_to_wake_up(task_struct* task, long state);

} // namespace lockcheck
