// task_struct: a model task as the kernel sees it: sleep state, preempt count, held locks.
// `current()` is the task running now; `spawn` adds a task while a model sets up.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <source_location>
#include <string>
#include <utility>

#include "../scheduler/execution.hpp"
#include "../scheduler/task.hpp"

namespace lockcheck::detail {

// Task states as set_current_state() takes them.
enum : long { TASK_RUNNING = 0, TASK_INTERRUPTIBLE = 1, TASK_UNINTERRUPTIBLE = 2 };
inline constexpr long TASK_NORMAL = TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE;
// task_struct::flags: a kthread bound to its CPU (a per-CPU kworker) is never migrated.
enum : unsigned { PF_NO_SETAFFINITY = 0x04000000 };

// One entry of a task's held-lock stack, as lockdep keeps it.
struct lockdep_map;

// 40 bytes: every execution allocates a task_struct per task.
struct held_lock {
    const Object* instance = nullptr;
    const char* type = nullptr;       // "mutex", "spinlock", "rwsem-read", "rwsem-write"
    const lockdep_map* map = nullptr; // its lock class; nullptr: not tracked by lockdep
    std::source_location location{};  // the model's call that took it
    std::uint32_t acquired_at = 0;    // step
    std::uint8_t subclass = 0;        // below MAX_LOCKDEP_SUBCLASSES
    bool trylock = false;
    bool read = false;           // held for read: lockdep's _READ usage bits (rwlock_t's read side)
    bool recursive_read = false; // ... as a recursive read (lockdep's read == 2)
};

// A task's held-lock stack, lockdep's held_locks[MAX_LOCK_DEPTH]: the first kInline entries in
// the task_struct, the rest in a block the execution makes the first time the task holds more.
// Every checkpoint copies every task_struct (scheduler/checkpoint.hpp), and a task holds a few
// locks at a time: the whole stack inline was two fifths of what a checkpoint copied.
class HeldLocks {
  public:
    // lockdep's MAX_LOCK_DEPTH: a task holding more fills the table (the run is incomplete).
    static constexpr int kMax = 48;
    static constexpr int kInline = 8;
    // Entry `i` (below kMax); past the inline ones, the block is made when first asked for.
    held_lock& operator[](int i) { return i < kInline ? inline_[i] : beyond(i); }
    // Entry `i` of those held (below lockdep_depth).
    const held_lock& operator[](int i) const {
        return i < kInline ? inline_[i] : (*more_)[static_cast<std::size_t>(i - kInline)];
    }

  private:
    held_lock& beyond(int i);
    std::array<held_lock, kInline> inline_{};
    std::array<held_lock, kMax - kInline>* more_ = nullptr;
};

class task_struct final : public Task {
  public:
    static constexpr int kMaxHeldLocks = HeldLocks::kMax;

    explicit task_struct(std::string comm) : Task(std::move(comm)) {}
    void on_exit() override;
    void fingerprint(StateHasher& h) const override;

    long state = TASK_RUNNING;
    unsigned flags = 0;                  // PF_*
    int preempt_count = 0;               // raised by spinlocks: atomic context
    const Object* sleeping_on = nullptr; // what schedule() would sleep on, for reports
    HeldLocks held_locks;
    int lockdep_depth = 0;
    // Interrupt context (model/irq.hpp): what the task is (a task, or a softirq or hardirq
    // handler), whether it has interrupts off, how many local_irq_save()/spin_lock_irq()
    // sections it is inside that need them off (a handler's own counts as one), and how deep
    // its local_bh_disable()s go.
    std::uint8_t context = 0; // irq_context
    bool irqs_off = false;
    std::uint8_t irq_sections = 0;
    std::uint8_t bh_disabled = 0;
    // KCSAN's atomic regions, in which plain accesses count as marked ones: the write sections
    // of sequence counts the task is inside (kcsan_nestable_atomic_begin()), and whether it
    // is in a read section (kcsan_atomic_next(), until read_seqcount_retry()).
    std::uint8_t kcsan_nestable_atomic = 0;
    bool kcsan_atomic_next = false;
    // RCU read-side sections (model/rcu.hpp): how deep each flavour's nest (rcu_read_lock,
    // _bh, _sched), and where the outermost began (for reports; not state).
    std::array<std::uint8_t, 3> rcu_nesting{};
    std::uint32_t rcu_entered_at = 0;
    std::source_location rcu_entered_loc{};
    int rcu_nesting_total() const { return rcu_nesting[0] + rcu_nesting[1] + rcu_nesting[2]; }
    // Inside a region with preemption, bottom halves or interrupts off, or a handler: the
    // implicit read-side section a grace period waits for too (rcu_atomic_changed()).
    bool rcu_implicit = false;
    // Its pending lock request recorded lockdep dependencies, which name the step that
    // takes the lock (lockdep_acquired()).
    bool lockdep_asked = false;

    // The innermost held lock of a type, or nullptr.
    const held_lock* find_held(const char* type) const;
};

inline Execution& this_execution() {
    return Execution::current();
}
// Whether the running task is inside one of KCSAN's atomic regions (set-up is not).
inline bool kcsan_atomic_region() {
    Execution& ex = Execution::current();
    if (!ex.in_task()) return false;
    const auto& t = static_cast<const task_struct&>(ex.current_task());
    return t.kcsan_nestable_atomic || t.kcsan_atomic_next;
}
// What a primitive returns to its caller: under a stateful search it joins the caller's
// history (Execution::observe()).
template <class T> T observed(T value) {
    Execution::current().observe(static_cast<std::uint64_t>(value));
    return value;
}
inline task_struct* current() {
    return static_cast<task_struct*>(&Execution::current().current_task());
}
// The model's own state for one execution: a T made from `args` while the model sets up,
// owned by the execution and destroyed when it ends (a model keeps no state in globals, which
// would carry over from one execution to the next).
template <class T, class... Args> T& model_state(Args&&... args) {
    return this_execution().make<T>(std::forward<Args>(args)...);
}
// Adds a task to the model being set up; it starts when the execution runs.
void spawn(std::string comm, std::function<void()> body);
// spawn(), on a given CPU of the model.
void spawn_on(int cpu, std::string comm, std::function<void()> body);

// Lock bookkeeping shared by every lock type (the held-lock stack). `loc`: the model's call
// that took the lock.
void lock_acquired(task_struct* task, const Object* lock, const char* type, const lockdep_map* map,
                   std::source_location loc, int subclass = 0, bool trylock = false,
                   bool read = false, bool recursive_read = false);
// False if the task does not hold the lock.
bool lock_released(task_struct* task, const Object* lock);
bool holds_lock(const task_struct* task, const Object* lock);

// After a blocking operation on `on` (null: a sleep on no object): if the task had to wait
// for it, counts the sleep, against `on` too, and the wake-up that ended it (a lock or
// completion hand-off; schedule()'s wake-ups are counted where they happen). Either way the task
// may go on on any online CPU: every sleeping primitive is a preemption point (might_sleep()),
// contended or not. Whether it waited changes only the counters, never what the task does next:
// that depends on the order of dependent operations alone, which partial-order reduction relies on.
void count_sleep_if_blocked(const Object* on, bool count_wakeup = true);

} // namespace lockcheck::detail
