// atomic_t, atomic64_t and atomic_long_t operations: each a scheduling point that notes the
// value it read or produced. One template per shape of operation; the kernel's names for each
// type are generated from them below.
#include "atomic.hpp"

#include "dec_and_lock.hpp"
#include "spinlock.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

template <class Int> struct Done {
    Int old = 0;        // the value read
    bool wrote = false; // whether the update stored one
    Int now = 0;        // the value stored, or read when nothing was
};

// Every read-modify-write has this shape: one scheduling point, then the update, which under
// lkmm reads what LKMM lets it read. One that stores nothing (a failed cmpxchg) wrote nothing:
// a loop retrying it changes nothing (Execution::turn_changed(), watch_repeats()).
template <class Int>
Done<Int> update(const char* op, atomic_counter<Int>* v, Update u, Ordering order, OpArgs args,
                 std::source_location loc) {
    Execution& ex = this_execution();
    ex.visible(op, v, loc, nullptr, args);
    Done<Int> d;
    if (weak_memory::on()) [[unlikely]] {
        const weak_memory::RmwResult r = weak_memory::rmw(*v, v->counter, u, order);
        if (r.latest) v->counter = static_cast<Int>(r.value);
        d = {static_cast<Int>(r.old), r.wrote, static_cast<Int>(r.wrote ? r.value : r.old)};
    } else {
        const Int old = v->counter;
        const std::optional<std::int64_t> stored = u.apply(old);
        if (stored) v->counter = static_cast<Int>(*stored);
        d = {old, stored.has_value(), stored ? static_cast<Int>(*stored) : old};
    }
    if (!d.wrote) ex.nothing_written();
    return d;
}

template <class Int> OpArgs shown(Int i, bool show) {
    return show ? OpArgs{{static_cast<std::int64_t>(i), 0}, 1} : OpArgs{};
}

// An arithmetic RMW: notes and returns the new value.
template <class Int>
Int arith(const char* op, atomic_counter<Int>* v, Int delta, Ordering order, bool show_delta,
          std::source_location loc) {
    const Done<Int> d =
        update(op, v, Update{Update::add, delta}, order, shown(delta, show_delta), loc);
    this_execution().note(d.now);
    return d.now;
}

template <class Int>
Int fetch(const char* op, atomic_counter<Int>* v, Int delta, Ordering order, bool show_delta,
          std::source_location loc) {
    return arith(op, v, delta, order, show_delta, loc) - delta;
}

template <class Int>
Int exchange(const char* op, atomic_counter<Int>* v, Update u, Ordering order, OpArgs args,
             std::source_location loc) {
    const Done<Int> d = update(op, v, u, order, args, loc);
    this_execution().note(d.old);
    return d.old;
}

template <class Int>
Int read(const char* op, const atomic_counter<Int>* v, Ordering order, std::source_location loc) {
    this_execution().visible_read(op, v, loc);
    Int value = v->counter;
    if (weak_memory::on()) [[unlikely]]
        value = static_cast<Int>(weak_memory::load(*v, v->counter, order));
    this_execution().note(value);
    return observed(value);
}

template <class Int>
void set(const char* op, atomic_counter<Int>* v, Int i, Ordering order, std::source_location loc) {
    this_execution().visible(op, v, loc, nullptr, OpArgs{{i, 0}, 1, true});
    if (!weak_memory::on() || weak_memory::store(*v, v->counter, i, order)) v->counter = i;
    this_execution().note(i);
}

// The kernel's cmpxchg loop, as one step: it retries until no other task came in between.
template <class Int>
bool add_unless(const char* op, atomic_counter<Int>* v, Int a, Int u, bool show_args,
                std::source_location loc) {
    const Done<Int> d = update(op, v, Update{Update::add_unless, a, u}, Ordering::full,
                               show_args ? OpArgs{{a, u}, 2, true} : OpArgs{}, loc);
    this_execution().note(d.now);
    return observed(d.wrote);
}

template <class Int>
bool try_cmpxchg(const char* op, atomic_counter<Int>* v, Int* old, Int new_, Ordering order,
                 std::source_location loc) {
    const Int found = exchange(op, v, Update{Update::cmpxchg, *old, new_}, order, OpArgs{}, loc);
    const bool stored = found == *old;
    *old = found;
    return observed(stored);
}

} // namespace

// Each returning operation, once per ordering: the kernel generates its variants the same way.
#define LOCKCHECK_ATOMIC_RETURNING(prefix, type, Int, suffix, order)                               \
    Int prefix##_add_return##suffix(Int i, type* v, std::source_location loc) {                    \
        return observed(arith(#prefix "_add_return" #suffix, v, i, order, true, loc));             \
    }                                                                                              \
    Int prefix##_sub_return##suffix(Int i, type* v, std::source_location loc) {                    \
        return observed(arith(#prefix "_sub_return" #suffix, v, Int(-i), order, true, loc));       \
    }                                                                                              \
    Int prefix##_inc_return##suffix(type* v, std::source_location loc) {                           \
        return observed(arith(#prefix "_inc_return" #suffix, v, Int(1), order, false, loc));       \
    }                                                                                              \
    Int prefix##_dec_return##suffix(type* v, std::source_location loc) {                           \
        return observed(arith(#prefix "_dec_return" #suffix, v, Int(-1), order, false, loc));      \
    }                                                                                              \
    Int prefix##_fetch_add##suffix(Int i, type* v, std::source_location loc) {                     \
        return observed(fetch(#prefix "_fetch_add" #suffix, v, i, order, true, loc));              \
    }                                                                                              \
    Int prefix##_fetch_sub##suffix(Int i, type* v, std::source_location loc) {                     \
        return observed(fetch(#prefix "_fetch_sub" #suffix, v, Int(-i), order, true, loc));        \
    }                                                                                              \
    Int prefix##_fetch_inc##suffix(type* v, std::source_location loc) {                            \
        return observed(fetch(#prefix "_fetch_inc" #suffix, v, Int(1), order, false, loc));        \
    }                                                                                              \
    Int prefix##_fetch_dec##suffix(type* v, std::source_location loc) {                            \
        return observed(fetch(#prefix "_fetch_dec" #suffix, v, Int(-1), order, false, loc));       \
    }                                                                                              \
    Int prefix##_xchg##suffix(type* v, Int new_, std::source_location loc) {                       \
        return observed(exchange(#prefix "_xchg" #suffix, v, Update{Update::exchange, new_},       \
                                 order, OpArgs{{new_, 0}, 1, true}, loc));                         \
    }                                                                                              \
    Int prefix##_cmpxchg##suffix(type* v, Int old, Int new_, std::source_location loc) {           \
        return observed(exchange(#prefix "_cmpxchg" #suffix, v,                                    \
                                 Update{Update::cmpxchg, old, new_}, order, OpArgs{}, loc));       \
    }                                                                                              \
    bool prefix##_try_cmpxchg##suffix(type* v, Int* old, Int new_, std::source_location loc) {     \
        return try_cmpxchg(#prefix "_try_cmpxchg" #suffix, v, old, new_, order, loc);              \
    }
#define LOCKCHECK_ATOMIC_FAMILY(prefix, type, Int)                                                 \
    Int prefix##_read(const type* v, std::source_location loc) {                                   \
        return read(#prefix "_read", v, Ordering::relaxed, loc);                                   \
    }                                                                                              \
    Int prefix##_read_acquire(const type* v, std::source_location loc) {                           \
        return read(#prefix "_read_acquire", v, Ordering::acquire, loc);                           \
    }                                                                                              \
    void prefix##_set(type* v, Int i, std::source_location loc) {                                  \
        set(#prefix "_set", v, i, Ordering::relaxed, loc);                                         \
    }                                                                                              \
    void prefix##_set_release(type* v, Int i, std::source_location loc) {                          \
        set(#prefix "_set_release", v, i, Ordering::release, loc);                                 \
    }                                                                                              \
    void prefix##_inc(type* v, std::source_location loc) {                                         \
        arith(#prefix "_inc", v, Int(1), Ordering::noreturn, false, loc);                          \
    }                                                                                              \
    void prefix##_dec(type* v, std::source_location loc) {                                         \
        arith(#prefix "_dec", v, Int(-1), Ordering::noreturn, false, loc);                         \
    }                                                                                              \
    void prefix##_add(Int i, type* v, std::source_location loc) {                                  \
        arith(#prefix "_add", v, i, Ordering::noreturn, true, loc);                                \
    }                                                                                              \
    void prefix##_sub(Int i, type* v, std::source_location loc) {                                  \
        arith(#prefix "_sub", v, Int(-i), Ordering::noreturn, true, loc);                          \
    }                                                                                              \
    LOCKCHECK_ATOMIC_RETURNING(prefix, type, Int, , Ordering::full)                                \
    LOCKCHECK_ATOMIC_RETURNING(prefix, type, Int, _relaxed, Ordering::relaxed)                     \
    LOCKCHECK_ATOMIC_RETURNING(prefix, type, Int, _acquire, Ordering::acquire)                     \
    LOCKCHECK_ATOMIC_RETURNING(prefix, type, Int, _release, Ordering::release)                     \
    bool prefix##_dec_and_test(type* v, std::source_location loc) {                                \
        return observed(arith(#prefix "_dec_and_test", v, Int(-1), Ordering::full, false, loc) ==  \
                        0);                                                                        \
    }                                                                                              \
    bool prefix##_inc_and_test(type* v, std::source_location loc) {                                \
        return observed(arith(#prefix "_inc_and_test", v, Int(1), Ordering::full, false, loc) ==   \
                        0);                                                                        \
    }                                                                                              \
    bool prefix##_sub_and_test(Int i, type* v, std::source_location loc) {                         \
        return observed(arith(#prefix "_sub_and_test", v, Int(-i), Ordering::full, true, loc) ==   \
                        0);                                                                        \
    }                                                                                              \
    bool prefix##_add_unless(type* v, Int a, Int u, std::source_location loc) {                    \
        return add_unless(#prefix "_add_unless", v, a, u, true, loc);                              \
    }                                                                                              \
    bool prefix##_inc_not_zero(type* v, std::source_location loc) {                                \
        return add_unless(#prefix "_inc_not_zero", v, Int(1), Int(0), false, loc);                 \
    }
LOCKCHECK_ATOMIC_FAMILY(atomic, atomic_t, int)
LOCKCHECK_ATOMIC_FAMILY(atomic64, atomic64_t, s64)
LOCKCHECK_ATOMIC_FAMILY(atomic_long, atomic_long_t, long)
#undef LOCKCHECK_ATOMIC_FAMILY
#undef LOCKCHECK_ATOMIC_RETURNING

bool atomic_dec_and_lock(atomic_t* v, spinlock_t* lock, std::source_location loc) {
    return dec_and_lock(
        v, lock,
        [](atomic_t* a, std::source_location at) { return atomic_add_unless(a, -1, 1, at); },
        atomic_dec_and_test, spin_lock, spin_unlock, loc);
}

} // namespace lockcheck::detail
