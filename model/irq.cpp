// Hardirq and softirq handlers as tasks bound to a CPU, and the interrupt state of process
// context (irq.hpp).
#include "irq.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "lockdep.hpp"
#include "percpu.hpp"
#include "rcu.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

// What local_irq_save() returns: x86's interrupt flag (X86_EFLAGS_IF) in a word marked as
// saved, so that local_irq_restore() can tell flags it never returned (0, an uninitialised
// variable) from saved ones.
constexpr unsigned long kIrqFlagsSaved = 0x5a5a0000UL;
constexpr unsigned long kIrqFlagsEnabled = 0x200UL;

// A CPU as interrupts see it: the handlers running there and the softirqs pending. Every
// handler's entry and exit is a step on it, and so is each change of a task's interrupt state.
struct irq_cpu final : Object {
    irq_cpu(std::string name, int nr) : Object(std::move(name)), nr(nr) { unwatched(); }
    void describe(std::string& out) const override {
        const task_struct* handler = hardirq ? hardirq : softirq;
        if (handler) {
            const Task* under = hardirq ? under_hardirq : under_softirq;
            out += (hardirq ? "in hardirq " : "in softirq ") + handler->name() + ", interrupting " +
                   (under ? under->name() : std::string("no task"));
        } else {
            out += "in process context";
        }
        if (pending) out += ", softirqs pending";
    }
    void fingerprint(StateHasher& h) const override {
        h.add(hardirq ? hardirq->id() : kNoTask);
        h.add(softirq ? softirq->id() : kNoTask);
        h.add(pending);
    }
    int nr;
    task_struct* hardirq = nullptr;      // the hardirq handler running here
    task_struct* softirq = nullptr;      // the softirq context running here (perhaps interrupted)
    const Task* under_hardirq = nullptr; // what each handler interrupted, for traces
    const Task* under_softirq = nullptr;
    std::uint32_t pending = 0;           // raised softirqs, by vector
    task_struct* softirq_task = nullptr; // the context that serves them here
    const struct irq_state* state = nullptr;
};

// Softirq work that is not raised but due (softirq_due()).
struct softirq_source {
    bool (*due)(int cpu, const Task& softirq) = nullptr;
    bool (*owed)(int cpu) = nullptr;
};

struct irq_line {
    irq_handler_t handler = nullptr;
    void* dev = nullptr;
    std::string name;
};

struct irq_state {
    std::vector<std::unique_ptr<irq_cpu>> cpus;
    std::map<unsigned, irq_line> lines;
    std::array<void (*)(), NR_SOFTIRQS> actions{};
    std::array<softirq_source, NR_SOFTIRQS> sources{};
    std::uint32_t sourced = 0; // the vectors with a source
    std::source_location softirq_loc{};

    irq_cpu& cpu(int nr) {
        while (cpus.size() <= static_cast<std::size_t>(nr)) {
            cpus.push_back(std::make_unique<irq_cpu>("cpu" + std::to_string(cpus.size()),
                                                     static_cast<int>(cpus.size())));
            cpus.back()->state = this;
        }
        return *cpus[static_cast<std::size_t>(nr)];
    }
    // The vectors with work due on `cpu` without being raised.
    std::uint32_t due(const irq_cpu& cpu, const Task& softirq) const {
        std::uint32_t vectors = 0;
        for (std::uint32_t v = sourced; v; v &= v - 1)
            if (sources[static_cast<std::size_t>(std::countr_zero(v))].due(cpu.nr, softirq))
                vectors |= v & -v;
        return vectors;
    }
    bool owed(const irq_cpu& cpu) const {
        for (std::uint32_t v = sourced; v; v &= v - 1)
            if (sources[static_cast<std::size_t>(std::countr_zero(v))].owed(cpu.nr)) return true;
        return false;
    }
};

irq_state& state() {
    return this_execution().local<irq_state>();
}

const task_struct& as_task(const std::unique_ptr<Task>& t) {
    return static_cast<const task_struct&>(*t);
}

// Whether a task of `cpu` keeps interrupts (or, with `bh`, bottom halves) off there.
bool held_off(int cpu, bool bh) {
    for (const auto& tp : Execution::current().tasks()) {
        const task_struct& t = as_task(tp);
        if (!t.finished() && t.cpu() == cpu && (t.irqs_off || (bh && t.bh_disabled))) return true;
    }
    return false;
}

bool hardirq_can_fire(const Object* obj, const Task&) {
    const auto& cpu = *static_cast<const irq_cpu*>(obj);
    return !cpu.hardirq && !held_off(cpu.nr, false);
}

bool softirq_can_run(const Object* obj, const Task& me) {
    const auto& cpu = *static_cast<const irq_cpu*>(obj);
    return (cpu.pending || (cpu.state->sourced && cpu.state->due(cpu, me))) && !cpu.hardirq &&
           !cpu.softirq && !held_off(cpu.nr, true);
}

// The task the handler finds running on the CPU: an interrupted softirq, else the task of the
// CPU that took a step last.
const Task* running_on(const irq_cpu& cpu, const task_struct* handler) {
    if (cpu.softirq) return cpu.softirq;
    const Task* last = nullptr;
    for (const auto& tp : Execution::current().tasks()) {
        const task_struct& t = as_task(tp);
        if (&t == handler || t.finished() || t.context != IN_TASK || t.cpu() != cpu.nr) continue;
        if (!last || t.last_step() > last->last_step()) last = &t;
    }
    return last;
}

// A handler's scheduling point before it enters, enabled by `can_enter`; `idle`: the execution
// may end with it waiting there. One that may or may not come before the end
// (`races_every_step`) depends on every step, as the end, which only it changes, may come
// before any of them; else on its CPU's steps alone. The handler is an implicit RCU read-side
// section (`read_side`: Operation::read_side).
void await_entry(const char* op, irq_cpu& cpu, std::source_location loc, EnabledFn can_enter,
                 bool idle, bool races_every_step, ReadSide read_side) {
    task_struct* me = current();
    me->set_idle(idle);
    if (races_every_step)
        this_execution().visible_global(op, &cpu, loc, can_enter, {}, read_side);
    else
        this_execution().visible_cpu_wide(op, &cpu, loc, can_enter, read_side);
    me->set_idle(false);
}

// The handler `me` (its task's context is that of its handler for good) starts on `cpu`: the
// tasks there, and a softirq a hardirq comes in on, wait until it returns. Other handlers of
// the CPU are kept out by their own entries' conditions.
void enter(task_struct* me, irq_cpu& cpu) {
    ++me->preempt_count;
    if (me->context == IN_HARDIRQ) {
        cpu.under_hardirq = running_on(cpu, me);
        me->irqs_off = true;
        me->irq_sections = 1; // the handler's own: it must not turn interrupts on
        cpu.hardirq = me;
        if (cpu.softirq && !cpu.softirq->interrupted_by()) cpu.softirq->set_interrupted_by(me);
    } else {
        cpu.under_softirq = running_on(cpu, me);
        cpu.softirq = me;
    }
    rcu_atomic_changed(me);
    const Task* under = me->context == IN_HARDIRQ ? cpu.under_hardirq : cpu.under_softirq;
    if (under && weak_memory::on()) [[unlikely]]
        weak_memory::interrupt_entered(*me, *under);
    for (const auto& tp : Execution::current().tasks()) {
        auto& t = static_cast<task_struct&>(*tp);
        if (t.context == IN_TASK && !t.finished() && t.cpu() == cpu.nr && !t.interrupted_by())
            t.set_interrupted_by(me);
    }
}

void leave(task_struct* me, irq_cpu& cpu) {
    for (const auto& tp : Execution::current().tasks())
        if (tp->interrupted_by() == me) tp->set_interrupted_by(nullptr);
    const Task* under = cpu.hardirq == me ? cpu.under_hardirq : cpu.under_softirq;
    if (under && !under->finished() && weak_memory::on()) [[unlikely]]
        weak_memory::interrupt_left(*me, *under);
    if (cpu.hardirq == me)
        cpu.hardirq = nullptr;
    else
        cpu.softirq = nullptr;
    --me->preempt_count;
    me->irqs_off = false;
    me->irq_sections = 0;
    rcu_atomic_changed(me);
}

// A handler that returns holding a lock leaves it held for ever: reported as a task's exit is.
void returned(task_struct* me) {
    if (me->lockdep_depth) me->on_exit();
}

void softirq_context(irq_cpu& cpu) {
    task_struct* me = current();
    Execution& ex = this_execution();
    const std::source_location loc = state().softirq_loc;
    me->context = IN_SOFTIRQ;
    for (;;) {
        // Idle where work may fall due without being raised (a periodic timer), it may run or
        // not before the execution ends; raised work only ever makes it run.
        const bool idle = cpu.pending == 0 && !state().owed(cpu);
        // RCU callbacks, work due without being raised, are due once their readers left.
        const bool callbacks = state().sourced & (1U << RCU_SOFTIRQ);
        await_entry("softirq_entry", cpu, loc, &softirq_can_run, idle, idle && state().sourced,
                    callbacks ? ReadSide(read_side_change | read_side_census) : read_side_change);
        enter(me, cpu);
        if (cpu.pending && weak_memory::on()) [[unlikely]]
            weak_memory::taken_over(&cpu);
        // __do_softirq(): the pending vectors in order, again while handlers raise more; a
        // vector due without being raised, once (one expired timer a run: another may expire
        // after any later step).
        std::uint32_t due = state().due(cpu, *me) & ~cpu.pending;
        while (cpu.pending | due) {
            const int nr = std::countr_zero(cpu.pending | due);
            cpu.pending &= ~(1U << nr);
            due &= ~(1U << nr);
            if (void (*action)() = state().actions[static_cast<std::size_t>(nr)]) action();
        }
        ex.visible_cpu_wide("softirq_exit", &cpu, loc, nullptr, read_side_change);
        leave(me, cpu);
        returned(me);
    }
}

irq_cpu& my_cpu() {
    return state().cpu(current()->cpu());
}

void section_violation(const char* property, std::string message, std::source_location loc) {
    this_execution().fail(ViolationKind::irq_flags, property, std::move(message), loc);
}

} // namespace

int request_irq(unsigned int irq, irq_handler_t handler, unsigned long, const char* name, void* dev,
                std::source_location) {
    if (this_execution().in_task())
        throw std::invalid_argument("request_irq(" + std::to_string(irq) +
                                    "): lines are requested at set-up");
    state().lines[irq] = irq_line{handler, dev, name};
    return 0;
}

namespace {

// irq_may_fire() and irq_fires(): `optional`, whether the execution may end before it fired.
void declare_firing(const char* what, unsigned int irq, int cpu, int times, bool optional,
                    std::source_location loc) {
    irq_state& s = state();
    const auto line = s.lines.find(irq);
    if (line == s.lines.end())
        throw std::invalid_argument(std::string(what) + "(" + std::to_string(irq) +
                                    "): no request_irq() for that line");
    if (cpu < 0 || cpu >= nr_cpu_ids() || times < 1)
        throw std::invalid_argument(std::string(what) + "(" + std::to_string(irq) + ", " +
                                    std::to_string(cpu) + ", " + std::to_string(times) +
                                    "): CPU 0.." + std::to_string(nr_cpu_ids() - 1) +
                                    ", at least once");
    irq_cpu* where = &s.cpu(cpu);
    const irq_line handler = line->second;
    spawn_on(cpu, "irq/" + std::to_string(irq) + "-" + handler.name,
             [where, handler, irq, times, optional, loc] {
                 task_struct* me = current();
                 me->context = IN_HARDIRQ;
                 Execution& ex = this_execution();
                 for (int i = 0; i < times; ++i) {
                     await_entry("irq_handler_entry", *where, loc, &hardirq_can_fire, optional,
                                 optional, read_side_change);
                     enter(me, *where);
                     handler.handler(static_cast<int>(irq), handler.dev);
                     ex.visible_cpu_wide("irq_handler_exit", where, loc, nullptr, read_side_change);
                     leave(me, *where);
                     returned(me);
                 }
             });
}

} // namespace

void irq_may_fire(unsigned int irq, int cpu, int times, std::source_location loc) {
    declare_firing("irq_may_fire", irq, cpu, times, true, loc);
}

void irq_fires(unsigned int irq, int cpu, int times, std::source_location loc) {
    declare_firing("irq_fires", irq, cpu, times, false, loc);
}

void open_softirq(int nr, void (*action)()) {
    if (nr < 0 || nr >= NR_SOFTIRQS)
        throw std::invalid_argument("open_softirq(" + std::to_string(nr) + "): vectors are 0.." +
                                    std::to_string(NR_SOFTIRQS - 1));
    irq_state& s = state();
    s.actions[static_cast<std::size_t>(nr)] = action;
    for (int cpu = 0; cpu < nr_cpu_ids(); ++cpu) {
        irq_cpu& c = s.cpu(cpu);
        if (c.softirq_task) continue;
        spawn_on(cpu, "softirq/" + std::to_string(cpu), [&c] { softirq_context(c); });
        c.softirq_task = static_cast<task_struct*>(this_execution().tasks().back().get());
    }
}

void softirq_due(unsigned nr, bool (*due)(int cpu, const Task& softirq), bool (*owed)(int cpu)) {
    irq_state& s = state();
    s.sources[nr] = softirq_source{due, owed};
    s.sourced |= 1U << nr;
}

bool softirq_contexts() {
    const irq_state* s = this_execution().find_local<irq_state>();
    return s && std::any_of(s->cpus.begin(), s->cpus.end(),
                            [](const auto& c) { return c->softirq_task != nullptr; });
}

void softirq_changed(int cpu) {
    irq_state& s = state();
    irq_cpu& c = s.cpu(cpu);
    // A context that runs sets its own when it next waits.
    if (!c.softirq_task || c.softirq == c.softirq_task) return;
    if (c.pending == 0 && !s.owed(c))
        c.softirq_task->set_idle(true);
    else
        c.softirq_task->wake();
}

void raise_softirq_irqoff(unsigned int nr, std::source_location loc) {
    irq_cpu& cpu = my_cpu();
    this_execution().visible("raise_softirq", &cpu, loc, nullptr, OpArgs{{nr, 0}, 1});
    if (nr >= NR_SOFTIRQS || !state().actions[nr])
        throw std::invalid_argument("raise_softirq(" + std::to_string(nr) +
                                    "): no open_softirq() for that vector");
    cpu.pending |= 1U << nr;
    cpu.softirq_task->set_idle(false);
    if (weak_memory::on()) [[unlikely]]
        weak_memory::handed_off(&cpu);
}

void raise_softirq(unsigned int nr, std::source_location loc) {
    raise_softirq_irqoff(nr, loc);
}

unsigned long irq_section_begin(task_struct* me) {
    const unsigned long flags = kIrqFlagsSaved | (me->irqs_off ? 0 : kIrqFlagsEnabled);
    me->irqs_off = true;
    ++me->irq_sections;
    rcu_atomic_changed(me);
    return flags;
}

void irq_section_end(task_struct* me, const char* op, const Object* obj, unsigned long flags,
                     bool enable, std::source_location loc) {
    std::string call = std::string(op) + "(" + (obj ? obj->name() : "") + ")";
    if (!enable && (flags & ~kIrqFlagsEnabled) != kIrqFlagsSaved) {
        section_violation("irq-restore-unsaved",
                          call + " in " + me->name() + " restores flags " + std::to_string(flags) +
                              " that no local_irq_save() returned",
                          loc);
        return;
    }
    if (me->irq_sections) --me->irq_sections;
    const bool on = enable || (flags & kIrqFlagsEnabled);
    if (on && me->irq_sections) {
        section_violation("irq-enabled-in-section",
                          call + " turns interrupts on in " + me->name() +
                              (me->context == IN_HARDIRQ
                                   ? std::string(", a hardirq handler, which runs with them off")
                                   : std::string(" inside an enclosing local_irq_save() or "
                                                 "spin_lock_irqsave() that needs them off")),
                          loc);
        return;
    }
    const bool was_off = me->irqs_off;
    me->irqs_off = !on;
    rcu_atomic_changed(me);
    // Locks held across the enable are taken with interrupts on, to lockdep.
    if (was_off && on && me->lockdep_depth) lockdep_hardirqs_on(me, op, loc);
}

void bh_disable(task_struct* me) {
    ++me->bh_disabled;
    ++me->preempt_count;
    rcu_atomic_changed(me);
}

void bh_enable(task_struct* me, const char* op, std::source_location loc) {
    if (!me->bh_disabled) return;
    --me->bh_disabled;
    --me->preempt_count;
    rcu_atomic_changed(me);
    if (!me->bh_disabled && me->lockdep_depth) lockdep_softirqs_on(me, op, loc);
}

void local_irq_disable(std::source_location loc) {
    this_execution().visible("local_irq_disable", &my_cpu(), loc, nullptr, {}, read_side_change);
    irq_section_begin(current());
}

void local_irq_enable(std::source_location loc) {
    irq_cpu& cpu = my_cpu();
    this_execution().visible("local_irq_enable", &cpu, loc, nullptr, {}, read_side_change);
    irq_section_end(current(), "local_irq_enable", nullptr, 0, true, loc);
}

void local_irq_save(unsigned long& flags, std::source_location loc) {
    this_execution().visible("local_irq_save", &my_cpu(), loc, nullptr, {}, read_side_change);
    flags = irq_section_begin(current());
}

void local_irq_restore(unsigned long flags, std::source_location loc) {
    this_execution().visible("local_irq_restore", &my_cpu(), loc, nullptr, {}, read_side_change);
    irq_section_end(current(), "local_irq_restore", nullptr, flags, false, loc);
}

void local_bh_disable(std::source_location loc) {
    this_execution().visible("local_bh_disable", &my_cpu(), loc, nullptr, {}, read_side_change);
    bh_disable(current());
}

void local_bh_enable(std::source_location loc) {
    this_execution().visible("local_bh_enable", &my_cpu(), loc, nullptr, {}, read_side_change);
    bh_enable(current(), "local_bh_enable", loc);
}

bool in_hardirq() {
    return current()->context == IN_HARDIRQ;
}
bool in_irq() {
    return in_hardirq();
}
bool in_serving_softirq() {
    return current()->context == IN_SOFTIRQ;
}
bool in_softirq() {
    return in_serving_softirq() || current()->bh_disabled;
}
bool in_interrupt() {
    return current()->context != IN_TASK || current()->bh_disabled;
}
bool in_task() {
    return !in_interrupt();
}
bool irqs_disabled() {
    return current()->irqs_off;
}
bool in_atomic() {
    return current()->preempt_count != 0;
}

std::string atomic_reason(const task_struct* me) {
    if (me->context == IN_HARDIRQ) return "in hardirq context";
    if (me->context == IN_SOFTIRQ) return "in softirq context";
    if (const held_lock* h = me->find_held("spinlock")) return "holding " + h->instance->name();
    if (me->rcu_nesting[0])
        return "inside rcu_read_lock(), RCU nest depth " + std::to_string(me->rcu_nesting[0]);
    if (me->rcu_nesting[1]) return "inside rcu_read_lock_bh()";
    if (me->rcu_nesting[2]) return "inside rcu_read_lock_sched()";
    if (me->bh_disabled) return "with bottom halves disabled";
    if (me->preempt_count) return "with preemption disabled";
    if (me->irqs_off) return "with interrupts disabled";
    return {};
}

void joined_cpu(task_struct* me) {
    irq_state* s = this_execution().find_local<irq_state>();
    if (!s || static_cast<std::size_t>(me->cpu()) >= s->cpus.size()) return;
    const irq_cpu& cpu = *s->cpus[static_cast<std::size_t>(me->cpu())];
    // The outermost handler: the task goes on once it returns, as those it interrupted do.
    if (const task_struct* handler = cpu.softirq ? cpu.softirq : cpu.hardirq)
        me->set_interrupted_by(handler);
}

} // namespace lockcheck::detail
