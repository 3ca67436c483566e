// Lock-order checking as the kernel's lockdep does it. Every lock carries a lockdep_map
// naming its class; an acquisition adds a dependency from the held lock's class to the new
// one, and a dependency that closes a cycle is reported as a possible deadlock *at the
// acquisition*, whether or not this execution goes on to deadlock. Nesting subclasses
// (mutex_lock_nested(lock, 1)) make distinct classes, as in the kernel.
// rw_semaphore readers are non-recursive, so lockdep counts them like writers in chains.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "task.hpp"

namespace lockcheck::detail {

inline constexpr int MAX_LOCKDEP_SUBCLASSES = 8;

// The lock class a lock belongs to: by default its own name; lockdep_set_class() shares one
// class among many locks (every extent buffer of a tree level), as a static key does.
struct lockdep_map {
    explicit lockdep_map(std::string class_name) : name(std::move(class_name)) {}
    std::string name;
    // This execution's graph node for each subclass, looked up once.
    mutable std::array<int, MAX_LOCKDEP_SUBCLASSES> node{-1, -1, -1, -1, -1, -1, -1, -1};
};

void lockdep_set_class(lockdep_map* map, std::string class_name);
// Set-up: no lock-order checking in this model (the kernel's lockdep_off()).
void lockdep_off();
// Whether the model called lockdep_off() in `ex`: the checker's summary says lockdep was off.
bool lockdep_turned_off(const Execution& ex);

// What a lock's own step turns off before it takes the lock (spin_lock_irq*(), spin_lock_bh()):
// lockdep checks the acquisition with that state, as the kernel's spin_acquire() comes after
// local_irq_disable() or local_bh_disable().
enum class lockdep_irqs_off : std::uint8_t { none, hardirqs, softirqs };
// How a lock is taken, as lockdep's `read` argument says: for write (exclusive), for read
// (rwlock_t's read_lock() in task context: a writer waiting in between would block it, so
// lockdep treats it as exclusive in chains), or for recursive read (read_lock() in interrupt
// context, which qrwlock lets in beside the readers it interrupted): taking it again while
// holding it for read is no recursive locking.
enum class lockdep_read : std::uint8_t { none, nonrecursive, recursive };

// Called by every lock before it may block: records and checks the dependencies from the
// locks the current task holds, and the lock class's irq usage (taken in hardirq or softirq
// context, taken with them enabled). A trylock adds no dependency (it cannot wait, so it
// cannot deadlock). `op(lock)` at `loc`: the model's call that takes the lock; a report makes
// it the last step of the trace.
void lock_acquire(const char* op, const Object* lock, const lockdep_map* map, int subclass,
                  bool trylock, std::source_location loc,
                  lockdep_irqs_off turned_off = lockdep_irqs_off::none,
                  lockdep_read read = lockdep_read::none);
// The running task turns hardirqs (softirqs) back on with `op` at its step, holding locks:
// each held lock's class becomes irq-unsafe, as lockdep's mark_held_locks() marks them.
void lockdep_hardirqs_on(task_struct* me, const char* op, std::source_location loc);
void lockdep_softirqs_on(task_struct* me, const char* op, std::source_location loc);
// `task` took the lock it asked for last (its step is being run): the dependencies that
// request recorded (task->lockdep_asked) name this step.
void lockdep_acquired(task_struct* task);

// lockdep_maps that stand for no lock (a work item, a workqueue, a timer: what flush_work()
// and del_timer_sync() wait for), held as the kernel's lock_map_acquire() and
// lock_map_release() hold them around a work's function or a timer's callback: called right
// after the step of `op` on `obj`, which the map stands for; a report makes lock_map_acquire()
// on `obj` the trace's last step. (A map only passed through, acquired and released at once,
// is lock_acquire() before the step and lockdep_acquired() after it, as a lock's.)
void lock_map_acquire(const Object* obj, const lockdep_map* map, std::source_location loc);
void lock_map_release(const Object* obj);

// Whether the running task holds `lock`: the condition rcu_dereference_check() and
// rcu_dereference_protected() take (no scheduling point; it reads the task's own state).
bool lockdep_is_held(const Object* lock);

// lockdep's assertions (include/linux/lockdep.h), each a WARN with the kernel's text when the
// running task's state is not what it says; none is a scheduling point (each reads the task's
// own state). lockdep_assert_held(): the task holds `lock` (any lock of the model).
void lockdep_assert_held(const Object* lock,
                         std::source_location loc = std::source_location::current());
void lockdep_assert_held_once(const Object* lock,
                              std::source_location loc = std::source_location::current());
// The task holds no lock lockdep tracks.
void lockdep_assert_none_held_once(std::source_location loc = std::source_location::current());
// Hardirqs are on (off) where the task runs.
void lockdep_assert_irqs_enabled(std::source_location loc = std::source_location::current());
void lockdep_assert_irqs_disabled(std::source_location loc = std::source_location::current());
// In a softirq, or with bottom halves disabled, and not in a hardirq.
void lockdep_assert_in_softirq(std::source_location loc = std::source_location::current());
// The task may (may not) be preempted: preemption and interrupts enabled (either disabled).
void lockdep_assert_preemption_enabled(std::source_location loc = std::source_location::current());
void lockdep_assert_preemption_disabled(std::source_location loc = std::source_location::current());

// "name" or "name/subclass", as lockdep prints a class.
std::string lock_class_name(const lockdep_map* map, int subclass);

} // namespace lockcheck::detail
