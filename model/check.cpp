// check(), invariant(), final_check(), BUG_ON and WARN_ON on the current execution, and the
// count of each evaluation for the summary's vacuity report.
#include "check.hpp"

#include <cstring>

#include "task.hpp"

namespace lockcheck::detail {

namespace {

// The primitives that release a lock. A check() right after one of them, in the same task,
// runs before any other task can take the lock: it cannot see another task in between.
constexpr const char* kLockReleases[] = {"spin_unlock", "mutex_unlock",    "up_read",
                                         "up_write",    "downgrade_write", "unlock_extent"};

bool released_a_lock(const Operation& op) {
    if (!op.name) return false; // no step taken yet
    for (const char* release : kLockReleases)
        if (std::strcmp(op.name, release) == 0) return true;
    return false;
}

// Counts an evaluation of the check() or assertion `message` by the running task.
void count(Execution& ex, const char* message) {
    ex.count_check(message, ex.in_task() && released_a_lock(ex.current_task().pending()));
}

} // namespace

void check(bool cond, const char* message, std::source_location loc) {
    Execution& ex = this_execution();
    // `cond` may have read any state with peek(): to a partial-order reduction the step
    // making this check depends on every other.
    ex.observed_all();
    count(ex, message);
    if (!cond)
        ex.fail(ViolationKind::check_failed, message, std::string("check failed: ") + message, loc);
}

void invariant(std::string name, std::function<bool()> holds) {
    this_execution().add_invariant(std::move(name), std::move(holds));
}

void final_check(std::string name, std::function<bool()> holds) {
    this_execution().add_final_check(std::move(name), std::move(holds));
}

void assertion_point(const char* operation, const char* assertion, std::source_location loc) {
    Execution& ex = this_execution();
    // A step on no object: to a partial-order reduction it depends on every other step.
    ex.visible_read(operation, nullptr, loc);
    count(ex, assertion);
}

bool assertion_result(const char* report, const char* assertion, bool fired,
                      std::source_location loc) {
    Execution& ex = this_execution();
    ex.note(fired); // the trace shows the condition's value: BUG_ON() -> 1
    if (fired)
        ex.fail(ViolationKind::check_failed, assertion, report + std::string(assertion), loc);
    return observed(fired);
}

} // namespace lockcheck::detail
