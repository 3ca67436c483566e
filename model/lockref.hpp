// struct lockref (include/linux/lockref.h, lib/lockref.c): a reference count guarded by its own
// spinlock, as a dentry's d_lockref. Each operation takes the lock, looks at the count and
// drops the lock, as lib/lockref.c's lock path does; lockref_put_or_lock() returns with the lock
// held when the reference may be the last. The kernel's lockless cmpxchg fast path is not
// modelled there: it only succeeds while the lock is free, so it reaches the outcomes the lock
// path does (and lockdep kernels, whose spinlock_t is too large for it, run the lock path
// alone). lockref_put_return() has no lock path: it is the fast path, one step that decrements
// when the lock is free and the count positive, and returns -1 otherwise; under lkmm it is
// ordered as a lock and unlock of the lock (more than the kernel's relaxed cmpxchg, never less).
#pragma once

#include "spinlock.hpp"

namespace lockcheck::detail {

struct lockref final : Object {
    explicit lockref(std::string name, int n = 0) : Object(name), lock(name + ".lock"), count(n) {}
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override { h.add(static_cast<std::uint64_t>(count)); }

    spinlock_t lock;
    int count; // changed with `lock` held (lockref_put_return: with it free, atomically)
};

#define LOCKCHECK_LOC std::source_location loc = std::source_location::current()

// Takes a reference; the caller must hold one, or the lock.
void lockref_get(struct lockref* lockref, LOCKCHECK_LOC);
// Takes a reference unless the count is 0 or below (dead): true if it took one.
bool lockref_get_not_zero(struct lockref* lockref, LOCKCHECK_LOC);
// Takes a reference unless the lockref is dead (count below 0).
bool lockref_get_not_dead(struct lockref* lockref, LOCKCHECK_LOC);
// Drops a reference unless it is the last: true if it dropped one; false with the lock held
// (the caller decides, under the lock, whether to kill the object).
bool lockref_put_or_lock(struct lockref* lockref, LOCKCHECK_LOC);
// The lockless put: the new count, or -1 if the lock is held or the count is 0 or below.
int lockref_put_return(struct lockref* lockref, LOCKCHECK_LOC);
// With the lock held (assert_spin_locked(), the kernel's BUG): the count becomes -128, dead.
void lockref_mark_dead(struct lockref* lockref, LOCKCHECK_LOC);
// __lockref_is_dead(): the count is below 0. Not a step: the caller holds the lock.
bool __lockref_is_dead(const struct lockref* lockref);

#undef LOCKCHECK_LOC

} // namespace lockcheck::detail
