// spin_lock and friends; the preempt count they raise is what might_sleep() checks.
#include "spinlock.hpp"

#include "lock_misuse.hpp"

namespace lockcheck {

namespace {
bool unlocked(const Object* obj, const Task&) {
    return !static_cast<const spinlock_t*>(obj)->owner;
}

void acquire(spinlock_t* lock, task_struct* me) {
    lock->owner = me;
    ++me->preempt_count;
    lock_acquired(me, lock, "spinlock");
}
} // namespace

void spinlock_t::describe(std::string& out) const {
    out += owner ? "held by " + owner->name() : std::string("unlocked");
}

void spin_lock(spinlock_t* lock) {
    task_struct* me = current();
    if (lock->owner == me) report_recursive_locking("spin_lock", lock);
    this_execution().visible("spin_lock", lock, &unlocked);
    if (this_execution().current_task().was_blocked()) ++this_execution().counters().spins;
    acquire(lock, me);
}

int spin_trylock(spinlock_t* lock) {
    this_execution().visible("spin_trylock", lock);
    int taken = lock->owner == nullptr;
    if (taken) acquire(lock, current());
    if (!taken) this_execution().nothing_written();
    this_execution().note(taken);
    return taken;
}

void spin_unlock(spinlock_t* lock) {
    this_execution().visible("spin_unlock", lock);
    task_struct* me = current();
    if (lock->owner != me) report_bad_unlock("spin_unlock", lock, lock->owner);
    lock->owner = nullptr;
    if (lock_released(me, lock)) --me->preempt_count;
}

} // namespace lockcheck
