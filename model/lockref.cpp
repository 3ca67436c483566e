// lockref operations over the lockref's spinlock, as lib/lockref.c's lock path writes them.
#include "lockref.hpp"

#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

// spin_lock(); if the count passes `may`, add `delta`; spin_unlock(). True if it added.
bool locked_change(struct lockref* lockref, bool (*may)(int count), int delta,
                   std::source_location loc) {
    spin_lock(&lockref->lock, loc);
    const bool changed = may(lockref->count);
    if (changed) lockref->count += delta;
    spin_unlock(&lockref->lock, loc);
    return changed;
}

} // namespace

void lockref::describe(std::string& out) const {
    out += "count = " + std::to_string(count) + (count < 0 ? " (dead)" : "");
}

void lockref_get(struct lockref* lockref, std::source_location loc) {
    locked_change(
        lockref, [](int) { return true; }, 1, loc);
}

bool lockref_get_not_zero(struct lockref* lockref, std::source_location loc) {
    return locked_change(
        lockref, [](int count) { return count > 0; }, 1, loc);
}

bool lockref_get_not_dead(struct lockref* lockref, std::source_location loc) {
    return locked_change(
        lockref, [](int count) { return count >= 0; }, 1, loc);
}

bool lockref_put_or_lock(struct lockref* lockref, std::source_location loc) {
    spin_lock(&lockref->lock, loc);
    if (lockref->count <= 1) return false;
    --lockref->count;
    spin_unlock(&lockref->lock, loc);
    return true;
}

int lockref_put_return(struct lockref* lockref, std::source_location loc) {
    spinlock_t* lock = &lockref->lock;
    this_execution().visible("lockref_put_return", lock, loc);
    const bool free = !lock->owner;
    if (weak_memory::on()) [[unlikely]] {
        if (free) {
            weak_memory::lock_acquired(*lock);
            weak_memory::lock_released(*lock);
        } else {
            weak_memory::lock_attempt_failed(*lock);
        }
    }
    int ret = -1;
    if (free && lockref->count > 0) ret = --lockref->count;
    if (ret < 0) this_execution().nothing_written();
    this_execution().note(ret);
    return observed(ret);
}

void lockref_mark_dead(struct lockref* lockref, std::source_location loc) {
    if (!lockref->lock.owner)
        this_execution().fail(ViolationKind::lock_misuse, "assert-spin-locked",
                              "kernel BUG: assert_spin_locked(" + lockref->lock.name() +
                                  ") in lockref_mark_dead() by " + current()->name() +
                                  ": the lock is not held",
                              loc);
    lockref->count = -128;
}

bool __lockref_is_dead(const struct lockref* lockref) {
    return lockref->count < 0;
}

} // namespace lockcheck::detail
