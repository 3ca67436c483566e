// spin_lock and friends; the preempt count they raise is what might_sleep() checks.
#include "spinlock.hpp"

#include "lock_forms.hpp"
#include "lock_misuse.hpp"
#include "percpu.hpp"
#include "rcu.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

bool unlocked(const Object* obj, const Task&) {
    return !static_cast<const spinlock_t*>(obj)->owner;
}

void acquire(spinlock_t* lock, task_struct* me, int subclass, bool trylock,
             std::source_location loc) {
    lock->owner = me;
    if (weak_memory::on()) [[unlikely]]
        weak_memory::lock_acquired(*lock);
    ++me->preempt_count;
    rcu_atomic_changed(me);
    lock_acquired(me, lock, "spinlock", &lock->dep_map, loc, subclass, trylock);
}

// Returns what local_irq_save() would (Beside::irqs).
unsigned long lock(const char* op, spinlock_t* lock, int subclass, std::source_location loc,
                   Beside beside = Beside::nothing) {
    task_struct* me = current();
    if (lock->owner == me) report_recursive_locking(op, lock, loc);
    lock_acquire(op, lock, &lock->dep_map, subclass, false, loc, lockdep_turned_off(beside));
    this_execution().visible(op, lock, loc, &unlocked, {}, read_side_change);
    if (this_execution().current_task().was_blocked()) ++this_execution().counters().spins;
    const unsigned long flags = beside_lock(me, beside);
    acquire(lock, me, subclass, false, loc);
    return flags;
}

// `restore`: local_irq_restore(flags) rather than local_irq_enable() (Beside::irqs).
void unlock(const char* op, spinlock_t* lock, std::source_location loc,
            Beside beside = Beside::nothing, unsigned long flags = 0, bool restore = false) {
    this_execution().visible(op, lock, loc, nullptr, {}, read_side_change);
    task_struct* me = current();
    if (lock->owner != me) report_bad_unlock(op, lock, lock->owner, loc);
    lock->owner = nullptr;
    if (weak_memory::on()) [[unlikely]]
        weak_memory::lock_released(*lock);
    if (lock_released(me, lock)) --me->preempt_count;
    rcu_atomic_changed(me);
    beside_unlock(me, beside, op, lock, flags, restore, loc);
    // The unlock ends in preempt_enable(): a preemptible task may resume elsewhere.
    resume_on_any_cpu();
}

} // namespace

void spinlock_t::describe(std::string& out) const {
    out += owner ? "held by " + owner->name() : std::string("unlocked");
}

void spin_lock(spinlock_t* l, std::source_location loc) {
    lock("spin_lock", l, 0, loc);
}

void spin_lock_nested(spinlock_t* l, int subclass, std::source_location loc) {
    lock("spin_lock_nested", l, subclass, loc);
}

int spin_trylock(spinlock_t* lock, std::source_location loc) {
    this_execution().visible("spin_trylock", lock, loc, nullptr, {}, read_side_change);
    int taken = lock->owner == nullptr;
    if (taken) {
        lock_acquire("spin_trylock", lock, &lock->dep_map, 0, true, loc);
        acquire(lock, current(), 0, true, loc);
    } else {
        if (weak_memory::on()) [[unlikely]]
            weak_memory::lock_attempt_failed(*lock);
        this_execution().attempt_failed();
    }
    this_execution().note(taken);
    return observed(taken);
}

void spin_unlock(spinlock_t* lock, std::source_location loc) {
    unlock("spin_unlock", lock, loc);
}

void spin_lock_irq(spinlock_t* l, std::source_location loc) {
    lock("spin_lock_irq", l, 0, loc, Beside::irqs);
}

void spin_unlock_irq(spinlock_t* l, std::source_location loc) {
    unlock("spin_unlock_irq", l, loc, Beside::irqs);
}

void spin_lock_irqsave(spinlock_t* l, unsigned long& flags, std::source_location loc) {
    flags = lock("spin_lock_irqsave", l, 0, loc, Beside::irqs);
}

void spin_lock_irqsave_nested(spinlock_t* l, unsigned long& flags, int subclass,
                              std::source_location loc) {
    flags = lock("spin_lock_irqsave_nested", l, subclass, loc, Beside::irqs);
}

void spin_unlock_irqrestore(spinlock_t* l, unsigned long flags, std::source_location loc) {
    unlock("spin_unlock_irqrestore", l, loc, Beside::irqs, flags, true);
}

void spin_lock_bh(spinlock_t* l, std::source_location loc) {
    lock("spin_lock_bh", l, 0, loc, Beside::bh);
}

void spin_unlock_bh(spinlock_t* l, std::source_location loc) {
    unlock("spin_unlock_bh", l, loc, Beside::bh);
}

bool spin_is_locked(spinlock_t* lock, std::source_location loc) {
    this_execution().visible_read("spin_is_locked", lock, loc);
    bool held = lock->owner != nullptr;
    if (weak_memory::on()) [[unlikely]]
        held = weak_memory::lock_is_locked(*lock, held);
    this_execution().note(held);
    return observed(held);
}

} // namespace lockcheck::detail
