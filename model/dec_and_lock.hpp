// The shape of lib/dec_and_lock.c, shared by atomic_dec_and_lock() and lib/refcount.c's
// refcount_dec_and_lock() and refcount_dec_and_mutex_lock(): not a model API, only the one
// place that shape is written.
#pragma once

#include <source_location>

namespace lockcheck::detail {

// Drops a count, taking `lock` only when the count may reach zero: a fast path that
// decrements unless that would leave zero, then the lock, then the decrement that may reach
// zero. Each is its own scheduling point, as in the kernel, so another task's get or put can
// come in between. True, with the lock held, if the count reached zero.
// Every step names `loc`, the model's call of the primitive built on this.
template <class Counter, class Lock, class DecUnlessLast, class DecAndTest, class Take,
          class Release>
bool dec_and_lock(Counter* count, Lock* lock, DecUnlessLast dec_unless_last,
                  DecAndTest dec_and_test, Take take, Release release, std::source_location loc) {
    if (dec_unless_last(count, loc)) return false;
    take(lock, loc);
    if (dec_and_test(count, loc)) return true;
    release(lock, loc);
    return false;
}

} // namespace lockcheck::detail
