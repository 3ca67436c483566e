// spin_lock and friends; the preempt count they raise is what might_sleep() checks.
#include "spinlock.hpp"

#include "lock_misuse.hpp"
#include "percpu.hpp"
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
    lock_acquired(me, lock, "spinlock", &lock->dep_map, loc, subclass, trylock);
}

void lock(const char* op, spinlock_t* lock, int subclass, std::source_location loc) {
    task_struct* me = current();
    if (lock->owner == me) report_recursive_locking(op, lock, loc);
    lock_acquire(op, lock, &lock->dep_map, subclass, false, loc);
    this_execution().visible(op, lock, loc, &unlocked);
    if (this_execution().current_task().was_blocked()) ++this_execution().counters().spins;
    acquire(lock, me, subclass, false, loc);
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
    this_execution().visible("spin_trylock", lock, loc);
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
    this_execution().visible("spin_unlock", lock, loc);
    task_struct* me = current();
    if (lock->owner != me) report_bad_unlock("spin_unlock", lock, lock->owner, loc);
    lock->owner = nullptr;
    if (weak_memory::on()) [[unlikely]]
        weak_memory::lock_released(*lock);
    if (lock_released(me, lock)) --me->preempt_count;
    // spin_unlock() ends in preempt_enable(): a preemptible task may resume elsewhere.
    resume_on_any_cpu();
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
