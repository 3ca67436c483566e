// atomic_t: an int whose every operation is one indivisible scheduling point. Orderings are
// Documentation/atomic_t.txt's: atomic_read/atomic_set and the RMWs that return nothing
// (atomic_inc, atomic_add, ...) are unordered; the value-returning RMWs are fully ordered,
// with _relaxed, _acquire and _release variants; a conditional RMW that fails is unordered.
// Under --memory-model sc every operation is sequentially consistent anyway; under lkmm the
// orderings decide what other tasks may see (weak_memory.hpp).
#pragma once

#include "task.hpp"

namespace lockcheck::detail {

struct spinlock_t;

struct atomic_t final : Object {
    explicit atomic_t(std::string name, int i = 0) : Object(std::move(name)), counter(i) {}
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override { h.add(static_cast<std::uint64_t>(counter)); }
    // The value, without a scheduling point: for invariants and final checks only (a report of
    // their failure shows what they read). Under lkmm, the coherence-last value.
    int peek() const {
        Execution::peeked(*this);
        return counter;
    }

    int counter;
};

#define LOCKCHECK_LOC std::source_location loc = std::source_location::current()

int atomic_read(const atomic_t* v, LOCKCHECK_LOC);
int atomic_read_acquire(const atomic_t* v, LOCKCHECK_LOC);
void atomic_set(atomic_t* v, int i, LOCKCHECK_LOC);
void atomic_set_release(atomic_t* v, int i, LOCKCHECK_LOC);
// Unordered, returning nothing.
void atomic_inc(atomic_t* v, LOCKCHECK_LOC);
void atomic_dec(atomic_t* v, LOCKCHECK_LOC);
void atomic_add(int i, atomic_t* v, LOCKCHECK_LOC);
void atomic_sub(int i, atomic_t* v, LOCKCHECK_LOC);

// The value-returning operations, fully ordered without a suffix; the new value for _return,
// the old one for _fetch_ and xchg, the value found for cmpxchg (it stores `new_` if that
// is `old`). try_cmpxchg returns whether it stored, and else leaves the value found in *old.
#define LOCKCHECK_ATOMIC_RETURNING(suffix)                                                         \
    int atomic_add_return##suffix(int i, atomic_t* v, LOCKCHECK_LOC);                              \
    int atomic_sub_return##suffix(int i, atomic_t* v, LOCKCHECK_LOC);                              \
    int atomic_inc_return##suffix(atomic_t* v, LOCKCHECK_LOC);                                     \
    int atomic_dec_return##suffix(atomic_t* v, LOCKCHECK_LOC);                                     \
    int atomic_fetch_add##suffix(int i, atomic_t* v, LOCKCHECK_LOC);                               \
    int atomic_fetch_sub##suffix(int i, atomic_t* v, LOCKCHECK_LOC);                               \
    int atomic_fetch_inc##suffix(atomic_t* v, LOCKCHECK_LOC);                                      \
    int atomic_fetch_dec##suffix(atomic_t* v, LOCKCHECK_LOC);                                      \
    int atomic_xchg##suffix(atomic_t* v, int new_, LOCKCHECK_LOC);                                 \
    int atomic_cmpxchg##suffix(atomic_t* v, int old, int new_, LOCKCHECK_LOC);                     \
    bool atomic_try_cmpxchg##suffix(atomic_t* v, int* old, int new_, LOCKCHECK_LOC);
LOCKCHECK_ATOMIC_RETURNING()
LOCKCHECK_ATOMIC_RETURNING(_relaxed)
LOCKCHECK_ATOMIC_RETURNING(_acquire)
LOCKCHECK_ATOMIC_RETURNING(_release)
#undef LOCKCHECK_ATOMIC_RETURNING

// Fully ordered, true if the result is zero.
bool atomic_dec_and_test(atomic_t* v, LOCKCHECK_LOC);
bool atomic_inc_and_test(atomic_t* v, LOCKCHECK_LOC);
bool atomic_sub_and_test(int i, atomic_t* v, LOCKCHECK_LOC);
// Adds `a` unless the value is `u`; true if it added (fully ordered then, unordered if not).
bool atomic_add_unless(atomic_t* v, int a, int u, LOCKCHECK_LOC);
// Increments unless the value is zero; true if it did (a lookup's get of a live object).
bool atomic_inc_not_zero(atomic_t* v, LOCKCHECK_LOC);
// Decrements; if that reaches zero, does so holding `lock` and returns true with it held.
// Three scheduling points, as lib/dec_and_lock.c: atomic_add_unless(v, -1, 1), then
// spin_lock, then atomic_dec_and_test (spin_unlock after it if the count did not reach zero).
bool atomic_dec_and_lock(atomic_t* v, spinlock_t* lock, LOCKCHECK_LOC);

#undef LOCKCHECK_LOC

} // namespace lockcheck::detail
