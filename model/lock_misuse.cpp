// Lock misuse reports in the words of the kernel's lock debugging.
#include "lock_misuse.hpp"

namespace lockcheck::detail {

void report_recursive_locking(const char* op, const Object* lock, std::source_location loc) {
    this_execution().fail_attempt(Operation{.name = op, .obj = lock, .location = loc},
                                  ViolationKind::lock_misuse, "recursive-locking",
                                  "possible recursive locking detected: " + current()->name() +
                                      " calls " + op + "(" + lock->name() + ") while holding it");
}

void report_bad_unlock(const char* op, const Object* lock, const Task* owner,
                       std::source_location loc) {
    std::string who = owner ? "held by " + owner->name() : std::string("not held");
    this_execution().fail(ViolationKind::lock_misuse, "bad-unlock",
                          "bad unlock balance detected: " + current()->name() + " calls " + op +
                              "(" + lock->name() + ") but it is " + who,
                          loc);
}

} // namespace lockcheck::detail
