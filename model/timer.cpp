// Timers after kernel/time/timer.c: arming and deleting under the timer's own step, expiry in
// TIMER_SOFTIRQ through irq.cpp's softirq contexts (timer.hpp).
#include "timer.hpp"

#include <vector>

#include "debugobjects.hpp"
#include "irq.hpp"
#include "sched.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

// Every timer of the execution, in the order set up.
struct timer_bases {
    std::vector<timer_list*> timers;
};

timer_bases* bases() {
    return this_execution().find_local<timer_bases>();
}

// A periodic timer expires again once a task that is not `softirq` (its CPU's context, the
// one asking) took a step since it last did (timer.hpp).
bool may_expire(const timer_list& t, const Task& softirq) {
    if (!t.armed) return false;
    if (!t.periodic) return true;
    for (const auto& tp : Execution::current().tasks())
        if (tp.get() != &softirq && !tp->finished() && !tp->idle() &&
            tp->last_step() > t.expired_at)
            return true;
    return false;
}

bool timers_due(int cpu, const Task& softirq) {
    for (const timer_list* t : bases()->timers)
        if (t->cpu == cpu && may_expire(*t, softirq)) return true;
    return false;
}

bool timers_owed(int cpu) {
    for (const timer_list* t : bases()->timers)
        if (t->cpu == cpu && t->armed && !t->periodic) return true;
    return false;
}

// __run_timers() for one timer: the running task is the CPU's softirq context, right after its
// softirq_entry step. Which due timer expires is the search's choice.
void run_timer_softirq() {
    task_struct* me = current();
    Execution& ex = this_execution();
    std::vector<timer_list*> due;
    for (timer_list* t : bases()->timers)
        if (t->cpu == me->cpu() && may_expire(*t, *me)) due.push_back(t);
    if (due.empty()) return;
    timer_list* t = due[due.size() == 1 ? 0 : ex.choose(static_cast<std::uint32_t>(due.size()))];
    // expire_timers(), at the softirq's step (under the base's lock in the kernel, which a
    // timer_delete() then finds it gone from): detached before its callback runs, which may arm
    // it again.
    t->armed = false;
    t->periodic = false;
    t->running = me;
    t->expired_at = ex.step();
    debug_object_deactivate(t);
    softirq_changed(t->cpu);
    const std::source_location loc{};
    ex.visible("timer_expire_entry", t, loc);
    if (weak_memory::on()) [[unlikely]]
        weak_memory::taken_over(t);
    // call_timer_fn(): the map is a copy in the kernel, so that the callback may free the timer.
    void (*fn)(timer_list*) = t->function;
    lock_map_acquire(t, &t->lockdep_map, loc);
    if (fn) fn(t);
    lock_map_release(t);
    // Not a step on the timer, which the callback may have freed: against every other step.
    ex.visible_global("timer_expire_exit", nullptr, loc);
    // What the callback did is seen by a del_timer_sync() that finds it done (the timer base's
    // lock orders it in the kernel): a hand-off of its own, as arming it again is the next
    // expiry's.
    if (weak_memory::on()) [[unlikely]]
        weak_memory::handed_off(&t->lockdep_map);
    t->running = nullptr;
}

void arm(timer_list* t, task_struct* me) {
    const int was = t->armed ? t->cpu : -1;
    t->armed = true;
    t->periodic = t->running == me;
    t->cpu = me->cpu();
    debug_object_activate(t, "timer_list");
    if (weak_memory::on()) [[unlikely]]
        weak_memory::handed_off(t);
    if (was >= 0 && was != t->cpu) softirq_changed(was);
    softirq_changed(t->cpu);
}

int disarm(timer_list* t) {
    const int was = t->armed;
    if (t->armed) {
        t->armed = false;
        debug_object_deactivate(t);
        softirq_changed(t->cpu);
    }
    return was;
}

bool not_running(const Object* obj, const Task&) {
    return !static_cast<const timer_list*>(obj)->running;
}

int delete_sync(const char* op, timer_list* t, bool shutdown, std::source_location loc) {
    // del_timer_sync(): lockdep's rules first, whether or not the callback runs now, with
    // interrupts off as the kernel takes the map (local_irq_save()): the callback holds it in
    // softirq context, and an irq-enabled acquisition would be an inconsistent lock state.
    lock_acquire(op, t, &t->lockdep_map, 0, false, loc, lockdep_irqs_off::hardirqs);
    // Against every step, as the callback's end is: what it did happens before the return.
    this_execution().visible_global(op, t, loc, &not_running);
    task_struct* me = current();
    if (me->lockdep_asked) lockdep_acquired(me);
    count_sleep_if_blocked(t, false);
    if (weak_memory::on()) [[unlikely]]
        weak_memory::taken_over(&t->lockdep_map);
    if (shutdown) t->shut_down = true;
    return observed(disarm(t));
}

} // namespace

timer_list::timer_list(std::string name) : Object(name), lockdep_map("(" + name + ")") {
    unwatched();
}

void timer_list::describe(std::string& out) const {
    out += armed ? (periodic ? "armed (periodic) on cpu" : "armed on cpu") + std::to_string(cpu)
                 : std::string("not armed");
    if (running) out += ", callback running in " + running->name();
    if (shut_down) out += ", shut down";
}

void timer_list::fingerprint(StateHasher& h) const {
    h.add(armed);
    h.add(periodic);
    // Whether a periodic timer may expire again (may_expire()) follows from which tasks took a
    // step since its last expiry, with their idle flags (Execution::fingerprint()): the step
    // numbers differ between executions that reach one state, these bits do not.
    if (periodic)
        for (const auto& tp : Execution::current().tasks())
            if (!tp->finished()) h.add(tp->last_step() > expired_at);
    h.add(shut_down);
    h.add(static_cast<std::uint64_t>(cpu));
    h.add(running ? running->id() : kNoTask);
}

void timer_setup(timer_list* timer, void (*callback)(timer_list*), unsigned flags) {
    Execution& ex = this_execution();
    if (!ex.find_local<timer_bases>()) {
        ex.local<timer_bases>();
        open_softirq(TIMER_SOFTIRQ, &run_timer_softirq);
        softirq_due(TIMER_SOFTIRQ, &timers_due, &timers_owed);
    }
    timer->function = callback;
    timer->flags = flags;
    auto& timers = bases()->timers;
    if (std::find(timers.begin(), timers.end(), timer) == timers.end()) timers.push_back(timer);
}

int mod_timer(timer_list* timer, unsigned long, std::source_location loc) {
    this_execution().visible("mod_timer", timer, loc);
    const int was = timer->armed;
    if (!timer->shut_down) arm(timer, current());
    return observed(was);
}

void add_timer(timer_list* timer, std::source_location loc) {
    this_execution().visible("add_timer", timer, loc);
    if (timer->armed) {
        this_execution().fail(ViolationKind::check_failed, "add-timer-pending",
                              "WARNING: add_timer(" + timer->name() + ") of a pending timer", loc);
        return;
    }
    if (!timer->shut_down) arm(timer, current());
}

int timer_delete(timer_list* timer, std::source_location loc) {
    this_execution().visible("timer_delete", timer, loc);
    return observed(disarm(timer));
}

int del_timer(timer_list* timer, std::source_location loc) {
    this_execution().visible("del_timer", timer, loc);
    return observed(disarm(timer));
}

int timer_delete_sync(timer_list* timer, std::source_location loc) {
    return delete_sync("timer_delete_sync", timer, false, loc);
}

int del_timer_sync(timer_list* timer, std::source_location loc) {
    return delete_sync("del_timer_sync", timer, false, loc);
}

int timer_shutdown_sync(timer_list* timer, std::source_location loc) {
    return delete_sync("timer_shutdown_sync", timer, true, loc);
}

bool timer_pending(const timer_list* timer, std::source_location loc) {
    this_execution().visible_read("timer_pending", timer, loc);
    this_execution().note(timer->armed);
    return observed(timer->armed);
}

} // namespace lockcheck::detail
