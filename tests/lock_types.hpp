// The lock types the lock tests run against, each behind the same three calls (lock,
// trylock, unlock), so that a lock-order or lock-debugging test is written once and checked
// for every type instead of being copied per type.
#pragma once

#include "model/kernel.hpp"

namespace lockcheck::detail::testing {

template <class Lock> struct lock_type;

template <> struct lock_type<mutex> {
    static constexpr const char* name = "mutex";
    static void lock(mutex* l) { mutex_lock(l); }
    static int trylock(mutex* l) { return mutex_trylock(l); }
    static void unlock(mutex* l) { mutex_unlock(l); }
};

template <> struct lock_type<spinlock_t> {
    static constexpr const char* name = "spinlock_t";
    static void lock(spinlock_t* l) { spin_lock(l); }
    static int trylock(spinlock_t* l) { return spin_trylock(l); }
    static void unlock(spinlock_t* l) { spin_unlock(l); }
};

// The write side: the side that excludes, as a lock-order bug needs.
template <> struct lock_type<rw_semaphore> {
    static constexpr const char* name = "rw_semaphore (write)";
    static void lock(rw_semaphore* l) { down_write(l); }
    static int trylock(rw_semaphore* l) { return down_write_trylock(l); }
    static void unlock(rw_semaphore* l) { up_write(l); }
};

// Runs `test.operator()<Lock>()` for every lock type; `test` is a template lambda.
template <class Test> void for_each_lock_type(Test test) {
    test.template operator()<mutex>();
    test.template operator()<spinlock_t>();
    test.template operator()<rw_semaphore>();
}

} // namespace lockcheck::detail::testing
