// schedule(), might_sleep() and cpu_relax() on top of the execution's scheduling points.
#include "sched.hpp"

#include "percpu.hpp"

namespace lockcheck {

namespace {

std::string held_spinlock(const task_struct* t) {
    const held_lock* h = t->find_held("spinlock");
    return h ? h->instance->name() : std::string("preemption disabled");
}

} // namespace

void might_sleep(const char* what, const Object* obj) {
    task_struct* me = current();
    if (me->preempt_count == 0) return;
    std::string op = what;
    if (obj) op += "(" + obj->name() + ")";
    this_execution().fail(ViolationKind::sleep_in_atomic, "sleep-in-atomic",
                          "BUG: sleeping function called from invalid context: " + me->name() +
                              " calls " + op + " while atomic (holding " + held_spinlock(me) + ")");
}

void set_current_state(long state) {
    this_execution().visible("set_current_state", nullptr);
    current()->state = state;
    this_execution().note(state);
}

void __set_current_state(long state) {
    set_current_state(state);
}

void schedule() {
    task_struct* me = current();
    if (me->preempt_count != 0)
        this_execution().fail(ViolationKind::sleep_in_atomic, "sleep-in-atomic",
                              "BUG: scheduling while atomic: " + me->name() + " calls schedule() " +
                                  "holding " + held_spinlock(me));
    this_execution().visible("schedule", me->sleeping_on, [](const Object*, const Task& t) {
        return static_cast<const task_struct&>(t).state == TASK_RUNNING;
    });
    count_sleep_if_blocked();
    resume_on_any_cpu();
}

void cpu_relax() {
    this_execution().visible("cpu_relax", nullptr, [](const Object*, const Task& t) {
        return Execution::current().last_write_step() > t.last_step();
    });
    this_execution().nothing_written();
    ++this_execution().counters().spins;
}

int try_to_wake_up(task_struct* task, long state) {
    if (!(task->state & state)) return 0;
    task->state = TASK_RUNNING;
    ++this_execution().counters().wakeups;
    return 1;
}

int wake_up_process(task_struct* task) {
    this_execution().visible("wake_up_process", nullptr);
    int woke = try_to_wake_up(task, TASK_NORMAL);
    this_execution().note(woke);
    return woke;
}

} // namespace lockcheck
