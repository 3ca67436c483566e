// Properties a model states: check() inside task code, invariant() after every step,
// final_check() when every task has finished, and the kernel's BUG_ON() and WARN_ON(). Only
// BUG_ON and WARN_ON are scheduling points; the others are evaluated within a step.
#pragma once

#include <functional>
#include <source_location>
#include <string>

namespace lockcheck::detail {

// Fails the execution with `message` if `cond` is false. The step that checks counts as
// reading all shared state (`cond` may peek at any of it). `cond` is evaluated atomically
// with the task's step before it: no other task can run between that step and the check, so
// a check() right after a lock release cannot see what another task does once the lock is
// free (BUG_ON can, and the summary flags such a check). A failure names `loc`, the check's
// line in the model.
void check(bool cond, const char* message,
           std::source_location loc = std::source_location::current());
// Set-up only: `holds` must read state with peek(), never through scheduling points.
void invariant(std::string name, std::function<bool()> holds);
void final_check(std::string name, std::function<bool()> holds);

// The scheduling point of a BUG_ON or WARN_ON: read-only, and depending on every other step
// (its condition may peek at anything). `assertion` is its text, "BUG_ON(obj->dead)".
void assertion_point(const char* operation, const char* assertion, std::source_location loc);
// The value of its condition, evaluated at that point: if it holds, fails the execution with
// the assertion as the property and `report` before it in the message. Returns `fired`.
bool assertion_result(const char* report, const char* assertion, bool fired,
                      std::source_location loc);

template <class Cond>
bool kernel_assertion(const char* operation, const char* report, const char* assertion, Cond&& cond,
                      std::source_location loc) {
    assertion_point(operation, assertion, loc);
    return assertion_result(report, assertion, cond(), loc);
}

} // namespace lockcheck::detail

// The kernel's assertions, each a scheduling point of its own: other tasks may take steps
// between the task's step before it and the test of `cond`, as on a machine. BUG_ON(cond)
// fails the execution when `cond` holds, with "BUG_ON(cond)" as the property (kind
// check-failed); so does WARN_ON(cond) (a WARN is a finding), which returns `cond` as the
// kernel's does. Both are counted like check().
#define BUG_ON(cond)                                                                               \
    ((void)::lockcheck::detail::kernel_assertion(                                                  \
        "BUG_ON", "kernel BUG: ", "BUG_ON(" #cond ")", [&]() -> bool { return (cond); },           \
        std::source_location::current()))
#define WARN_ON(cond)                                                                              \
    ::lockcheck::detail::kernel_assertion(                                                         \
        "WARN_ON", "WARNING: ", "WARN_ON(" #cond ")", [&]() -> bool { return (cond); },            \
        std::source_location::current())
