// Violation: what an execution found wrong, as the checker reports and compares it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "call_site.hpp"

namespace lockcheck::detail {

enum class ViolationKind : std::uint8_t {
    check_failed,      // check(cond, message) in task code
    invariant,         // a named invariant evaluated after every step
    final_check,       // a named check when all tasks have finished
    deadlock,          // no task enabled, a cycle of tasks waiting for each other's locks
    hang,              // no task enabled, a task asleep (or blocked) that nothing can wake
    lock_misuse,       // unlock of a lock not held, by a non-owner, recursive locking
    sleep_in_atomic,   // a sleeping operation while holding a spinlock
    lock_held_at_exit, // a task finished holding a lock
    exception,         // model code threw
    stack_overflow,    // model code overflowed its fiber stack
    no_progress,       // model code ran past the step timeout without a scheduling point
    lock_order,        // lockdep: a circular or recursive lock-class dependency
    list_corruption,   // CONFIG_DEBUG_LIST: a list_head linked twice or deleted twice
    preempt,           // CONFIG_DEBUG_PREEMPT: this_cpu_ptr() in preemptible code
    data_race,         // KCSAN: unordered conflicting accesses of a variable, one plain
    refcount,          // refcount_t's WARNs: an addition on 0, an underflow, a saturation
    use_after_free,    // KASAN: an operation on an object in freed memory, or a double free
    invalid_free,      // KASAN: kfree() of a pointer kmalloc() did not return
    crash,             // model code raised SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT
    exit,              // model code called exit(), quick_exit() or _exit()
    livelock,          // tasks that can run go round loops that change nothing, for ever
    wait_bound,        // a named operation waited longer than its bound (--max-wait)
    irq_flags,         // interrupts turned on inside a section that needs them off, a bad restore
};

std::string_view kind_name(ViolationKind kind);
// Whether the kernel reports a violation of this kind and runs on: KCSAN's data races and
// lockdep's reports print a splat and change nothing the tasks do, and an operation that
// waited too long still finishes. With --keep-going an
// execution goes on past one, so that its later steps are checked as well.
bool survivable(ViolationKind kind);
// Parses a name produced by kind_name; false if there is none such.
bool parse_kind(std::string_view name, ViolationKind& kind);

struct Violation {
    ViolationKind kind{};
    std::string property;             // invariant or check name; the kind name otherwise
    std::string message;              // one line, what broke
    std::uint32_t step = 0;           // the step it happened at (0: before the first step)
    std::vector<std::string> details; // further lines: blocked tasks, the wait-for cycle
    // The model's call that broke it (a failed check(), a misused lock), if one did.
    CallSite location{};
    // Earlier steps the report names (lockdep's chain, a race's first access): a trace that
    // folds the steps the violation does not depend on keeps these in view.
    std::vector<std::uint32_t> cited{};
    // What it is about beyond its property, in name order: a use-after-free's fields of the
    // freed object that were used (its property names the object; a search that meets it
    // through several fields keeps one finding naming them all, in its first detail line).
    std::vector<std::string> objects{};

    // The same finding met again (key()): its objects join these.
    void merge_objects(const Violation& again);
    // The detail line that names `objects`.
    static std::string objects_line(const std::vector<std::string>& objects);
    // The message and, if known, where: "check failed: X (buffered_write.cpp:170 f)".
    std::string headline() const;
    // Two violations are the same finding when they agree on kind and message; data races and
    // uses after free, whose messages name steps, when they agree on the object (their
    // property). The location stays out: one finding reached from two lines is still one
    // finding.
    std::string key() const {
        const bool by_object =
            kind == ViolationKind::data_race || kind == ViolationKind::use_after_free;
        return std::string(kind_name(kind)) + ": " + (by_object ? property : message);
    }
};

} // namespace lockcheck::detail
