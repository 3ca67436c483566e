// RCU (include/linux/rcupdate.h, kernel/rcu/): read-side critical sections, grace periods and
// the callbacks that run after them, and the pointer accessors readers and updaters use. A grace
// period that starts at a step ends once every task that was inside a read-side section at that
// step has left it (its nesting back to 0); readers that enter later do not delay it.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "container_of.hpp"
#include "shared.hpp"

namespace lockcheck::detail {

// struct rcu_head: embedded in an object freed after a grace period (call_rcu()).
struct rcu_head {
    void (*func)(rcu_head*) = nullptr;
};
using rcu_callback_t = void (*)(rcu_head*);

// The read-side flavours, each with its lockdep map as the kernel has one (rcu_lock_map,
// rcu_bh_lock_map, rcu_sched_lock_map). Since the flavours were consolidated (v4.20) one grace
// period waits for readers of all three.
enum rcu_flavour : std::uint8_t { RCU_PLAIN = 0, RCU_BH = 1, RCU_SCHED = 2, RCU_FLAVOURS = 3 };

// Since the flavours were consolidated (v4.20, and "only in v5.0 and later" as call_rcu()'s
// comment in kernel/rcu/tree.c has it), "regions of code across which interrupts, preemption,
// or softirqs have been disabled also serve as RCU read-side critical sections. This includes
// hardware interrupt handlers, softirq handlers, and NMI handlers": a grace period waits for a
// task that is in one when it starts, as for one inside rcu_read_lock(). Called by every
// primitive that changes the running task's preemption count (spinlocks, rwlocks,
// preempt_disable(), local_bh_disable(), a handler's entry and exit) or its interrupts, after
// the change: the task enters or leaves such a region (under lkmm, an Rcu-lock or Rcu-unlock
// event, as if the region were an rcu_read_lock() section). No scheduling point.
void rcu_atomic_changed(task_struct* me);

// Each a scheduling point. rcu_read_lock() marks the task a reader: sleeping inside is
// reported as might_sleep() reports it (CONFIG_PREEMPT_RCU's "RCU nest depth"); the _bh form
// disables bottom halves, the _sched form preemption, as the kernel's do. Each section is on
// the task's held-lock stack as lockdep keeps it (a task that exits inside one is reported).
// An unlock without its lock is lockdep's "bad unlock balance".
void rcu_read_lock(std::source_location loc = std::source_location::current());
void rcu_read_unlock(std::source_location loc = std::source_location::current());
void rcu_read_lock_bh(std::source_location loc = std::source_location::current());
void rcu_read_unlock_bh(std::source_location loc = std::source_location::current());
void rcu_read_lock_sched(std::source_location loc = std::source_location::current());
void rcu_read_unlock_sched(std::source_location loc = std::source_location::current());

// lockdep-RCU's tests of the running task (no scheduling point): inside rcu_read_lock(); inside
// rcu_read_lock_bh() or with bottom halves or interrupts off; inside rcu_read_lock_sched() or
// not preemptible; any of them.
bool rcu_read_lock_held();
bool rcu_read_lock_bh_held();
bool rcu_read_lock_sched_held();
bool rcu_read_lock_any_held();

// Waits for a grace period: two scheduling points, the start (which readers it waits for) and
// the end (enabled once each has left its section). Inside a read-side section it could never
// end: lockdep's "Illegal synchronize_rcu() in RCU read-side critical section", a deadlock.
void synchronize_rcu(std::source_location loc = std::source_location::current());
// Queues `func(head)` to run after a grace period that starts now, in RCU_SOFTIRQ on the
// running task's CPU where the model has softirq contexts (open_softirq(), timer_setup()),
// else in a task of its own ("rcuop", as offloaded callbacks run). Callbacks queued and not yet
// run keep the execution going: they run before it ends.
void call_rcu(rcu_head* head, rcu_callback_t func,
              std::source_location loc = std::source_location::current());
// Waits until every callback queued before it has run: two scheduling points, as
// synchronize_rcu(). Reported inside a read-side section as synchronize_rcu() is.
void rcu_barrier(std::source_location loc = std::source_location::current());

// kfree(ptr) after a grace period (kfree_rcu(ptr, rhf) names the rcu_head field, here by
// member pointer: kfree_rcu(p, &item::rcu)); kfree_rcu_mightsleep(ptr) needs none.
void kfree_rcu_ptr(const void* ptr, std::source_location loc);
template <class T>
void kfree_rcu(T* ptr, rcu_head T::*, std::source_location loc = std::source_location::current()) {
    kfree_rcu_ptr(ptr, loc);
}
template <class T>
void kfree_rcu_mightsleep(T* ptr, std::source_location loc = std::source_location::current()) {
    kfree_rcu_ptr(ptr, loc);
}

// lockdep-RCU's "suspicious rcu_dereference_check() usage" for `op` of `p` unless `ok`, saying
// `where` it was called (no scheduling point: it comes before the access).
void rcu_dereference_checked(bool ok, const char* op, const char* where, const Object& p,
                             std::source_location loc);
// For KASAN's report of a use by `user` of memory kfree'd at step `freed_at`: if `user` is
// inside a read-side section it entered before, that section (the step it entered at joins
// `cited`), which the free did not wait for; else empty.
std::string rcu_unwaited_section(const Task& user, std::uint32_t freed_at,
                                 std::vector<std::uint32_t>& cited);

// rcu_dereference(p): READ_ONCE(p), inside rcu_read_lock() (else lockdep-RCU's report). Under
// lkmm its address dependency orders the accesses made through the pointer after it.
template <class T>
T rcu_dereference(const shared<T>& p, std::source_location loc = std::source_location::current()) {
    rcu_dereference_checked(rcu_read_lock_held(), "rcu_dereference", "outside rcu_read_lock()", p,
                            loc);
    return p.read_once("rcu_dereference", loc);
}
template <class T>
T rcu_dereference_bh(const shared<T>& p,
                     std::source_location loc = std::source_location::current()) {
    rcu_dereference_checked(rcu_read_lock_bh_held(), "rcu_dereference_bh",
                            "outside rcu_read_lock_bh()", p, loc);
    return p.read_once("rcu_dereference_bh", loc);
}
template <class T>
T rcu_dereference_sched(const shared<T>& p,
                        std::source_location loc = std::source_location::current()) {
    rcu_dereference_checked(rcu_read_lock_sched_held(), "rcu_dereference_sched",
                            "outside rcu_read_lock_sched()", p, loc);
    return p.read_once("rcu_dereference_sched", loc);
}
// rcu_dereference_check(p, c): as rcu_dereference(), or where `c` holds (the update side's
// lock held: lockdep_is_held(&lock)).
template <class T>
T rcu_dereference_check(const shared<T>& p, bool c,
                        std::source_location loc = std::source_location::current()) {
    rcu_dereference_checked(c || rcu_read_lock_held(), "rcu_dereference_check",
                            "outside rcu_read_lock(), its condition false", p, loc);
    return p.read_once("rcu_dereference_check", loc);
}
// rcu_dereference_protected(p, c): the update side, where the pointer cannot change: a plain
// load, checked against `c` alone.
template <class T>
T rcu_dereference_protected(const shared<T>& p, bool c,
                            std::source_location loc = std::source_location::current()) {
    rcu_dereference_checked(c, "rcu_dereference_protected", "with its condition false", p, loc);
    return p.read("rcu_dereference_protected", loc);
}
// rcu_access_pointer(p): the pointer's value, not to be dereferenced: READ_ONCE, anywhere.
template <class T>
T rcu_access_pointer(const shared<T>& p,
                     std::source_location loc = std::source_location::current()) {
    return p.read_once("rcu_access_pointer", loc);
}
// rcu_assign_pointer(p, v): smp_store_release(), so that what the updater wrote into the
// object before is seen by a reader that finds it.
template <class T, class V>
void rcu_assign_pointer(shared<T>& p, V v,
                        std::source_location loc = std::source_location::current()) {
    p.store_release(static_cast<T>(v), "rcu_assign_pointer", loc);
}
// RCU_INIT_POINTER(p, v): WRITE_ONCE(), for NULL or an object readers cannot reach yet.
template <class T, class V>
void RCU_INIT_POINTER(shared<T>& p, V v,
                      std::source_location loc = std::source_location::current()) {
    p.write_once(static_cast<T>(v), "RCU_INIT_POINTER", loc);
}

} // namespace lockcheck::detail
