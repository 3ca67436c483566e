// atomic_t operations: each a scheduling point that notes the value it read or produced.
#include "atomic.hpp"

#include "dec_and_lock.hpp"
#include "spinlock.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

struct Done {
    int old = 0;        // the value read
    bool wrote = false; // whether the update stored one
    int now = 0;        // the value stored, or read when nothing was
};

// Every read-modify-write has this shape: one scheduling point, then the update, which under
// lkmm reads what LKMM lets it read. One that stores nothing (a failed cmpxchg) wrote nothing:
// a loop retrying it changes nothing (Execution::turn_changed(), watch_repeats()).
Done update(const char* op, atomic_t* v, Update u, Ordering order, OpArgs args,
            std::source_location loc) {
    Execution& ex = this_execution();
    ex.visible(op, v, loc, nullptr, args);
    Done d;
    if (weak_memory::on()) [[unlikely]] {
        const weak_memory::RmwResult r = weak_memory::rmw(*v, v->counter, u, order);
        if (r.latest) v->counter = static_cast<int>(r.value);
        d = {static_cast<int>(r.old), r.wrote, static_cast<int>(r.wrote ? r.value : r.old)};
    } else {
        const int old = v->counter;
        const std::optional<std::int64_t> stored = u.apply(old);
        if (stored) v->counter = static_cast<int>(*stored);
        d = {old, stored.has_value(), stored ? static_cast<int>(*stored) : old};
    }
    if (!d.wrote) ex.nothing_written();
    return d;
}

// An arithmetic RMW: notes and returns the new value.
int arith(const char* op, atomic_t* v, int delta, Ordering order, bool show_delta,
          std::source_location loc) {
    const Done d = update(op, v, Update{Update::add, delta}, order,
                          show_delta ? OpArgs{{delta, 0}, 1} : OpArgs{}, loc);
    this_execution().note(d.now);
    return d.now;
}

int fetch(const char* op, atomic_t* v, int delta, Ordering order, bool show_delta,
          std::source_location loc) {
    return arith(op, v, delta, order, show_delta, loc) - delta;
}

int exchange(const char* op, atomic_t* v, Update u, Ordering order, OpArgs args,
             std::source_location loc) {
    const Done d = update(op, v, u, order, args, loc);
    this_execution().note(d.old);
    return d.old;
}

int read(const char* op, const atomic_t* v, Ordering order, std::source_location loc) {
    this_execution().visible_read(op, v, loc);
    int value = v->counter;
    if (weak_memory::on()) [[unlikely]]
        value = static_cast<int>(weak_memory::load(*v, v->counter, order));
    this_execution().note(value);
    return observed(value);
}

void set(const char* op, atomic_t* v, int i, Ordering order, std::source_location loc) {
    this_execution().visible(op, v, loc, nullptr, OpArgs{{i, 0}, 1, true});
    if (!weak_memory::on() || weak_memory::store(*v, v->counter, i, order)) v->counter = i;
    this_execution().note(i);
}

// The kernel's cmpxchg loop, as one step: it retries until no other task came in between.
bool add_unless(const char* op, atomic_t* v, int a, int u, bool show_args,
                std::source_location loc) {
    const Done d = update(op, v, Update{Update::add_unless, a, u}, Ordering::full,
                          show_args ? OpArgs{{a, u}, 2, true} : OpArgs{}, loc);
    this_execution().note(d.now);
    return observed(d.wrote);
}

} // namespace

void atomic_t::describe(std::string& out) const {
    out += "= " + std::to_string(counter);
}

int atomic_read(const atomic_t* v, std::source_location loc) {
    return read("atomic_read", v, Ordering::relaxed, loc);
}
int atomic_read_acquire(const atomic_t* v, std::source_location loc) {
    return read("atomic_read_acquire", v, Ordering::acquire, loc);
}
void atomic_set(atomic_t* v, int i, std::source_location loc) {
    set("atomic_set", v, i, Ordering::relaxed, loc);
}
void atomic_set_release(atomic_t* v, int i, std::source_location loc) {
    set("atomic_set_release", v, i, Ordering::release, loc);
}

void atomic_inc(atomic_t* v, std::source_location loc) {
    arith("atomic_inc", v, 1, Ordering::noreturn, false, loc);
}
void atomic_dec(atomic_t* v, std::source_location loc) {
    arith("atomic_dec", v, -1, Ordering::noreturn, false, loc);
}
void atomic_add(int i, atomic_t* v, std::source_location loc) {
    arith("atomic_add", v, i, Ordering::noreturn, true, loc);
}
void atomic_sub(int i, atomic_t* v, std::source_location loc) {
    arith("atomic_sub", v, -i, Ordering::noreturn, true, loc);
}

// Each returning operation, once per ordering: the kernel generates its variants the same way
// (scripts/atomic/gen-atomics.sh).
#define LOCKCHECK_ATOMIC_RETURNING(suffix, order)                                                  \
    int atomic_add_return##suffix(int i, atomic_t* v, std::source_location loc) {                  \
        return observed(arith("atomic_add_return" #suffix, v, i, order, true, loc));               \
    }                                                                                              \
    int atomic_sub_return##suffix(int i, atomic_t* v, std::source_location loc) {                  \
        return observed(arith("atomic_sub_return" #suffix, v, -i, order, true, loc));              \
    }                                                                                              \
    int atomic_inc_return##suffix(atomic_t* v, std::source_location loc) {                         \
        return observed(arith("atomic_inc_return" #suffix, v, 1, order, false, loc));              \
    }                                                                                              \
    int atomic_dec_return##suffix(atomic_t* v, std::source_location loc) {                         \
        return observed(arith("atomic_dec_return" #suffix, v, -1, order, false, loc));             \
    }                                                                                              \
    int atomic_fetch_add##suffix(int i, atomic_t* v, std::source_location loc) {                   \
        return observed(fetch("atomic_fetch_add" #suffix, v, i, order, true, loc));                \
    }                                                                                              \
    int atomic_fetch_sub##suffix(int i, atomic_t* v, std::source_location loc) {                   \
        return observed(fetch("atomic_fetch_sub" #suffix, v, -i, order, true, loc));               \
    }                                                                                              \
    int atomic_fetch_inc##suffix(atomic_t* v, std::source_location loc) {                          \
        return observed(fetch("atomic_fetch_inc" #suffix, v, 1, order, false, loc));               \
    }                                                                                              \
    int atomic_fetch_dec##suffix(atomic_t* v, std::source_location loc) {                          \
        return observed(fetch("atomic_fetch_dec" #suffix, v, -1, order, false, loc));              \
    }                                                                                              \
    int atomic_xchg##suffix(atomic_t* v, int new_, std::source_location loc) {                     \
        return observed(exchange("atomic_xchg" #suffix, v, Update{Update::exchange, new_}, order,  \
                                 OpArgs{{new_, 0}, 1, true}, loc));                                \
    }                                                                                              \
    int atomic_cmpxchg##suffix(atomic_t* v, int old, int new_, std::source_location loc) {         \
        return observed(exchange("atomic_cmpxchg" #suffix, v, Update{Update::cmpxchg, old, new_},  \
                                 order, OpArgs{}, loc));                                           \
    }                                                                                              \
    bool atomic_try_cmpxchg##suffix(atomic_t* v, int* old, int new_, std::source_location loc) {   \
        const int found = exchange("atomic_try_cmpxchg" #suffix, v,                                \
                                   Update{Update::cmpxchg, *old, new_}, order, OpArgs{}, loc);     \
        const bool stored = found == *old;                                                         \
        *old = found;                                                                              \
        return observed(stored);                                                                   \
    }
LOCKCHECK_ATOMIC_RETURNING(, Ordering::full)
LOCKCHECK_ATOMIC_RETURNING(_relaxed, Ordering::relaxed)
LOCKCHECK_ATOMIC_RETURNING(_acquire, Ordering::acquire)
LOCKCHECK_ATOMIC_RETURNING(_release, Ordering::release)
#undef LOCKCHECK_ATOMIC_RETURNING

bool atomic_dec_and_test(atomic_t* v, std::source_location loc) {
    return observed(arith("atomic_dec_and_test", v, -1, Ordering::full, false, loc) == 0);
}
bool atomic_inc_and_test(atomic_t* v, std::source_location loc) {
    return observed(arith("atomic_inc_and_test", v, 1, Ordering::full, false, loc) == 0);
}
bool atomic_sub_and_test(int i, atomic_t* v, std::source_location loc) {
    return observed(arith("atomic_sub_and_test", v, -i, Ordering::full, true, loc) == 0);
}

bool atomic_add_unless(atomic_t* v, int a, int u, std::source_location loc) {
    return add_unless("atomic_add_unless", v, a, u, true, loc);
}

bool atomic_inc_not_zero(atomic_t* v, std::source_location loc) {
    return add_unless("atomic_inc_not_zero", v, 1, 0, false, loc);
}

bool atomic_dec_and_lock(atomic_t* v, spinlock_t* lock, std::source_location loc) {
    return dec_and_lock(
        v, lock,
        [](atomic_t* a, std::source_location at) { return atomic_add_unless(a, -1, 1, at); },
        atomic_dec_and_test, spin_lock, spin_unlock, loc);
}

} // namespace lockcheck::detail
