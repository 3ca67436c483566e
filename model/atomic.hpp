// atomic_t: an int whose every operation is one indivisible scheduling point. The model is
// sequentially consistent: the ordering the kernel gets from barriers is assumed, not checked.
#pragma once

#include "task.hpp"

namespace lockcheck {

struct spinlock_t;

struct atomic_t final : Object {
    explicit atomic_t(std::string name, int i = 0) : Object(std::move(name)), counter(i) {}
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override { h.add(static_cast<std::uint64_t>(counter)); }
    // The value, without a scheduling point: for invariants and final checks only (a report of
    // their failure shows what they read).
    int peek() const {
        Execution::peeked(*this);
        return counter;
    }

    int counter;
};

int atomic_read(const atomic_t* v, std::source_location loc = std::source_location::current());
void atomic_set(atomic_t* v, int i, std::source_location loc = std::source_location::current());
void atomic_inc(atomic_t* v, std::source_location loc = std::source_location::current());
void atomic_dec(atomic_t* v, std::source_location loc = std::source_location::current());
void atomic_add(int i, atomic_t* v, std::source_location loc = std::source_location::current());
void atomic_sub(int i, atomic_t* v, std::source_location loc = std::source_location::current());
int atomic_add_return(int i, atomic_t* v,
                      std::source_location loc = std::source_location::current());
int atomic_inc_return(atomic_t* v, std::source_location loc = std::source_location::current());
// True if the result is zero.
bool atomic_dec_and_test(atomic_t* v, std::source_location loc = std::source_location::current());
// Stores `new_` if the value is `old`; returns the value found.
int atomic_cmpxchg(atomic_t* v, int old, int new_,
                   std::source_location loc = std::source_location::current());
// Adds `a` unless the value is `u`; true if it added.
bool atomic_add_unless(atomic_t* v, int a, int u,
                       std::source_location loc = std::source_location::current());
// Increments unless the value is zero; true if it did (a lookup's get of a live object).
bool atomic_inc_not_zero(atomic_t* v, std::source_location loc = std::source_location::current());
// Decrements; if that reaches zero, does so holding `lock` and returns true with it held.
// Three scheduling points, as lib/dec_and_lock.c: atomic_add_unless(v, -1, 1), then
// spin_lock, then atomic_dec_and_test (spin_unlock after it if the count did not reach zero).
bool atomic_dec_and_lock(atomic_t* v, spinlock_t* lock,
                         std::source_location loc = std::source_location::current());

} // namespace lockcheck
