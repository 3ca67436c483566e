// schedule(), might_sleep() and cpu_relax() on top of the execution's scheduling points.
#include "sched.hpp"

#include "irq.hpp"
#include "percpu.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

// A task that may not sleep: preemption or interrupts off, an interrupt handler, or inside
// rcu_read_lock() (CONFIG_PREEMPT_RCU's __might_resched() checks the RCU nest depth).
bool atomic(const task_struct* t) {
    return t->preempt_count != 0 || t->irqs_off || t->rcu_nesting[0] != 0;
}

} // namespace

void might_sleep(const char* what, const Object* obj, std::source_location loc) {
    task_struct* me = current();
    if (!atomic(me)) [[likely]]
        return;
    std::string op = what;
    if (obj) op += "(" + obj->name() + ")";
    this_execution().fail_attempt(
        Operation{.name = what, .obj = obj, .location = loc}, ViolationKind::sleep_in_atomic,
        "sleep-in-atomic",
        "BUG: sleeping function called from invalid context: " + me->name() + " calls " + op +
            " while atomic (" + atomic_reason(me) + ")");
}

namespace {
// set_current_state() is smp_store_mb(current->state, state): `barrier`.
void set_state(long state, bool barrier, std::source_location loc) {
    this_execution().visible("set_current_state", nullptr, loc);
    if (weak_memory::on()) [[unlikely]]
        weak_memory::task_state_set(current()->state, state, barrier);
    current()->state = state;
    this_execution().note(state);
}
} // namespace

void set_current_state(long state, std::source_location loc) {
    set_state(state, true, loc);
}

void __set_current_state(long state, std::source_location loc) {
    set_state(state, false, loc);
}

namespace {
// __schedule_bug()'s report for `op` in atomic context.
void check_schedule(task_struct* me, const char* op, std::source_location loc) {
    if (atomic(me))
        this_execution().fail_attempt(
            Operation{.name = op, .obj = me->sleeping_on, .location = loc},
            ViolationKind::sleep_in_atomic, "sleep-in-atomic",
            "BUG: scheduling while atomic: " + me->name() + " calls " + op + "() " +
                atomic_reason(me));
}
} // namespace

long schedule_timeout(long timeout, std::source_location loc) {
    if (timeout == MAX_SCHEDULE_TIMEOUT) {
        schedule(loc);
        return timeout;
    }
    task_struct* me = current();
    check_schedule(me, "schedule_timeout", loc);
    // Enabled at every step: woken first, or the timer's process_timeout() first.
    this_execution().visible("schedule_timeout", me->sleeping_on, loc);
    const bool woken = me->state == TASK_RUNNING;
    if (woken) {
        if (weak_memory::on()) [[unlikely]]
            weak_memory::task_state_scheduled(me->state);
        return timeout;
    }
    // The timer's wake_up_process().
    if (weak_memory::on()) [[unlikely]]
        weak_memory::task_state_set(me->state, TASK_RUNNING, false);
    me->state = TASK_RUNNING;
    return 0;
}

void schedule(std::source_location loc) {
    task_struct* me = current();
    check_schedule(me, "schedule", loc);
    this_execution().visible("schedule", me->sleeping_on, loc, [](const Object*, const Task& t) {
        return static_cast<const task_struct&>(t).state == TASK_RUNNING;
    });
    // Even without sleeping, schedule() may hand the CPU over and resume elsewhere.
    count_sleep_if_blocked(me->sleeping_on, false);
    // The woken task reads the TASK_RUNNING its waker wrote, on a wait queue or not.
    if (weak_memory::on()) [[unlikely]]
        weak_memory::task_state_scheduled(me->state);
}

void cpu_relax(std::source_location loc) {
    cpu_relax_in(nullptr, loc);
}

void cpu_relax_in(const void* loop, std::source_location loc) {
    Execution& ex = this_execution();
    ex.visible_spin("cpu_relax", loc, [](const Object*, const Task& t) {
        const Execution& ex = Execution::current();
        return ex.limits().loops_as_cycles || ex.turn_changed(t);
    });
    ++ex.counters().spins;
    ex.begin_spin_turn(loc, loop);
}

int try_to_wake_up(task_struct* task, long state) {
    if (!(task->state & state)) return 0;
    task->state = TASK_RUNNING;
    ++this_execution().counters().wakeups;
    return 1;
}

int wake_up_process(task_struct* task, std::source_location loc) {
    this_execution().visible("wake_up_process", nullptr, loc);
    int woke = 0;
    if (!weak_memory::on()) {
        woke = try_to_wake_up(task, TASK_NORMAL);
    } else if (weak_memory::task_state_seen(*task, task->state) & TASK_NORMAL) {
        woke = try_to_wake_up(task, TASK_NORMAL);
        if (woke) weak_memory::task_state_woken(*task, task->state);
    }
    this_execution().note(woke);
    return observed(woke);
}

} // namespace lockcheck::detail
