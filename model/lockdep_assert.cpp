// lockdep's assertions: the running task holds a lock, holds none, has interrupts or
// preemption on or off, runs in a softirq. Each failure is the kernel's WARN, on the model's
// call that asserted.
#include <string>

#include "irq.hpp"
#include "lockdep.hpp"

namespace lockcheck::detail {

namespace {

// "WARNING: lockdep_assert_irqs_disabled() failed: t runs with interrupts enabled"
void warn(const char* assertion, const Object* lock, ViolationKind kind, const char* property,
          const std::string& why, std::source_location loc) {
    this_execution().fail_attempt(
        Operation{.name = assertion, .obj = lock, .location = loc}, kind, property,
        std::string("WARNING: ") + assertion + "(" + (lock ? lock->name() : "") +
            ") failed: " + current()->name() + " " + why);
}

std::string held_locks(const task_struct* me) {
    std::string held;
    for (int i = 0; i < me->lockdep_depth; ++i)
        held += (i ? ", " : "") + me->held_locks[i].instance->name();
    return held;
}

} // namespace

bool lockdep_is_held(const Object* lock) {
    return holds_lock(current(), lock);
}

void lockdep_assert_held(const Object* lock, std::source_location loc) {
    if (!holds_lock(current(), lock))
        warn("lockdep_assert_held", lock, ViolationKind::lock_misuse, "lockdep-assert-held",
             "does not hold it", loc);
}

void lockdep_assert_held_once(const Object* lock, std::source_location loc) {
    if (!holds_lock(current(), lock))
        warn("lockdep_assert_held_once", lock, ViolationKind::lock_misuse,
             "lockdep-assert-held-once", "does not hold it", loc);
}

void lockdep_assert_none_held_once(std::source_location loc) {
    const task_struct* me = current();
    if (me->lockdep_depth)
        warn("lockdep_assert_none_held_once", nullptr, ViolationKind::lock_misuse,
             "lockdep-assert-none-held-once", "holds " + held_locks(me), loc);
}

void lockdep_assert_irqs_enabled(std::source_location loc) {
    if (current()->irqs_off)
        warn("lockdep_assert_irqs_enabled", nullptr, ViolationKind::irq_flags,
             "lockdep-assert-irqs-enabled",
             current()->context == IN_HARDIRQ ? "runs in hardirq context, with interrupts disabled"
                                              : "runs with interrupts disabled",
             loc);
}

void lockdep_assert_irqs_disabled(std::source_location loc) {
    if (!current()->irqs_off)
        warn("lockdep_assert_irqs_disabled", nullptr, ViolationKind::irq_flags,
             "lockdep-assert-irqs-disabled", "runs with interrupts enabled", loc);
}

void lockdep_assert_in_softirq(std::source_location loc) {
    // As the kernel's: !in_softirq() || in_irq().
    const task_struct* me = current();
    if (me->context == IN_HARDIRQ)
        warn("lockdep_assert_in_softirq", nullptr, ViolationKind::irq_flags,
             "lockdep-assert-in-softirq", "runs in hardirq context", loc);
    else if (me->context != IN_SOFTIRQ && !me->bh_disabled)
        warn("lockdep_assert_in_softirq", nullptr, ViolationKind::irq_flags,
             "lockdep-assert-in-softirq", "runs in process context with bottom halves enabled",
             loc);
}

void lockdep_assert_preemption_enabled(std::source_location loc) {
    const task_struct* me = current();
    if (me->preempt_count != 0 || me->irqs_off)
        warn("lockdep_assert_preemption_enabled", nullptr, ViolationKind::preempt,
             "lockdep-assert-preemption-enabled", "cannot be preempted (" + atomic_reason(me) + ")",
             loc);
}

void lockdep_assert_preemption_disabled(std::source_location loc) {
    const task_struct* me = current();
    if (me->preempt_count == 0 && !me->irqs_off)
        warn("lockdep_assert_preemption_disabled", nullptr, ViolationKind::preempt,
             "lockdep-assert-preemption-disabled", "is preemptible", loc);
}

} // namespace lockcheck::detail
