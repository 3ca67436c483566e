// task_struct's exit check and the held-lock stack.
#include "task.hpp"

#include "irq.hpp"
#include "lockdep.hpp"
#include "percpu.hpp"
#include "weak_memory.hpp"

#include <cstring>
#include <memory>
#include <stdexcept>

namespace lockcheck::detail {

void spawn(std::string comm, std::function<void()> body) {
    spawn_on(0, std::move(comm), std::move(body));
}

void spawn_on(int cpu, std::string comm, std::function<void()> body) {
    if (cpu < 0 || cpu >= nr_cpu_ids())
        throw std::invalid_argument("spawn_on(" + std::to_string(cpu) + ", " + comm +
                                    "): the model has CPUs 0.." + std::to_string(nr_cpu_ids() - 1));
    auto task = std::make_unique<task_struct>(std::move(comm));
    task->set_cpu(cpu);
    task_struct& child = *task;
    Execution& ex = Execution::current();
    ex.spawn(std::move(task), std::move(body));
    // Started on a CPU where a handler runs, it waits for it as the tasks it interrupted do.
    if (ex.in_task()) joined_cpu(&child);
    // Under lkmm what the spawning task did before is visible to the new one (queue_work(),
    // kthread_run()); tasks made at set-up start from the initial values.
    if (ex.in_task() && weak_memory::on()) [[unlikely]]
        weak_memory::task_spawned(child);
}

void task_struct::on_exit() {
    if (lockdep_depth == 0) return;
    std::string held;
    // Where each was taken, a line each: the message is the finding, the same from any line.
    std::vector<std::string> taken;
    for (int i = 0; i < lockdep_depth; ++i) {
        const held_lock& h = held_locks[i];
        if (i) held += ", ";
        held += h.instance->name() + " (" + h.type + ")";
        if (const CallSite site = call_site(h.location); site.known())
            taken.push_back(h.instance->name() + " taken at step " + std::to_string(h.acquired_at) +
                            " (" + site.text() + ")");
    }
    this_execution().fail_with_details(ViolationKind::lock_held_at_exit, "lock-held-at-exit",
                                       "lock held when returning to user space: " + name() +
                                           " exited holding " + held,
                                       std::move(taken));
}

// The step a lock was taken at is for reports only: it is not state.
void task_struct::fingerprint(StateHasher& h) const {
    h.add(static_cast<std::uint64_t>(state));
    h.add(static_cast<std::uint64_t>(preempt_count));
    h.add(sleeping_on ? static_cast<std::uint64_t>(sleeping_on->id()) : ~0ULL);
    h.add(static_cast<std::uint64_t>(cpu()));
    h.add(static_cast<std::uint64_t>(context) | static_cast<std::uint64_t>(irqs_off) << 8 |
          static_cast<std::uint64_t>(irq_sections) << 16 |
          static_cast<std::uint64_t>(bh_disabled) << 24);
    h.add(lockdep_asked);
    h.add(static_cast<std::uint64_t>(kcsan_nestable_atomic) << 1 | kcsan_atomic_next);
    h.add(static_cast<std::uint64_t>(rcu_nesting[0]) |
          static_cast<std::uint64_t>(rcu_nesting[1]) << 8 |
          static_cast<std::uint64_t>(rcu_nesting[2]) << 16);
    h.add(static_cast<std::uint64_t>(lockdep_depth));
    for (int i = 0; i < lockdep_depth; ++i) {
        const held_lock& l = held_locks[i];
        h.add(static_cast<std::uint64_t>(l.instance->id()));
        h.add(reinterpret_cast<std::uintptr_t>(l.type));
        h.add(l.subclass);
        h.add(l.trylock);
    }
}

held_lock& HeldLocks::beyond(int i) {
    if (!more_) more_ = &this_execution().make<std::array<held_lock, kMax - kInline>>();
    return (*more_)[static_cast<std::size_t>(i - kInline)];
}

const held_lock* task_struct::find_held(const char* type) const {
    for (int i = lockdep_depth - 1; i >= 0; --i)
        if (std::strcmp(held_locks[i].type, type) == 0) return &held_locks[i];
    return nullptr;
}

void lock_acquired(task_struct* task, const Object* lock, const char* type, const lockdep_map* map,
                   std::source_location loc, int subclass, bool trylock, bool read,
                   bool recursive_read) {
    // The kernel says "BUG: MAX_LOCK_DEPTH too low!": lockdep's limit, not the model's bug.
    // Without the entry, unlocks and exit checks would go wrong: the execution ends.
    if (task->lockdep_depth == task_struct::kMaxHeldLocks) {
        this_execution().table_full("held locks per task (MAX_LOCK_DEPTH)",
                                    task_struct::kMaxHeldLocks, true);
        return;
    }
    lock->lock_stats.acquired(task->was_blocked() || task->retrying());
    task->held_locks[task->lockdep_depth++] = held_lock{lock,
                                                        type,
                                                        map,
                                                        loc,
                                                        this_execution().step(),
                                                        static_cast<std::uint8_t>(subclass),
                                                        trylock,
                                                        read,
                                                        recursive_read};
    if (task->lockdep_asked) lockdep_acquired(task);
}

bool lock_released(task_struct* task, const Object* lock) {
    for (int i = task->lockdep_depth - 1; i >= 0; --i) {
        if (task->held_locks[i].instance != lock) continue;
        lock->lock_stats.record(this_execution().step() - task->held_locks[i].acquired_at);
        for (int j = i; j + 1 < task->lockdep_depth; ++j)
            task->held_locks[j] = task->held_locks[j + 1];
        --task->lockdep_depth;
        return true;
    }
    return false;
}

void count_sleep_if_blocked(const Object* on, bool count_wakeup) {
    Execution& ex = this_execution();
    if (ex.current_task().was_blocked()) {
        ++ex.counters().sleeps;
        if (on) ++on->lock_stats.sleeps;
        if (count_wakeup) ++ex.counters().wakeups;
    }
    resume_on_any_cpu();
}

bool holds_lock(const task_struct* task, const Object* lock) {
    for (int i = 0; i < task->lockdep_depth; ++i)
        if (task->held_locks[i].instance == lock) return true;
    return false;
}

} // namespace lockcheck::detail
