// The reports a lock's debug checks make, shared by every lock type so that each reads the
// same: recursive acquisition, and releases the releasing task is not entitled to.
#pragma once

#include "task.hpp"

namespace lockcheck::detail {

// "possible recursive locking detected" (lockdep), found before `op`'s scheduling point: the
// attempt is the trace's last step. `loc`: the model's call of `op`.
void report_recursive_locking(const char* op, const Object* lock, std::source_location loc);
// "bad unlock balance detected": releasing a lock this task does not hold. `owner` is the
// task that holds it, if any.
void report_bad_unlock(const char* op, const Object* lock, const Task* owner,
                       std::source_location loc);

} // namespace lockcheck::detail
