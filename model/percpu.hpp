// The CPUs of a model and per-CPU data: set_nr_cpus() at set-up, tasks run on a CPU,
// this_cpu_ptr()/per_cpu_ptr(), preempt_disable()/preempt_enable(), CPU hotplug
// (remove_cpu/add_cpu change the online mask) and for_each_online_cpu/for_each_possible_cpu.
// this_cpu_ptr() in preemptible code is reported as CONFIG_DEBUG_PREEMPT reports it. A
// preemptible task may resume on another online CPU at a preemption point (preempt_enable,
// cond_resched, schedule): the search explores every CPU it could resume on.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "task.hpp"

namespace lockcheck::detail {

// The online mask: shared state that hotplug changes and for_each_online_cpu reads.
struct cpumask final : Object {
    explicit cpumask(std::string name) : Object(std::move(name)) {}
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override { h.add(bits); }
    unsigned long bits = 0;
};

// Set-up: the model has `n` possible CPUs, all online (one by default).
void set_nr_cpus(int n);
int nr_cpu_ids();
const cpumask* cpu_online_mask();
bool cpu_online(int cpu, std::source_location loc = std::source_location::current());
// Whether `cpu` is set in `mask`, without a scheduling point: for invariants and final checks.
bool cpumask_test_cpu(int cpu, const cpumask* mask);
// The next CPU set in `mask` after `n`, or nr_cpu_ids(): one read of the mask.
int cpumask_next(int n, const cpumask* mask,
                 std::source_location loc = std::source_location::current());

#define for_each_possible_cpu(cpu) for (int cpu = 0; cpu < ::lockcheck::detail::nr_cpu_ids(); ++cpu)
#define for_each_online_cpu(cpu)                                                                   \
    for (int cpu = -1;                                                                             \
         (cpu = ::lockcheck::detail::cpumask_next(cpu, ::lockcheck::detail::cpu_online_mask())) <  \
         ::lockcheck::detail::nr_cpu_ids();)

// CPU hotplug: takes `cpu` offline (its tasks move to the first online CPU and per-CPU
// counters fold its counts, as the kernel's CPU-dead callbacks do) or back online.
void remove_cpu(int cpu, std::source_location loc = std::source_location::current());
void add_cpu(int cpu, std::source_location loc = std::source_location::current());

int smp_processor_id(std::source_location loc = std::source_location::current());
int raw_smp_processor_id();
// Under --memory-model lkmm the outermost preempt_disable() is a scheduling point: it waits
// while another task on the CPU has preemption disabled (a CPU runs one task at a time, and
// the context switch orders the two), and the outermost preempt_enable() lets it go on.
void preempt_disable(std::source_location loc = std::source_location::current());
void preempt_enable(std::source_location loc = std::source_location::current());
void cond_resched(std::source_location loc = std::source_location::current());
// A voluntary preemption point of a preemptible task: it may resume on another online CPU.
void preempt_point(const char* op, std::source_location loc = std::source_location::current());
// Right after a scheduling point at which the task could be preempted (it slept in
// schedule()): lets the search resume it on any online CPU.
void resume_on_any_cpu();

// Called with the CPU going offline; per-CPU counters register one.
using cpu_dead_fn = void (*)(Object* owner, int cpu);
void cpuhp_setup_state(Object* owner, cpu_dead_fn dead);

// The section of `cpu` in which the running task accesses that CPU's data: 0 if it runs
// elsewhere (per_cpu_ptr() from another CPU) or could be preempted there; else its context and
// what it keeps out (Operation::cpu_section).
std::uint16_t percpu_section(int cpu);
// Marks the objects made since the execution had `first` as `cpu`'s per-CPU data.
void owned_by_cpu(std::size_t first, int cpu);

// One T per possible CPU, each named "<name>@cpu<N>" (T takes its name in its constructor).
// Every object a T is made of belongs to its CPU: the tasks of that CPU that cannot be
// preempted access it one at a time (race_detector.hpp).
template <class T> class percpu {
  public:
    explicit percpu(const std::string& name) {
        for (int cpu = 0; cpu < nr_cpu_ids(); ++cpu) {
            const std::size_t first = Execution::current().objects().size();
            per_cpu_.push_back(std::make_unique<T>(name + "@cpu" + std::to_string(cpu)));
            owned_by_cpu(first, cpu);
        }
    }
    T* at(int cpu) { return per_cpu_[static_cast<std::size_t>(cpu)].get(); }
    const T* at(int cpu) const { return per_cpu_[static_cast<std::size_t>(cpu)].get(); }

  private:
    std::vector<std::unique_ptr<T>> per_cpu_;
};

template <class T>
T* this_cpu_ptr(percpu<T>* ptr, std::source_location loc = std::source_location::current()) {
    return ptr->at(smp_processor_id(loc));
}
template <class T> T* per_cpu_ptr(percpu<T>* ptr, int cpu) {
    return ptr->at(cpu);
}

} // namespace lockcheck::detail
