// Task: one thread of a model, run on its own fiber. The scheduler sees its pending visible
// operation and whether it has finished; model/ derives the kernel's task_struct from it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "fiber_unwind.hpp"
#include "fingerprint.hpp"
#include "op_wait.hpp"
#include "operation.hpp"
#include "stack_pool.hpp"
#include "task_set.hpp"

namespace lockcheck::detail {

class Task {
  public:
    explicit Task(std::string name) : name_(std::move(name)) {}
    virtual ~Task() = default;
    Task(const Task&) = delete;
    Task& operator=(const Task&) = delete;

    const std::string& name() const { return name_; }
    TaskId id() const { return id_; }
    bool finished() const { return finished_; }
    // Finished by returning from its body, not torn down with its execution.
    bool exited() const { return finished_ && !torn_down_; }
    const Operation& pending() const { return pending_; }
    // The step this task last took (0 before its first step).
    std::uint32_t last_step() const { return last_step_; }
    // Whether the operation just performed had to wait: it was not enabled at some step
    // after the task declared it (a contended lock, a real sleep).
    bool was_blocked() const { return blocked_; }
    // Whether it is retrying after a failed trylock: an acquisition now was contended.
    bool retrying() const { return retrying_since_ != 0; }
    // The steps other tasks ran while it could not go on, so far (op_wait.hpp); those of a
    // stretch of retrying after a failed trylock are added when it next changes something.
    std::uint64_t waited() const { return waited_; }
    // The step after which it started: 0 when spawned at set-up, else its spawner's step.
    std::uint32_t started_after() const { return started_after_; }

    // The task that runs in its place on its CPU (an interrupt handler that interrupted it),
    // or null: while there is one, it cannot go on. The model layer sets it (model/irq.cpp).
    const Task* interrupted_by() const { return interrupted_by_; }
    void set_interrupted_by(const Task* handler) { interrupted_by_ = handler; }
    // Parked where its execution may end with it (an interrupt that may still fire, a softirq
    // with nothing to do): it does not keep the execution going, and once every task that
    // does has finished, it is torn down where it waits.
    bool idle() const { return idle_; }
    void set_idle(bool idle) { idle_ = idle; }
    // The CPU it runs on (the model layer's, model/percpu.hpp); partial-order reduction reads
    // it for the steps that depend on every step of a CPU's tasks (Operation::cpu_wide).
    int cpu() const { return cpu_; }
    void set_cpu(int cpu) { cpu_ = cpu; }
    // Another task gave it something to do (it stops being idle): until it next takes a step,
    // the step it waits to take counts for partial-order reduction as one it could have taken,
    // even once it is idle again with nothing to do (a work queued, then cancelled).
    void wake() {
        idle_ = false;
        woken_ = true;
    }
    bool woken() const { return woken_; }
    // Whether it can take its pending step now.
    bool can_run() const {
        return !finished_ && !interrupted_by_ &&
               (!pending_.enabled || pending_.enabled(pending_.obj, *this));
    }

    // Checks when the task's body has returned, run on its fiber (locks still held...).
    virtual void on_exit() {}
    // Adds the task's state beyond its model code's position (a sleep state, held locks) to a
    // state's fingerprint (Object::fingerprint).
    virtual void fingerprint(StateHasher& h) const { (void)h; }

  private:
    friend class Execution;
    std::string name_;
    TaskId id_ = 0;
    bool finished_ = false;
    bool torn_down_ = false;
    bool blocked_ = false;
    bool idle_ = false;
    int cpu_ = 0;
    bool woken_ = false;
    const Task* interrupted_by_ = nullptr;
    // Started but not yet at its first scheduling point, where it returns to `starter_`.
    bool starting_ = false;
    Task* starter_ = nullptr; // null: the main context
    // The objects this task touched since its spin loop's turn began (see begin_spin_turn),
    // each with its value (Object::fingerprint) before the task's first step on it in the
    // turn, and the task's last step on it.
    struct TurnObject {
        const Object* obj = nullptr;
        Fingerprint before{};
        std::uint32_t touched = 0;
    };
    static constexpr int kTurnObjects = 8;
    TurnObject turn_objects_[kTurnObjects] = {};
    std::uint8_t turn_count_ = 0;
    bool turn_overflow_ = false;
    // Another task wrote an object between two of this task's steps on it in the turn, or a
    // step of its wrote what no object stands for: the turn counts as one that changed.
    bool turn_disturbed_ = false;
    // Under a weak memory model: the task wrote in the turn, and one of its reads in the turn
    // read a write older than the coherence-latest (see Execution::stale_read()).
    bool turn_wrote_ = false;
    bool turn_stale_ = false;
    // Under a weak memory model, the operations of the turn (their names, objects and call
    // sites) folded into one number, and those of the turn before it, with where that turn
    // began: a turn is one more round of the loop only when it repeats the one before.
    std::uint64_t turn_shape_ = 0;
    std::uint64_t last_shape_ = 0;
    std::source_location turn_site_{};
    const void* turn_loop_ = nullptr; // the primitive's loop the turn is a round of, if any
    std::uint32_t turn_start_ = 0;
    // The step up to which every object of the turn was last found back at its value before
    // the turn (Execution::turn_changed() need not look at one not written since).
    mutable std::uint32_t turn_same_at_ = 0;
    std::uint32_t idle_turns_ = 0; // turns of its spin loop in a row that changed nothing
    // The objects of the turn before this one if it changed nothing, and whether its step
    // repeats an operation with nothing written since (see read_progresses()).
    const Object* fresh_objects_[kTurnObjects] = {};
    std::uint8_t fresh_count_ = 0;
    bool progress_ = false;
    // While nothing has been written for a while (see Execution::watch_repeats): the
    // operations it performed since, to tell when it goes round a loop, and how many of them
    // repeated one before. Valid while `repeats_since_` is the execution's last write step.
    static constexpr int kWatchedOps = 8;
    Operation watched_ops_[kWatchedOps];
    std::uint8_t watched_count_ = 0;
    std::uint32_t repeats_ = 0;
    std::uint32_t repeats_since_ = 0;
    std::uint32_t last_step_ = 0;
    std::uint32_t started_after_ = 0;
    // Waiting (op_wait.hpp): the steps other tasks ran while this one could not go on, in
    // all; its own steps; and, after a failed trylock, the step it failed at and its own steps
    // then (0: not retrying), until it next changes something.
    std::uint64_t waited_ = 0;
    std::uint32_t own_steps_ = 0;
    std::uint32_t retrying_since_ = 0;
    std::uint32_t own_steps_then_ = 0;
    // The named operations it is inside, innermost last.
    static constexpr int kOpenOps = 8;
    OpenOp open_ops_[kOpenOps];
    std::uint8_t open_count_ = 0;
    // Under a stateful search, everything the task's model code observed so far (the values
    // primitives returned to it, the choices made for it, each with the number of its step):
    // its code is deterministic, so this and its number of steps stand for its position and
    // its local variables (Execution::observe()).
    Fingerprint history_{};
    // Its own step at which history_ last began afresh (Execution::forget_since()): its steps
    // count from there, as a loop's counter would.
    std::uint32_t history_base_ = 0;
    std::uint32_t history_steps() const { return own_steps_ - history_base_; }
    // The forget_reads scopes its code is inside that forgot a round (Execution::forgot()).
    std::uint32_t forgetting_scopes_ = 0;
    Operation pending_;
    std::function<void()> body_;
    Stack stack_;
    void* context_ = nullptr; // the suspended fiber (a Boost.Context fcontext_t)
    FiberUnwind unwind_;      // tears the fiber down when its execution ends early
};

} // namespace lockcheck::detail
