// The shape of lib/dec_and_lock.c, shared by atomic_dec_and_lock() and lib/refcount.c's
// refcount_dec_and_lock() and refcount_dec_and_mutex_lock(): not a model API, only the one
// place that shape is written.
#pragma once

namespace lockcheck {

// Drops a count, taking `lock` only when the count may reach zero: a fast path that
// decrements unless that would leave zero, then the lock, then the decrement that may reach
// zero. Each is its own scheduling point, as in the kernel, so another task's get or put can
// come in between. True, with the lock held, if the count reached zero.
template <class Counter, class Lock>
bool dec_and_lock(Counter* count, Lock* lock, bool (*dec_unless_last)(Counter*),
                  bool (*dec_and_test)(Counter*), void (*take)(Lock*), void (*release)(Lock*)) {
    if (dec_unless_last(count)) return false;
    take(lock);
    if (dec_and_test(count)) return true;
    release(lock);
    return false;
}

} // namespace lockcheck
