// struct percpu_ref (include/linux/percpu-refcount.h, lib/percpu-refcount.c): a reference
// count that lives in per-CPU counters while it is live (a get or put touches its own CPU's
// only) and in one atomic count once percpu_ref_kill() has switched it to atomic mode; the put
// that drops the count to zero there calls the release callback. Each operation is one step on
// the ref: the kernel reads the mode and updates the counter inside an RCU read-side section,
// which the switch waits out, so no step falls between the two. The switch to atomic mode sums
// the per-CPU counters after an RCU grace period, in an RCU callback; until RCU is modelled it
// is a task of its own that the kill spawns ("rcu(ref)"), which runs the same step after any
// number of later steps of the others, and it will become an RCU callback. The kernel's WARNs
// are `refcount` violations: the count at or below zero once summed ("percpu ref (ref) <= 0
// (-1) after switching to atomic": a put too many), a second kill, a resurrection of a live
// ref, percpu_ref_exit() during a switch. An object freed in its release callback makes any
// later operation on the ref in it KASAN's use-after-free. Under lkmm each step is a fully
// ordered operation of the ref (the summary names it): the per-CPU operations themselves are
// unordered in the kernel, ordered by the grace period and the atomic count's fully ordered
// put.
#pragma once

#include <vector>

#include "task.hpp"

namespace lockcheck::detail {

struct percpu_ref;
using percpu_ref_func_t = void(struct percpu_ref* ref);

enum : unsigned {
    PERCPU_REF_INIT_ATOMIC = 1 << 0,  // start in atomic mode (and may switch to percpu later)
    PERCPU_REF_INIT_DEAD = 1 << 1,    // start dead, count 0: percpu_ref_reinit() makes it live
    PERCPU_REF_ALLOW_REINIT = 1 << 2, // keep the per-CPU counters once killed, for a reinit
};

struct percpu_ref final : Object {
    explicit percpu_ref(std::string name) : Object(std::move(name)) {}
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override;

    // percpu_count_ptr's flags (__PERCPU_REF_ATOMIC, __PERCPU_REF_DEAD) and its counters, which
    // exist from init until exit, or until a switch to atomic without ALLOW_REINIT.
    bool atomic = true;
    bool dead = true;
    std::vector<long> percpu_count;
    // ref->data: absent before init and after exit; `count` keeps the atomic count, biased by
    // PERCPU_COUNT_BIAS while the ref is in percpu mode so that it cannot reach zero there.
    bool data = false;
    long count = 0;
    percpu_ref_func_t* release = nullptr;
    percpu_ref_func_t* confirm_switch = nullptr;
    bool switching = false; // a switch to atomic waits for its grace period
    bool force_atomic = false;
    bool allow_reinit = false;
};

#define LOCKCHECK_LOC std::source_location loc = std::source_location::current()

// Live in percpu mode with one reference (the initial one, that percpu_ref_kill() drops),
// or as `flags` say. A step from a task, none at set-up. Returns 0; `gfp` is ignored.
int percpu_ref_init(struct percpu_ref* ref, percpu_ref_func_t* release, unsigned flags,
                    unsigned gfp, LOCKCHECK_LOC);
// Takes a reference; the caller must hold one.
void percpu_ref_get(struct percpu_ref* ref, LOCKCHECK_LOC);
// Takes a reference unless the count is zero (in atomic mode); true if it took one.
bool percpu_ref_tryget(struct percpu_ref* ref, LOCKCHECK_LOC);
// Takes a reference unless the ref has been killed; true if it took one.
bool percpu_ref_tryget_live(struct percpu_ref* ref, LOCKCHECK_LOC);
// Drops a reference; in atomic mode the last one calls release(ref).
void percpu_ref_put(struct percpu_ref* ref, LOCKCHECK_LOC);
// Marks the ref dead (tryget_live fails from here), switches it to atomic mode (confirm_kill
// is called once every CPU sees it dead: after the switch's grace period) and drops the
// initial reference.
void percpu_ref_kill_and_confirm(struct percpu_ref* ref, percpu_ref_func_t* confirm_kill,
                                 LOCKCHECK_LOC);
void percpu_ref_kill(struct percpu_ref* ref, LOCKCHECK_LOC);
// Frees the per-CPU counters and the data; the ref must not be used again until init.
void percpu_ref_exit(struct percpu_ref* ref, LOCKCHECK_LOC);
// True once the ref is in atomic mode with a count of zero.
bool percpu_ref_is_zero(struct percpu_ref* ref, LOCKCHECK_LOC);
// A killed ref made live again with one more reference (in percpu mode unless it was
// initialised atomic); percpu_ref_reinit() does so for one whose count is zero.
void percpu_ref_resurrect(struct percpu_ref* ref, LOCKCHECK_LOC);
void percpu_ref_reinit(struct percpu_ref* ref, LOCKCHECK_LOC);

#undef LOCKCHECK_LOC

} // namespace lockcheck::detail
