// atomic_t, atomic64_t and atomic_long_t: an integer whose every operation is one indivisible
// scheduling point. Orderings are Documentation/atomic_t.txt's: the reads and sets and the RMWs
// that return nothing (atomic_inc, atomic64_add, ...) are unordered; the value-returning RMWs
// are fully ordered, with _relaxed, _acquire and _release variants; a conditional RMW that
// fails is unordered. Under --memory-model sc every operation is sequentially consistent
// anyway; under lkmm the orderings decide what other tasks may see (weak_memory.hpp). The three
// types are one counter of different widths, and their operations one family of functions
// generated per type, as the kernel generates them (scripts/atomic/gen-atomics.sh).
#pragma once

#include <cstdint>

#include "task.hpp"

namespace lockcheck::detail {

struct spinlock_t;

// The counter behind the three types; models use the kernel's type names.
template <class Int> struct atomic_counter : Object {
    using value_type = Int;
    explicit atomic_counter(std::string name, Int i = 0) : Object(std::move(name)), counter(i) {}
    void describe(std::string& out) const final { out += "= " + std::to_string(counter); }
    void fingerprint(StateHasher& h) const final { h.add(static_cast<std::uint64_t>(counter)); }
    // The value, without a scheduling point: for invariants and final checks only (a report of
    // their failure shows what they read). Under lkmm, the coherence-last value.
    Int peek() const {
        Execution::peeked(*this);
        return counter;
    }

    Int counter;
};

struct atomic_t final : atomic_counter<int> {
    using atomic_counter::atomic_counter;
};
// The kernel's s64, which atomic64_t holds on every architecture.
using s64 = long long;
struct atomic64_t final : atomic_counter<s64> {
    using atomic_counter::atomic_counter;
};
// A long: atomic64_t on the 64-bit machines lockcheck models (include/linux/atomic/
// atomic-long.h maps each operation to its atomic64_ one there).
struct atomic_long_t final : atomic_counter<long> {
    using atomic_counter::atomic_counter;
};

#define LOCKCHECK_LOC std::source_location loc = std::source_location::current()

// One type's operations, named prefix_op (atomic_read, atomic64_read, atomic_long_read):
// - read and set (unordered), read_acquire and set_release;
// - inc, dec, add, sub: unordered, returning nothing;
// - the value-returning operations, fully ordered without a suffix: the new value for _return,
//   the old one for fetch_ and xchg, the value found for cmpxchg (it stores `new_` if that is
//   `old`); try_cmpxchg returns whether it stored, and else leaves the value found in *old;
// - dec_and_test, inc_and_test, sub_and_test: fully ordered, true if the result is zero;
// - add_unless(v, a, u): adds `a` unless the value is `u`; true if it added (fully ordered
//   then, unordered if not); inc_not_zero: a lookup's get of a live object.
#define LOCKCHECK_ATOMIC_RETURNING(prefix, type, Int, suffix)                                      \
    Int prefix##_add_return##suffix(Int i, type* v, LOCKCHECK_LOC);                                \
    Int prefix##_sub_return##suffix(Int i, type* v, LOCKCHECK_LOC);                                \
    Int prefix##_inc_return##suffix(type* v, LOCKCHECK_LOC);                                       \
    Int prefix##_dec_return##suffix(type* v, LOCKCHECK_LOC);                                       \
    Int prefix##_fetch_add##suffix(Int i, type* v, LOCKCHECK_LOC);                                 \
    Int prefix##_fetch_sub##suffix(Int i, type* v, LOCKCHECK_LOC);                                 \
    Int prefix##_fetch_inc##suffix(type* v, LOCKCHECK_LOC);                                        \
    Int prefix##_fetch_dec##suffix(type* v, LOCKCHECK_LOC);                                        \
    Int prefix##_xchg##suffix(type* v, Int new_, LOCKCHECK_LOC);                                   \
    Int prefix##_cmpxchg##suffix(type* v, Int old, Int new_, LOCKCHECK_LOC);                       \
    bool prefix##_try_cmpxchg##suffix(type* v, Int* old, Int new_, LOCKCHECK_LOC);
#define LOCKCHECK_ATOMIC_FAMILY(prefix, type, Int)                                                 \
    Int prefix##_read(const type* v, LOCKCHECK_LOC);                                               \
    Int prefix##_read_acquire(const type* v, LOCKCHECK_LOC);                                       \
    void prefix##_set(type* v, Int i, LOCKCHECK_LOC);                                              \
    void prefix##_set_release(type* v, Int i, LOCKCHECK_LOC);                                      \
    void prefix##_inc(type* v, LOCKCHECK_LOC);                                                     \
    void prefix##_dec(type* v, LOCKCHECK_LOC);                                                     \
    void prefix##_add(Int i, type* v, LOCKCHECK_LOC);                                              \
    void prefix##_sub(Int i, type* v, LOCKCHECK_LOC);                                              \
    LOCKCHECK_ATOMIC_RETURNING(prefix, type, Int, )                                                \
    LOCKCHECK_ATOMIC_RETURNING(prefix, type, Int, _relaxed)                                        \
    LOCKCHECK_ATOMIC_RETURNING(prefix, type, Int, _acquire)                                        \
    LOCKCHECK_ATOMIC_RETURNING(prefix, type, Int, _release)                                        \
    bool prefix##_dec_and_test(type* v, LOCKCHECK_LOC);                                            \
    bool prefix##_inc_and_test(type* v, LOCKCHECK_LOC);                                            \
    bool prefix##_sub_and_test(Int i, type* v, LOCKCHECK_LOC);                                     \
    bool prefix##_add_unless(type* v, Int a, Int u, LOCKCHECK_LOC);                                \
    bool prefix##_inc_not_zero(type* v, LOCKCHECK_LOC);
LOCKCHECK_ATOMIC_FAMILY(atomic, atomic_t, int)
LOCKCHECK_ATOMIC_FAMILY(atomic64, atomic64_t, s64)
LOCKCHECK_ATOMIC_FAMILY(atomic_long, atomic_long_t, long)
#undef LOCKCHECK_ATOMIC_FAMILY
#undef LOCKCHECK_ATOMIC_RETURNING

// Decrements; if that reaches zero, does so holding `lock` and returns true with it held.
// Three scheduling points, as lib/dec_and_lock.c: atomic_add_unless(v, -1, 1), then
// spin_lock, then atomic_dec_and_test (spin_unlock after it if the count did not reach zero).
bool atomic_dec_and_lock(atomic_t* v, spinlock_t* lock, LOCKCHECK_LOC);

#undef LOCKCHECK_LOC

} // namespace lockcheck::detail
