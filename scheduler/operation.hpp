// Operation: the visible operation a task is about to perform, declared at its scheduling
// point. The scheduler asks `enabled` whether the operation can run now (a lock is free, a
// sleeper was woken); a task whose operation is not enabled is blocked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>

namespace lockcheck::detail {

class Object;
class Task;

// A plain function pointer, not std::function: the step must not allocate.
using EnabledFn = bool (*)(const Object* obj, const Task& task);

// Up to two integer arguments an operation shows beside its object (the bit of set_bit, the
// range of lock_extent); enabled tests may read them too.
struct OpArgs {
    std::int64_t v[2] = {0, 0};
    std::uint8_t n = 0;
    // The kernel's signature names the object first (atomic_set(v, i), lock_extent(tree,
    // start, end)); else the arguments come first (atomic_add(i, v), set_bit(nr, addr)).
    bool object_first = false;
};

// How an operation touches memory, for data-race detection (race_detector.hpp).
enum class DataAccess : std::uint8_t {
    sync,    // an operation of a synchronizing object (a lock, an atomic_t, a wait queue, a
             // completion, a list) or of none: it orders tasks, and never races
    plain,   // a plain load or store of a shared variable (shared<T>::read/write): it orders
             // nothing and races with a conflicting access of another task not ordered with it
    marked,  // READ_ONCE/WRITE_ONCE, i_size_read/i_size_write: orders nothing, races only with
             // a plain access
    atomic,  // an atomic operation on a variable's word (bitops): orders as `sync` does, and
             // races with a plain access as `marked` does
    acquire, // smp_load_acquire: a marked load that orders the task after the stores released
             // into its variable
    release, // smp_store_release: a marked store that releases what the task did before it
};

// A step's part in read-side sections (RCU's, explicit or implicit: model/rcu.hpp). Each task's
// section is state of its own, which only the steps that read every task's observe (a grace
// period's start and end): for partial-order reduction a step that enters or leaves its task's
// section depends on those steps, and two tasks' entries and exits do not depend on each other.
// Bits.
enum ReadSide : std::uint8_t {
    read_side_none = 0,
    read_side_change = 1, // may enter or leave its task's section (a spinlock's acquisition)
    read_side_census = 2, // reads which tasks are inside one
    // Enters or leaves its task's section and changes nothing else that a step other than a
    // census reads, though its object keeps the record: to its object's other steps it is a
    // read (rcu_read_lock(), rcu_read_unlock()).
    read_side_entry = 4 | read_side_change,
};

struct Operation {
    const char* name = nullptr; // the kernel function, e.g. "mutex_lock"; a static string
    const Object* obj = nullptr;
    EnabledFn enabled = nullptr; // nullptr: always enabled
    // The model's call that declared it (never a line of model/: primitives pass their
    // caller's on). One pointer to the compiler's static record: storing it costs a store.
    std::source_location location{};
    OpArgs args{};
    bool read_only = false; // reads shared state without changing it
    // Not enabled, it may still run when no other task can (a spin loop's turn): then one
    // such task at a time runs.
    bool fallback = false;
    // It reads or changes state beyond `obj` that no object stands for (other tasks' CPUs and
    // preemption counts): for partial-order reduction it depends on every other operation.
    bool global = false;
    // It changes what can run on its task's CPU (an interrupt handler's entry or exit): for
    // partial-order reduction it depends on every step of that CPU's tasks, and on no other.
    bool cpu_wide = false;
    DataAccess access = DataAccess::sync;
    ReadSide read_side = read_side_none;
    // A data access of a CPU's per-CPU data made on that CPU, in code that keeps some of the
    // CPU's contexts out (cpu_section()); 0: none. The race detector orders it with the
    // accesses of that data the section and the context exclude (race_detector.hpp).
    std::uint16_t cpu_section = 0;
};

// The contexts code runs in on a CPU, in the order they can interrupt each other: a task, a
// softirq, a hardirq handler (model/irq.hpp's irq_context).
inline constexpr int kCpuContexts = 3;
// An access on `cpu` from `context` in a section that keeps the contexts up to `excludes` out
// (0: other tasks, as preempt_disable() does; 1: softirqs too, as local_bh_disable() does; 2:
// every context, as local_irq_disable() or a hardirq handler does).
constexpr std::uint16_t cpu_section(int cpu, int context, int excludes) {
    return static_cast<std::uint16_t>(0x8000 | cpu | context << 6 | excludes << 8);
}
// cpu_section()'s arguments back.
struct CpuSection {
    std::size_t cpu, context, excludes;
};
constexpr CpuSection unpack(std::uint16_t section) {
    return {section & 0x3fU, (section >> 6) & 3U, (section >> 8) & 3U};
}

} // namespace lockcheck::detail
