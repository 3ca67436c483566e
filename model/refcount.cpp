// refcount_t operations after include/linux/refcount.h and lib/refcount.c: each one scheduling
// point that notes the count it left. A WARN saturates the count and fails the execution.
#include "refcount_ops.hpp"

#include <cstdint>

#include "dec_and_lock.hpp"
#include "mutex.hpp"
#include "spinlock.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

OpArgs amount(int i, bool show) {
    return show ? OpArgs{{i, 0}, 1} : OpArgs{};
}

// The kernel's test on the value an addition or subtraction left, computed there with
// wrapping arithmetic: negative (saturated before, or wrapped past INT_MAX).
bool out_of_range(int old, std::int64_t result) {
    return old < 0 || result < 0 || result > INT_MAX;
}

// The WARN: a violation naming the operation and the task.
void warn(const char* op, const refcount_t* r, const char* property, const char* what,
          std::source_location loc) {
    this_execution().fail(ViolationKind::refcount, property,
                          std::string("refcount_t: ") + what + ". " + op + "(" + r->name() +
                              ") by " + current()->name(),
                          loc);
}

// refcount_warn_saturate(): the count sticks at REFCOUNT_SATURATED, and the WARN.
void saturate(const char* op, refcount_t* r, const char* property, const char* what,
              std::source_location loc) {
    r->refs = REFCOUNT_SATURATED;
    this_execution().note(r->refs);
    warn(op, r, property, what, loc);
}

// The count's read-modify-write, after the operation's scheduling point: under lkmm it reads
// what LKMM lets it read and orders as refcount-vs-atomic.rst says of the operation. Notes and
// returns the value read; the count holds the value stored once it is coherence-last.
struct Counted {
    int old = 0;
    bool wrote = false;
};
Counted update(refcount_t* r, Update u, Ordering order) {
    Counted c;
    if (weak_memory::on()) [[unlikely]] {
        const weak_memory::RmwResult res = weak_memory::rmw(*r, r->refs, u, order);
        if (res.latest) r->refs = static_cast<int>(res.value);
        c = {static_cast<int>(res.old), res.wrote};
        this_execution().note(static_cast<int>(res.wrote ? res.value : res.old));
        return c;
    }
    c.old = r->refs;
    const std::optional<std::int64_t> stored = u.apply(c.old);
    c.wrote = stored.has_value();
    if (stored) r->refs = static_cast<int>(*stored); // wraps as the kernel's arithmetic does
    this_execution().note(r->refs);
    return c;
}

// __refcount_add(): the caller holds a reference, so the count is never 0. Unordered (case 2).
void add(const char* op, int i, refcount_t* r, bool show, std::source_location loc) {
    this_execution().visible(op, r, loc, nullptr, amount(i, show));
    const int old = update(r, Update{Update::add, i}, Ordering::relaxed).old;
    const std::int64_t sum = std::int64_t{old} + i;
    if (old == 0)
        saturate(op, r, "addition-on-0", "addition on 0; use-after-free", loc);
    else if (out_of_range(old, sum))
        saturate(op, r, "saturated", "saturated; leaking memory", loc);
}

// __refcount_add_not_zero(): the kernel's cmpxchg loop, as one step (it retries until no
// other task came in between). Unordered, with a control dependency on success (case 4).
bool add_not_zero(const char* op, int i, refcount_t* r, bool show, std::source_location loc) {
    this_execution().visible(op, r, loc, nullptr, amount(i, show));
    const Counted c = update(r, Update{Update::add_unless, i, 0}, Ordering::relaxed);
    if (!c.wrote) {
        this_execution().nothing_written();
        return observed(false);
    }
    if (out_of_range(c.old, std::int64_t{c.old} + i))
        saturate(op, r, "saturated", "saturated; leaking memory", loc);
    return observed(true);
}

// __refcount_sub_and_test(): a release, and an acquire when it drops the last reference
// (case 5).
bool sub_and_test(const char* op, int i, refcount_t* r, bool show, std::source_location loc) {
    this_execution().visible(op, r, loc, nullptr, amount(i, show));
    const int old = update(r, Update{Update::add, -i}, Ordering::release_acquire_on_zero).old;
    const std::int64_t rest = std::int64_t{old} - i;
    if (old > 0 && old == i) return observed(true);
    if (old <= 0 || rest < 0) saturate(op, r, "underflow", "underflow; use-after-free", loc);
    return observed(false);
}

// Unordered, as atomic_set() (case 1).
void set(const char* op, refcount_t* r, int n, bool show, std::source_location loc) {
    this_execution().visible(op, r, loc, nullptr, amount(n, show));
    if (!weak_memory::on() || weak_memory::store(*r, r->refs, n, Ordering::relaxed)) r->refs = n;
    this_execution().note(n);
}

} // namespace

void refcount_t::describe(std::string& out) const {
    out += "= " + std::to_string(refs);
}

void refcount_set_as(const char* op, refcount_t* r, int n, std::source_location loc) {
    set(op, r, n, false, loc);
}

// Unordered, as atomic_read() (case 1).
unsigned int refcount_read_as(const char* op, const refcount_t* r, std::source_location loc) {
    this_execution().visible_read(op, r, loc);
    int seen = r->refs;
    if (weak_memory::on()) [[unlikely]]
        seen = static_cast<int>(weak_memory::load(*r, r->refs, Ordering::relaxed));
    this_execution().note(seen);
    return observed(static_cast<unsigned int>(seen));
}

void refcount_add_as(const char* op, int i, refcount_t* r, std::source_location loc) {
    add(op, i, r, false, loc);
}

bool refcount_add_not_zero_as(const char* op, int i, refcount_t* r, std::source_location loc) {
    return add_not_zero(op, i, r, false, loc);
}

bool refcount_sub_and_test_as(const char* op, int i, refcount_t* r, std::source_location loc) {
    return sub_and_test(op, i, r, false, loc);
}

void refcount_set(refcount_t* r, int n, std::source_location loc) {
    set("refcount_set", r, n, true, loc);
}

unsigned int refcount_read(const refcount_t* r, std::source_location loc) {
    return refcount_read_as("refcount_read", r, loc);
}

void refcount_inc(refcount_t* r, std::source_location loc) {
    add("refcount_inc", 1, r, false, loc);
}

void refcount_add(int i, refcount_t* r, std::source_location loc) {
    add("refcount_add", i, r, true, loc);
}

bool refcount_inc_not_zero(refcount_t* r, std::source_location loc) {
    return add_not_zero("refcount_inc_not_zero", 1, r, false, loc);
}

bool refcount_add_not_zero(int i, refcount_t* r, std::source_location loc) {
    return add_not_zero("refcount_add_not_zero", i, r, true, loc);
}

// __refcount_dec(): the caller's reference is not the last. A release (case 3).
void refcount_dec(refcount_t* r, std::source_location loc) {
    this_execution().visible("refcount_dec", r, loc);
    const int old = update(r, Update{Update::add, -1}, Ordering::release).old;
    if (old <= 1)
        saturate("refcount_dec", r, "decrement-hit-0", "decrement hit 0; leaking memory", loc);
}

bool refcount_dec_and_test(refcount_t* r, std::source_location loc) {
    return sub_and_test("refcount_dec_and_test", 1, r, false, loc);
}

bool refcount_sub_and_test(int i, refcount_t* r, std::source_location loc) {
    return sub_and_test("refcount_sub_and_test", i, r, true, loc);
}

// lib/refcount.c's cmpxchg loop, as one step. It compares unsigned: a saturated count stays,
// and only 0 underflows (it WARNs without saturating). A release with a control dependency
// (case 6).
bool refcount_dec_not_one(refcount_t* r, std::source_location loc) {
    this_execution().visible("refcount_dec_not_one", r, loc);
    const Counted c =
        update(r, Update{Update::dec_not_one, 0, REFCOUNT_SATURATED}, Ordering::release);
    if (c.wrote) return observed(true);
    this_execution().nothing_written();
    if (c.old == 0) warn("refcount_dec_not_one", r, "underflow", "underflow; use-after-free", loc);
    return observed(c.old != 1);
}

bool refcount_dec_and_lock(refcount_t* r, spinlock_t* lock, std::source_location loc) {
    return dec_and_lock(r, lock, refcount_dec_not_one, refcount_dec_and_test, spin_lock,
                        spin_unlock, loc);
}

bool refcount_dec_and_mutex_lock(refcount_t* r, struct mutex* lock, std::source_location loc) {
    return dec_and_lock(r, lock, refcount_dec_not_one, refcount_dec_and_test, mutex_lock,
                        mutex_unlock, loc);
}

} // namespace lockcheck::detail
