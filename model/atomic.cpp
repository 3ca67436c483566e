// atomic_t operations: each a scheduling point that notes the value it read or produced.
#include "atomic.hpp"

#include "dec_and_lock.hpp"
#include "spinlock.hpp"

namespace lockcheck {

namespace {
// Every read-modify-write has this shape: one scheduling point, then the update.
int rmw(const char* op, atomic_t* v, int delta, bool show_delta) {
    this_execution().visible(op, v, nullptr, show_delta ? OpArgs{{delta, 0}, 1} : OpArgs{});
    v->counter += delta;
    this_execution().note(v->counter);
    return v->counter;
}
} // namespace

void atomic_t::describe(std::string& out) const {
    out += "= " + std::to_string(counter);
}

int atomic_read(const atomic_t* v) {
    this_execution().visible_read("atomic_read", v);
    this_execution().note(v->counter);
    return v->counter;
}

void atomic_set(atomic_t* v, int i) {
    this_execution().visible("atomic_set", v, nullptr, OpArgs{{i, 0}, 1});
    v->counter = i;
    this_execution().note(i);
}

void atomic_inc(atomic_t* v) {
    rmw("atomic_inc", v, 1, false);
}
void atomic_dec(atomic_t* v) {
    rmw("atomic_dec", v, -1, false);
}
void atomic_add(int i, atomic_t* v) {
    rmw("atomic_add", v, i, true);
}
void atomic_sub(int i, atomic_t* v) {
    rmw("atomic_sub", v, -i, true);
}
int atomic_add_return(int i, atomic_t* v) {
    return rmw("atomic_add_return", v, i, true);
}
int atomic_inc_return(atomic_t* v) {
    return rmw("atomic_inc_return", v, 1, false);
}
bool atomic_dec_and_test(atomic_t* v) {
    return rmw("atomic_dec_and_test", v, -1, false) == 0;
}

int atomic_cmpxchg(atomic_t* v, int old, int new_) {
    this_execution().visible("atomic_cmpxchg", v);
    int found = v->counter;
    if (found == old) v->counter = new_;
    this_execution().note(found);
    return found;
}

namespace {
// The kernel's cmpxchg loop, as one step: it retries until no other task came in between.
bool add_unless(const char* op, atomic_t* v, int a, int u, bool show_args) {
    this_execution().visible(op, v, nullptr, show_args ? OpArgs{{a, u}, 2} : OpArgs{});
    const bool adds = v->counter != u;
    if (adds)
        v->counter += a;
    else
        this_execution().nothing_written();
    this_execution().note(v->counter);
    return adds;
}
} // namespace

bool atomic_add_unless(atomic_t* v, int a, int u) {
    return add_unless("atomic_add_unless", v, a, u, true);
}

bool atomic_inc_not_zero(atomic_t* v) {
    return add_unless("atomic_inc_not_zero", v, 1, 0, false);
}

bool atomic_dec_and_lock(atomic_t* v, spinlock_t* lock) {
    return dec_and_lock<atomic_t, spinlock_t>(
        v, lock, [](atomic_t* a) { return atomic_add_unless(a, -1, 1); }, atomic_dec_and_test,
        spin_lock, spin_unlock);
}

} // namespace lockcheck
