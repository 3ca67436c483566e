// refcount_t: a reference count that refuses to wrap (include/linux/refcount.h, lib/refcount.c).
// Every operation is one scheduling point, as atomic_t's. What the kernel WARNs about and
// saturates the count on (an addition on 0, an underflow, an overflow, refcount_dec() dropping
// the last reference) is a `refcount` violation.
#pragma once

#include <climits>

#include "task.hpp"

namespace lockcheck::detail {

struct mutex;
struct spinlock_t;

// Where a WARN leaves the count: far from 0 and from wrapping, so it never reaches either.
inline constexpr int REFCOUNT_SATURATED = INT_MIN / 2;

struct refcount_t final : Object {
    // REFCOUNT_INIT(n).
    explicit refcount_t(std::string name, int n = 0) : Object(std::move(name)), refs(n) {}
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override { h.add(static_cast<std::uint64_t>(refs)); }
    // The count, without a scheduling point: for invariants and final checks only (a report of
    // their failure shows what they read).
    int peek() const {
        Execution::peeked(*this);
        return refs;
    }

    int refs;
};

void refcount_set(refcount_t* r, int n, std::source_location loc = std::source_location::current());
unsigned int refcount_read(const refcount_t* r,
                           std::source_location loc = std::source_location::current());
// Takes a reference; the caller must hold one already. At 0 the object may be freed:
// "refcount_t: addition on 0; use-after-free."
void refcount_inc(refcount_t* r, std::source_location loc = std::source_location::current());
void refcount_add(int i, refcount_t* r, std::source_location loc = std::source_location::current());
// Takes a reference unless the count is 0 (the object is on its way to be freed): a lookup's
// get. True if it took one.
bool refcount_inc_not_zero(refcount_t* r,
                           std::source_location loc = std::source_location::current());
bool refcount_add_not_zero(int i, refcount_t* r,
                           std::source_location loc = std::source_location::current());
// Drops a reference that must not be the last: "refcount_t: decrement hit 0; leaking memory."
void refcount_dec(refcount_t* r, std::source_location loc = std::source_location::current());
// Drops a reference; true if it was the last (the caller frees the object). Below 0:
// "refcount_t: underflow; use-after-free."
bool refcount_dec_and_test(refcount_t* r,
                           std::source_location loc = std::source_location::current());
bool refcount_sub_and_test(int i, refcount_t* r,
                           std::source_location loc = std::source_location::current());
// Drops a reference unless it is the last; true if it dropped one.
bool refcount_dec_not_one(refcount_t* r,
                          std::source_location loc = std::source_location::current());
// Drops a reference; if it was the last, does so holding `lock` and returns true with it
// held. Three scheduling points, as lib/refcount.c: refcount_dec_not_one, then spin_lock, then
// refcount_dec_and_test (spin_unlock after it if another reference was taken meanwhile).
bool refcount_dec_and_lock(refcount_t* r, spinlock_t* lock,
                           std::source_location loc = std::source_location::current());
// The same with a mutex (mutex_lock, mutex_unlock).
bool refcount_dec_and_mutex_lock(refcount_t* r, struct mutex* lock,
                                 std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
