// atomic_t operations: each a scheduling point that notes the value it read or produced.
#include "atomic.hpp"

#include "dec_and_lock.hpp"
#include "spinlock.hpp"

namespace lockcheck {

namespace {
// Every read-modify-write has this shape: one scheduling point, then the update.
int rmw(const char* op, atomic_t* v, int delta, bool show_delta, std::source_location loc) {
    this_execution().visible(op, v, loc, nullptr, show_delta ? OpArgs{{delta, 0}, 1} : OpArgs{});
    v->counter += delta;
    this_execution().note(v->counter);
    return v->counter;
}
} // namespace

void atomic_t::describe(std::string& out) const {
    out += "= " + std::to_string(counter);
}

int atomic_read(const atomic_t* v, std::source_location loc) {
    this_execution().visible_read("atomic_read", v, loc);
    this_execution().note(v->counter);
    return observed(v->counter);
}

void atomic_set(atomic_t* v, int i, std::source_location loc) {
    this_execution().visible("atomic_set", v, loc, nullptr, OpArgs{{i, 0}, 1});
    v->counter = i;
    this_execution().note(i);
}

void atomic_inc(atomic_t* v, std::source_location loc) {
    rmw("atomic_inc", v, 1, false, loc);
}
void atomic_dec(atomic_t* v, std::source_location loc) {
    rmw("atomic_dec", v, -1, false, loc);
}
void atomic_add(int i, atomic_t* v, std::source_location loc) {
    rmw("atomic_add", v, i, true, loc);
}
void atomic_sub(int i, atomic_t* v, std::source_location loc) {
    rmw("atomic_sub", v, -i, true, loc);
}
int atomic_add_return(int i, atomic_t* v, std::source_location loc) {
    return observed(rmw("atomic_add_return", v, i, true, loc));
}
int atomic_inc_return(atomic_t* v, std::source_location loc) {
    return observed(rmw("atomic_inc_return", v, 1, false, loc));
}
bool atomic_dec_and_test(atomic_t* v, std::source_location loc) {
    return observed(rmw("atomic_dec_and_test", v, -1, false, loc) == 0);
}

int atomic_cmpxchg(atomic_t* v, int old, int new_, std::source_location loc) {
    this_execution().visible("atomic_cmpxchg", v, loc);
    int found = v->counter;
    if (found == old) v->counter = new_;
    this_execution().note(found);
    return observed(found);
}

namespace {
// The kernel's cmpxchg loop, as one step: it retries until no other task came in between.
bool add_unless(const char* op, atomic_t* v, int a, int u, bool show_args,
                std::source_location loc) {
    this_execution().visible(op, v, loc, nullptr, show_args ? OpArgs{{a, u}, 2} : OpArgs{});
    const bool adds = v->counter != u;
    if (adds)
        v->counter += a;
    else
        this_execution().nothing_written();
    this_execution().note(v->counter);
    return observed(adds);
}
} // namespace

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

} // namespace lockcheck
