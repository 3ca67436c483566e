// Interrupt contexts: hardirq handlers (request_irq()), softirqs (open_softirq(),
// raise_softirq()), and what process context does about them (local_irq_*, local_bh_*, the
// in_*() tests). A handler is a task of its own, bound to a CPU: it may run at any step at
// which that CPU takes interrupts (softirqs), interrupting whatever runs there, which cannot go
// on until it returns; it runs with preemption off, so sleeping there is reported, and a
// handler that spins on a lock the task it interrupted holds is the self-deadlock the kernel
// would hang on. irqs_off and bh_disabled are the task's own (its CPU's while it runs: a
// task with either cannot be preempted).
#pragma once

#include <cstdint>
#include <source_location>

#include "task.hpp"

namespace lockcheck::detail {

// task_struct::context.
enum irq_context : std::uint8_t { IN_TASK = 0, IN_SOFTIRQ = 1, IN_HARDIRQ = 2 };

enum irqreturn_t { IRQ_NONE = 0, IRQ_HANDLED = 1, IRQ_WAKE_THREAD = 2 };
using irq_handler_t = irqreturn_t (*)(int irq, void* dev_id);

// Set-up: `handler` serves interrupt line `irq` (flags and name as the kernel's; the name
// shows in traces). The line fires where irq_may_fire() says. Returns 0.
int request_irq(unsigned int irq, irq_handler_t handler, unsigned long flags, const char* name,
                void* dev, std::source_location loc = std::source_location::current());
// Set-up, the model's hardware: line `irq` may fire on `cpu` up to `times` times, each at any
// step at which that CPU takes interrupts (the search tries every such step, and none).
void irq_may_fire(unsigned int irq, int cpu = 0, int times = 1,
                  std::source_location loc = std::source_location::current());
// The same, but it fires exactly `times` times (a device that completes the requests it was
// given): an execution does not end before it has, and one in which it cannot is a hang.
void irq_fires(unsigned int irq, int cpu = 0, int times = 1,
               std::source_location loc = std::source_location::current());

// The kernel's softirq vectors, in the order __do_softirq() serves them.
enum {
    HI_SOFTIRQ = 0,
    TIMER_SOFTIRQ,
    NET_TX_SOFTIRQ,
    NET_RX_SOFTIRQ,
    BLOCK_SOFTIRQ,
    IRQ_POLL_SOFTIRQ,
    TASKLET_SOFTIRQ,
    SCHED_SOFTIRQ,
    HRTIMER_SOFTIRQ,
    RCU_SOFTIRQ,
    NR_SOFTIRQS
};
// Set-up: `action` serves softirq `nr` on every CPU. Call set_nr_cpus() first.
void open_softirq(int nr, void (*action)());
// Marks softirq `nr` pending on the running task's CPU: it runs there once nothing holds
// bottom halves off (at the end of the hardirq that raised it, or later, as ksoftirqd would).
void raise_softirq(unsigned int nr, std::source_location loc = std::source_location::current());
void raise_softirq_irqoff(unsigned int nr,
                          std::source_location loc = std::source_location::current());

// Each a scheduling point: whether an interrupt can come between two steps depends on them.
void local_irq_disable(std::source_location loc = std::source_location::current());
void local_irq_enable(std::source_location loc = std::source_location::current());
// The kernel's macro assigns `flags`; so does this.
void local_irq_save(unsigned long& flags,
                    std::source_location loc = std::source_location::current());
void local_irq_restore(unsigned long flags,
                       std::source_location loc = std::source_location::current());
void local_bh_disable(std::source_location loc = std::source_location::current());
void local_bh_enable(std::source_location loc = std::source_location::current());

// The running task's context; no scheduling point (they read its own state).
bool in_hardirq();
bool in_irq();
bool in_serving_softirq();
bool in_softirq(); // serving a softirq, or bottom halves disabled
bool in_interrupt();
bool in_task();
bool irqs_disabled();
bool in_atomic();

// --- for the primitives (spin_lock_irq and the like) ---
// At the step of `op`: the running task turns interrupts off, in a section of their own.
// Returns what local_irq_save() returns.
unsigned long irq_section_begin(task_struct* me);
// At the step of `op`, which ends such a section: restores `flags` (local_irq_restore()) or,
// with `enable`, turns interrupts back on; either is a finding if an enclosing section
// still needs them off, or `flags` are none local_irq_save() returned.
void irq_section_end(task_struct* me, const char* op, const Object* obj, unsigned long flags,
                     bool enable, std::source_location loc);
void bh_disable(task_struct* me);
// `op` at `loc` turns bottom halves back on (the outermost local_bh_enable()).
void bh_enable(task_struct* me, const char* op, std::source_location loc);
// Why the running task may not sleep or be preempted: "holding spinlock l", "in hardirq
// context", ...; empty if it may.
std::string atomic_reason(const task_struct* me);
// A task that moved to `cpu` (resume_on_any_cpu()) finds its handler there, if one runs.
void joined_cpu(task_struct* me);
// Softirq work that is due without being raised (armed timers, model/timer.cpp): `due(cpu,
// softirq)`, whether vector `nr` has work on `cpu` now, for the softirq context `softirq` of that
// CPU; `owed(cpu)`, whether that work must be done before the execution ends. A due vector's
// action runs once per softirq run. softirq_changed() after either may have changed.
void softirq_due(unsigned nr, bool (*due)(int cpu, const Task& softirq), bool (*owed)(int cpu));
void softirq_changed(int cpu);
// Whether the model has softirq contexts (open_softirq() or timer_setup() at set-up).
bool softirq_contexts();

} // namespace lockcheck::detail
