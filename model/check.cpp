// check(), invariant() and final_check() on the current execution.
#include "check.hpp"

#include "task.hpp"

namespace lockcheck {

void check(bool cond, const char* message, std::source_location loc) {
    // `cond` may have read any state with peek(): to a partial-order reduction the step
    // making this check depends on every other.
    this_execution().observed_all();
    if (!cond)
        this_execution().fail(ViolationKind::check_failed, message,
                              std::string("check failed: ") + message, loc);
}

void invariant(std::string name, std::function<bool()> holds) {
    this_execution().add_invariant(std::move(name), std::move(holds));
}

void final_check(std::string name, std::function<bool()> holds) {
    this_execution().add_final_check(std::move(name), std::move(holds));
}

} // namespace lockcheck
