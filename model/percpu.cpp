// CPUs, the online mask, hotplug and preemption points.
#include "percpu.hpp"

#include <bit>
#include <stdexcept>

#include "irq.hpp"
#include "rcu.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

// A CPU as the tasks on it share it under --memory-model lkmm (the kernel's struct rq,
// DEFINE_PER_CPU(runqueues)): while one of them has preemption disabled no other runs there, so
// another's preempt_disable() there waits. The model lets the tasks of one CPU interleave at
// any other step, as preemption would.
struct runqueue final : Object {
    explicit runqueue(std::string name) : Object(std::move(name)) {}
    void describe(std::string& out) const override {
        out += atomic ? "preemption disabled by " + atomic->name() : "preemptible";
    }
    void fingerprint(StateHasher& h) const override {
        h.add(atomic ? static_cast<std::uint64_t>(atomic->id()) + 1 : 0);
    }
    const task_struct* atomic = nullptr; // whose preempt_disable() holds the CPU
};

struct cpus {
    int nr = 1;
    std::unique_ptr<cpumask> online;
    std::vector<std::unique_ptr<runqueue>> runqueues;
    std::vector<std::pair<Object*, cpu_dead_fn>> dead_callbacks;

    runqueue& rq(int cpu) {
        while (runqueues.size() < static_cast<std::size_t>(nr))
            runqueues.push_back(
                std::make_unique<runqueue>("runqueues@cpu" + std::to_string(runqueues.size())));
        return *runqueues[static_cast<std::size_t>(cpu)];
    }

    cpumask& mask() {
        if (!online) {
            online = std::make_unique<cpumask>("cpu_online_mask");
            online->bits = (1UL << nr) - 1;
        }
        return *online;
    }
};

cpus& state() {
    return this_execution().local<cpus>();
}

// takedown_cpu() runs under stop_machine(), which cannot start while any task on the CPU
// has preemption disabled.
bool no_atomic_section_on(const Object*, const Task& t) {
    const int cpu = static_cast<int>(t.pending().args.v[0]);
    for (const auto& other : Execution::current().tasks()) {
        const auto* task = static_cast<const task_struct*>(other.get());
        if (task != &t && !task->finished() && task->cpu() == cpu && task->preempt_count != 0)
            return false;
    }
    return true;
}

// preempt_disable() may go on once no other task holds the CPU: the holder left atomic
// context (preempt_enable(), or a spin_unlock() that ended it), or finished.
bool cpu_not_atomic(const Object* obj, const Task& t) {
    const task_struct* holder = static_cast<const runqueue*>(obj)->atomic;
    return !holder || holder == &t || holder->finished() || holder->preempt_count == 0;
}

} // namespace

void cpumask::describe(std::string& out) const {
    out += "{";
    for (unsigned long b = bits; b; b &= b - 1)
        out += (b == bits ? "" : ",") + std::to_string(std::countr_zero(b));
    out += "}";
}

void set_nr_cpus(int n) {
    // A set-up error, reported by the CLI as such (the online mask is one word).
    if (n < 1 || n > kMaxCpus)
        throw std::invalid_argument("set_nr_cpus(" + std::to_string(n) +
                                    "): a model has 1 to 64 CPUs");
    cpus& c = state();
    c.nr = n;
    c.mask().bits = (1UL << n) - 1;
}

int nr_cpu_ids() {
    return state().nr;
}

const cpumask* cpu_online_mask() {
    return &state().mask();
}

bool cpumask_test_cpu(int cpu, const cpumask* mask) {
    Execution::peeked(*mask);
    return (mask->bits >> cpu) & 1;
}

namespace {

// The online mask's bits as a reader sees them: under lkmm, a read the kernel makes plainly
// (test_bit(), find_next_bit()) of a word hotplug changes with set_bit() and clear_bit().
// Readers that hold no cpus_read_lock() race with it by design, so the read counts as marked
// (no data race is reported); it may see an older mask where LKMM allows, which after
// remove_cpu()'s stop_machine() it does not.
unsigned long online_bits(const cpumask& mask) {
    if (!weak_memory::on()) return mask.bits;
    return static_cast<unsigned long>(
        weak_memory::load(mask, static_cast<std::int64_t>(mask.bits), Ordering::relaxed));
}

// set_cpu_online(): cpumask_set_cpu() or cpumask_clear_cpu(), under lkmm an atomic bit
// operation that, inside takedown_cpu()'s stop_machine() or the bring-up's handshake with
// the new CPU, is ordered as a full barrier would order it.
void set_online(cpumask& mask, int cpu, bool online) {
    const unsigned long bit = 1UL << cpu;
    const unsigned long bits = online ? mask.bits | bit : mask.bits & ~bit;
    if (weak_memory::on())
        weak_memory::online_mask_changed(mask, static_cast<std::int64_t>(mask.bits),
                                         static_cast<std::int64_t>(bits));
    mask.bits = bits;
}

} // namespace

bool cpu_online(int cpu, std::source_location loc) {
    const cpumask* mask = cpu_online_mask();
    this_execution().visible_read("cpu_online", mask, loc, OpArgs{{cpu, 0}, 1});
    const bool online = (online_bits(*mask) >> cpu) & 1;
    this_execution().note(online);
    return observed(online);
}

int cpumask_next(int n, const cpumask* mask, std::source_location loc) {
    this_execution().visible_read("cpumask_next", mask, loc, OpArgs{{n, 0}, 1});
    const unsigned long above = n + 1 >= 64 ? 0 : online_bits(*mask) & (~0UL << (n + 1));
    const int next = above ? std::countr_zero(above) : nr_cpu_ids();
    this_execution().note(next);
    return observed(next);
}

void remove_cpu(int cpu, std::source_location loc) {
    cpus& c = state();
    cpumask& mask = c.mask();
    // Global: it waits for every task's preemption count and moves tasks off the CPU.
    this_execution().visible_global("remove_cpu", &mask, loc, &no_atomic_section_on,
                                    OpArgs{{cpu, 0}, 1});
    // Offline already, or the last CPU: refused, as cpu_down_maps_locked() decides under
    // cpu_add_remove_lock, which orders it after every earlier hotplug operation.
    if (!((mask.bits >> cpu) & 1) || std::popcount(mask.bits) == 1) {
        if (weak_memory::on()) weak_memory::orders_nothing();
        this_execution().nothing_written();
        return;
    }
    if (weak_memory::on()) weak_memory::stop_machine_entered();
    set_online(mask, cpu, false);
    const int fallback = std::countr_zero(mask.bits);
    for (const auto& t : this_execution().tasks()) {
        auto* task = static_cast<task_struct*>(t.get());
        if (task->cpu() == cpu && !task->finished()) task->set_cpu(fallback);
    }
    if (weak_memory::on()) weak_memory::stop_machine_left();
    // The CPU-dead callbacks, on the control CPU after stop_machine() (CPUHP_..._DEAD states).
    for (auto& [owner, dead] : c.dead_callbacks)
        dead(owner, cpu);
}

void add_cpu(int cpu, std::source_location loc) {
    cpumask& mask = state().mask();
    // Global: tasks read the online mask without a scheduling point when they migrate.
    this_execution().visible_global("add_cpu", &mask, loc, nullptr, OpArgs{{cpu, 0}, 1});
    set_online(mask, cpu, true);
}

int raw_smp_processor_id() {
    return observed(current()->cpu());
}

int smp_processor_id(std::source_location loc) {
    task_struct* me = current();
    // As check_preemption_disabled(): with interrupts off the task cannot be preempted either.
    if (me->preempt_count == 0 && !me->irqs_off)
        this_execution().fail_attempt(
            Operation{.name = "smp_processor_id", .location = loc}, ViolationKind::preempt,
            "smp-processor-id-preemptible",
            "BUG: using smp_processor_id() in preemptible code: " + me->name() +
                " (this_cpu_ptr() without preempt_disable())");
    return observed(me->cpu());
}

void preempt_disable(std::source_location loc) {
    task_struct* me = current();
    // Nested, or in a spinlock's atomic context already. Under sc the tasks of a CPU may
    // interleave in atomic context: more interleavings than the kernel has, never fewer.
    if (me->preempt_count != 0 || !weak_memory::on()) {
        ++me->preempt_count;
        rcu_atomic_changed(me);
        return;
    }
    cpus& c = state();
    // Hotplug may move the task off a dying CPU while it waits here: then it waits again, for
    // the CPU it is on now.
    int cpu = -1;
    while (cpu != me->cpu()) {
        cpu = me->cpu();
        this_execution().visible("preempt_disable", &c.rq(cpu), loc, &cpu_not_atomic, {},
                                 read_side_change);
    }
    runqueue& rq = c.rq(cpu);
    rq.atomic = me;
    ++me->preempt_count;
    rcu_atomic_changed(me);
    // Another task's atomic section on this CPU before it is ordered before this one by the
    // context switch between them.
    weak_memory::cpu_switched(rq);
}

void preempt_enable(std::source_location loc) {
    task_struct* me = current();
    // The runqueue is held only under lkmm, by the outermost preempt_disable().
    if (me->preempt_count == 1 && weak_memory::on()) [[unlikely]] {
        runqueue& rq = state().rq(me->cpu());
        if (rq.atomic == me) {
            // Still atomic while other tasks may run (the scheduling point): none takes the CPU.
            this_execution().visible("preempt_enable", &rq, loc, nullptr, {}, read_side_change);
            rq.atomic = nullptr;
            weak_memory::lock_released(rq);
            me->preempt_count = 0;
            rcu_atomic_changed(me);
            // This step is the preemption point too: hotplug, which changes where it may
            // resume, is a global step, ordered against it.
            resume_on_any_cpu();
            return;
        }
    }
    --me->preempt_count;
    rcu_atomic_changed(me);
    if (me->preempt_count == 0) preempt_point("preempt_enable", loc);
}

void cond_resched(std::source_location loc) {
    preempt_point("cond_resched", loc);
}

void preempt_point(const char* op, std::source_location loc) {
    cpus& c = state();
    if (c.nr <= 1 || current()->preempt_count != 0 || current()->irqs_off) return;
    this_execution().visible_read(op, &c.mask(), loc);
    resume_on_any_cpu();
}

void resume_on_any_cpu() {
    cpus& c = state();
    task_struct* me = current();
    if (c.nr <= 1 || me->preempt_count != 0 || me->irqs_off || (me->flags & PF_NO_SETAFFINITY))
        return;
    // Choice 0 stays; the others are the remaining online CPUs in order.
    std::vector<int> where{me->cpu()};
    for (unsigned long b = c.mask().bits; b; b &= b - 1)
        if (std::countr_zero(b) != me->cpu()) where.push_back(std::countr_zero(b));
    const int was = me->cpu();
    me->set_cpu(where[this_execution().choose(static_cast<std::uint32_t>(where.size()),
                                              /*kept_in_state=*/true)]);
    this_execution().note(me->cpu());
    if (me->cpu() != was) joined_cpu(me);
    if (weak_memory::on()) [[unlikely]]
        weak_memory::scheduled_on(me->cpu() != was, me->cpu());
}

std::uint16_t percpu_section(int cpu) {
    const task_struct* me = current();
    if (me->cpu() != cpu) return 0;
    // What the task keeps out of its CPU: every context (interrupts off, or it is a hardirq
    // handler), softirqs and tasks (bottom halves off, or it is a softirq), other tasks
    // (preemption off, as a spinlock also turns it off); or nothing.
    int excludes = -1;
    if (me->irqs_off || me->context == IN_HARDIRQ)
        excludes = IN_HARDIRQ;
    else if (me->bh_disabled || me->context == IN_SOFTIRQ)
        excludes = IN_SOFTIRQ;
    else if (me->preempt_count)
        excludes = IN_TASK;
    return excludes < 0 ? 0 : cpu_section(cpu, me->context, excludes);
}

void owned_by_cpu(std::size_t first, int cpu) {
    const std::vector<Object*>& objects = this_execution().objects();
    for (std::size_t i = first; i < objects.size(); ++i)
        objects[i]->set_owner_cpu(cpu);
}

void cpuhp_setup_state(Object* owner, cpu_dead_fn dead) {
    state().dead_callbacks.emplace_back(owner, dead);
}

} // namespace lockcheck::detail
