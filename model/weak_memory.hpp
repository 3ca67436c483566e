// The primitives' side of --memory-model lkmm: each access a primitive makes to a location
// (a shared<T>, an atomic_t, a bitmap word, a lock) becomes an event of the execution graph
// (memory/graph.hpp), and a read may see any write LKMM lets it see (memory/lkmm.hpp): which
// one is a choice of the search, the most recent write first, so that the first execution
// of a depth-first search is the sequentially consistent one. Under sc every function here
// is left untouched: the primitives test memory_model() first.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "task.hpp"

namespace lockcheck::detail {

namespace memory {
class Catalogue;
class Evidence;
} // namespace memory

// How an access orders the task's other accesses (Documentation/atomic_t.txt's vocabulary).
enum class Ordering : std::uint8_t {
    plain,    // C's x and x = v: ordered as relaxed, and not marked, for the data-race flag
    relaxed,  // READ_ONCE, WRITE_ONCE, _relaxed RMWs
    acquire,  // smp_load_acquire, _acquire RMWs: later accesses stay after the read
    release,  // smp_store_release, _release RMWs: earlier accesses stay before the write
    full,     // value-returning RMWs: as if smp_mb() stood before and after
    noreturn, // RMWs that return nothing (atomic_inc, set_bit): unordered, and smp_rmb skips
              // their read
    release_acquire_on_zero, // refcount_dec_and_test(): a release, and its read an acquire
                             // when it drops the count to 0 (refcount-vs-atomic.rst, case 5)
};

// The barriers of linux-kernel.def.
enum class Barrier : std::uint8_t {
    mb,
    rmb,
    wmb,
    before_atomic,
    after_atomic,
    after_spinlock,
    after_unlock_lock,
};

// What a read-modify-write stores, given the value it read: data, so that the step allocates
// nothing.
struct Update {
    enum Op : std::uint8_t {
        add,
        exchange,
        cmpxchg,
        add_unless,
        set_bits,
        clear_bits,
        dec_not_one
    };
    Op op = add;
    std::int64_t a = 0; // add: the addend; exchange: the new value; cmpxchg: the expected value;
                        // add_unless: the addend; set_bits, clear_bits: the mask
    std::int64_t b = 0; // cmpxchg: the new value; add_unless: the value that prevents it;
                        // dec_not_one: the saturated value, which it leaves as well as 0 and 1
    // The value stored after reading `old`, or none (a failed cmpxchg, add_unless at `b`).
    std::optional<std::int64_t> apply(std::int64_t old) const;
};

namespace weak_memory {

inline bool on() {
    return this_execution().limits().memory_model == MemoryModel::lkmm;
}

// A round of a search under lkmm (docs/memory-model.md, "Load buffering"): the catalogue of
// writes the rounds before it recorded, fixed for the round, which marks a write independent of
// a read where it shows the task made it after reading other values there; and the catalogue
// the round's writes are recorded in. Set between rounds, read by every execution of one; the
// thread's own (a search's worker threads are given their search's).
struct Round {
    const memory::Evidence* evidence = nullptr;
    memory::Catalogue* collect = nullptr;
};
void set_round(Round round);
Round current_round();
// Sets a round for as long as it lives, then puts back the one before.
class RoundScope {
  public:
    explicit RoundScope(Round round) : before_(current_round()) { set_round(round); }
    ~RoundScope() { set_round(before_); }
    RoundScope(const RoundScope&) = delete;
    RoundScope& operator=(const RoundScope&) = delete;

  private:
    Round before_;
};

// A read of `obj` by the running task; `latest` is what the object holds (the coherence-last
// write). Returns the value read. `pointer`: `obj` holds a pointer (shared<T*>), whose value
// means nothing in another execution (docs/memory-model.md, "Load buffering").
std::int64_t load(const Object& obj, std::int64_t latest, Ordering order, bool pointer = false);
// A write of `value` to `obj`; returns whether it is coherence-last (then the object holds it).
bool store(const Object& obj, std::int64_t latest, std::int64_t value, Ordering order,
           bool pointer = false);

// A field of an object that the kernel's code reaches through pointers (a list_head's next and
// prev), as a location of its own named by the field's address. load_field() reads a write the
// search chooses, as load() does. field_read() and field_written() read the coherence-last
// write or are placed last, with no choice: only for code in which two operations that conflict
// on a field and are unordered always race somewhere (a data race, reported at the end of the
// execution, to which LKMM gives no meaning); ordered, LKMM lets them see only what sequential
// consistency does.
std::int64_t load_field(const Object& obj, const void* field, std::int64_t latest, Ordering order);
void field_read(const Object& obj, const void* field, std::int64_t latest, Ordering order);
void field_written(const Object& obj, const void* field, std::int64_t latest, std::int64_t value,
                   Ordering order);

struct RmwResult {
    std::int64_t old = 0;   // the value read
    bool wrote = false;     // the update stored a value
    bool latest = false;    // ... which is coherence-last: the object holds it
    std::int64_t value = 0; // what it stored
};
// An atomic read-modify-write of `obj`: reads, and stores update.apply(old) if there is one,
// with no write in between. A failed conditional RMW is an unordered read.
RmwResult rmw(const Object& obj, std::int64_t latest, Update update, Ordering order,
              bool pointer = false);

void barrier(Barrier kind);

// A lock's acquisition (spin_lock, mutex_lock, a successful trylock): lock.cat's LKR (an
// acquire reading the last unlock) and LKW. Its release: UL, a release. A failed trylock
// reads the lock (held), with no ordering. spin_is_locked() reads it with no ordering either,
// and may see an older state: returns whether what it read is held.
void lock_acquired(const Object& lock);
void lock_released(const Object& lock);
void lock_attempt_failed(const Object& lock);
bool lock_is_locked(const Object& lock, bool held);
// preempt_disable() on a CPU (`rq`): if another task's atomic section there came last (it
// ended in preempt_enable(): lock_released(rq)), it is ordered before this one as the context
// switch between them orders it (__schedule(): rq_lock(), smp_mb__after_spinlock()). Tasks are
// LKMM threads of their own; a CPU runs them one at a time.
void cpu_switched(const Object& rq);
// A task the running one spawned: everything the spawner did before is ordered before what the
// new task does, as queue_work() documents for a work item ("all stores preceding the call
// ... will be visible from the CPU which will execute @work") and kthread_run()'s wake-up gives
// a new thread (a full barrier in each, a release write the new task reads as an acquire).
void task_spawned(const Task& child);
// Deferred work, as the kernel documents its order: what the running task did before it
// handed `obj` off (a queue_work() that queued the item: "all stores preceding the call ...
// will be visible from the CPU which will execute @work by the time such work executes",
// include/linux/workqueue.h; arming a timer, which its expiry finds under the timer base's
// lock; raise_softirq() on the CPU whose softirq runs it) is ordered before what the task
// that takes `obj` over does next (the worker starting the item, the softirq expiring the
// timer or running the raised vector): a release write of the hand-off's own location, read
// by an acquire of its latest write. Both keep their step's own accesses first. `key` is the
// address that stands for the hand-off (the item, the timer, the CPU; a run's end, handed to
// flush_work() or del_timer_sync(), has its own).
void handed_off(const void* key);
void taken_over(const void* key);
// An interrupt handler that enters on the CPU where `interrupted` ran runs there after it, in
// that CPU's program order: everything the task did is ordered before what the handler does,
// and (interrupt_left()) everything the handler did before what the task does once it
// returns: a release write in one, read by an acquire in the other.
void interrupt_entered(const Task& handler, const Task& interrupted);
void interrupt_left(const Task& handler, const Task& interrupted);
// A preemptible task at a preemption point, resuming on its CPU or `migrated` to another: the
// choice reads no memory of the task's own (the online mask it reads changes only under
// stop_machine()); a migration is two context switches, a full barrier. `cpu`: where it runs
// now, a choice of the model that load buffering's evidence keeps apart (memory::Made).
void scheduled_on(bool migrated, int cpu);
// stop_machine() around a CPU hotplug change (takedown_cpu()): every online CPU leaves what
// it ran for the stopper thread (a context switch, a full barrier) and acknowledges each state
// of multi_cpu_stop() with a fully ordered atomic_dec_and_test(). So everything any task did
// before stop_machine_entered() is ordered before what the running task does next, and that
// before everything any task does after stop_machine_left(): each task takes part with a fully
// ordered read-modify-write of one location, a finished one in the first half only.
void stop_machine_entered();
void stop_machine_left();
// set_cpu_online() in remove_cpu() or add_cpu(): under cpu_add_remove_lock (which serializes
// hotplug operations; LKR/LKW ... UL), a fully ordered read-modify-write of the online mask
// from `before` to `after`.
void online_mask_changed(const Object& mask, std::int64_t before, std::int64_t after);
// up_read(), up_write(): a release that is a read-modify-write of sem->count
// (atomic_long_add_return_release()), reading its last write. Readers leave in any order, so
// the next acquirer may read the count from the last one only: the releases of those before
// reach it through the rmw-sequence of linux-kernel.cat's cumul-fence, as in the kernel.
void rwsem_released(const Object& sem);

// The running task's state set from `before` to `after`, followed by smp_mb() when `barrier`
// (set_current_state() is smp_store_mb(); __set_current_state() is a plain store).
struct StateChange {
    long before = TASK_RUNNING;
    long after = TASK_RUNNING;
    bool barrier = false;
};

// A wait queue's list (its length is the location's value) changes only under
// wq_head->lock. prepare_to_wait() and finish_wait() change it from `before` to `after`
// waiters (`after` == `before`: an entry already queued, or not queued), and prepare_to_wait()
// sets the task's `state` there.
void wait_queue_changed(const Object& wq, std::int64_t before, std::int64_t after,
                        std::optional<StateChange> state);
// An operation under an object's own lock (a wait queue's wq_head->lock, a completion's
// x->wait.lock, an extent tree's tree->lock): the object's value read, and written when it goes
// from `before` to `after`; then the tasks it `woken`, each as
// try_to_wake_up() wakes one: smp_mb__after_spinlock() (memory-barriers.txt, "SLEEP AND
// WAKE-UP FUNCTIONS"; none when nothing woke), a read of the task's state and the write of
// TASK_RUNNING that schedule() in the woken task reads. wake_up() reads the list (and leaves
// `after` waiters: the woken ones removed themselves); complete() and wait_for_completion()
// count `done` up and down.
void locked_update(const Object& obj, std::int64_t before, std::int64_t after,
                   std::span<const Task* const> woken = {});
// waitqueue_active(): the list read with no lock and no barrier; whether it looked nonempty.
bool wait_queue_seen_active(const Object& wq, std::int64_t waiters);

// A task's state (include/linux/sched.h) as a location of its own, through which every sleep
// and wake-up goes (set_current_state(), schedule(), wake_up_process(); a wait queue's as
// well, under its lock). set_current_state() writes the running task's state and is
// smp_store_mb() (`barrier`; __set_current_state() is not); wake_up_process() reads `task`'s
// after try_to_wake_up()'s smp_mb__after_spinlock(), and may see an older state (then it
// wakes nobody), and writes TASK_RUNNING when it wakes it; schedule() reads the running task's
// state as an acquire, so the woken task sees what its waker did before the wake-up (the
// ordering kernel/sched/core.c documents), and is a full barrier. A sleep on a wait queue or a
// completion ends the same way: its waker wrote TASK_RUNNING (locked_update()).
void task_state_set(long latest, long state, bool barrier);
long task_state_seen(const Task& task, long latest);
void task_state_woken(const Task& task, long latest);
void task_state_scheduled(long latest);

// What the step `step` read last (under lkmm, once it finished): the step of the write it
// read from (0: the location's initial value), and, if that was not the coherence-latest
// write when it read, the step of the latest one it missed (0: it missed none).
struct ReadSeen {
    bool read = false; // the step read a location
    std::uint32_t from = 0;
    std::uint32_t missed = 0;
};
ReadSeen read_in_step(const Execution& ex, std::uint32_t step);

// A barrier the execution's graph lacks that, alone or with the others reported with it, would
// have forbidden it: in `task` between its accesses of steps `after` and `before`, the weakest
// that orders them (smp_rmb() between two reads, smp_wmb() between two writes, else smp_mb()),
// and the axiom of linux-kernel.cat that would then forbid it.
struct MissingBarrier {
    TaskId task = 0;
    std::uint32_t after = 0;
    std::uint32_t before = 0;
    const char* barrier = nullptr; // "smp_mb()"
    const char* axiom = nullptr;   // "propagation"
};
// The running operation makes no access LKMM counts and orders nothing (kmalloc(), kfree():
// the allocator promises no ordering), where it would otherwise be taken as a fully ordered
// operation of its object.
void orders_nothing();
// The read the running task just made loaded a pointer to `target`: its later accesses of the
// allocation (or the object) `target` points into depend on it by address (LKMM's addr), as
// rcu_dereference()'s readers rely on.
void pointer_loaded(const void* target);
// kfree() of `allocation` by the running task: a write of the allocation's lifetime, which an
// access of its memory made at a later step reads (the free, a use-after-free), or not where
// LKMM lets the access come first.
void freed(const Object& allocation);
// RCU's events in the running task at its step (linux-kernel.def): rcu_read_lock() is
// Rcu-lock, rcu_read_unlock() Rcu-unlock, synchronize_rcu() Sync-rcu. None orders anything
// by itself: linux-kernel.cat's rcu axiom does.
void rcu_read_locked();
void rcu_read_unlocked();
void rcu_synchronized();
// The operations this execution ordered more than the kernel promises, by name, each once:
// those treated as fully ordered read-modify-writes of their object because their primitive
// does not model its accesses one by one.
std::vector<const char*> fully_ordered_operations(const Execution& ex);

// Found around each read that missed a write: right after that write, right before the read,
// or both. Empty under sc, or when no such barrier forbids it.
std::vector<MissingBarrier> missing_barriers(const Execution& ex);

} // namespace weak_memory
} // namespace lockcheck::detail
