// lockdep's state for one execution, shared by its two halves: the lock classes and the
// dependency graph between them (lockdep.cpp: circular and recursive locking), and each
// class's irq usage (lockdep_irq.cpp: inconsistent lock state, irq-safe -> irq-unsafe orders).
// Private to model/: nothing here is part of the model API.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "lockdep.hpp"
#include "task.hpp"

namespace lockcheck::detail {

// Where a dependency or a usage bit was first seen: the "existing dependency chain" and the
// "state was registered at" lines of a report. Both are recorded when the lock is asked for
// (as the kernel's lock_acquire() runs before the lock spins or sleeps), so until the task gets
// it `step` is the step after which it asked; lockdep_acquired() then names the step that took it.
struct lockdep_trace {
    TaskId task_id = 0;
    std::string task;
    std::uint32_t step = 0;
    bool taken = false;
    std::source_location location{}; // the model's call that asked
    // A usage bit set at a step that turned interrupts on with the lock held
    // (local_irq_enable, spin_unlock_irqrestore): that operation, else null.
    const char* enabled_by = nullptr;
};

// lockdep's usage bits (kernel/locking/lockdep_states.h): for exclusive (write) use, and the
// _READ ones of a lock taken for read (rwlock_t's read_lock()). The number is read * 4 +
// state * 2 + direction, so that (bit & 3) ^ 1 is the exclusive write bit, as lockdep's
// exclusive_bit() computes it.
enum lock_usage_bit : std::uint8_t {
    LOCK_USED_IN_HARDIRQ = 0, // taken in hardirq context
    LOCK_ENABLED_HARDIRQ = 1, // taken or held with hardirqs enabled
    LOCK_USED_IN_SOFTIRQ = 2, // taken in softirq context
    LOCK_ENABLED_SOFTIRQ = 3, // taken or held with softirqs (and hardirqs) enabled
    LOCK_USAGE_READ = 4,      // added to one of the above: the same, for read
    LOCK_USAGE_STATES = 8,
};

struct lock_class {
    std::string name;  // with its subclass, as printed
    std::uint64_t key; // a hash of the name: the class in a state's fingerprint
    std::uint8_t usage_mask = 0;
    std::array<lockdep_trace, LOCK_USAGE_STATES> usage_traces{};
};

// The kinds of one dependency from -> to (lockdep-design.rst, "Dependency types and strong
// dependency paths"): E, the held lock exclusive (a writer or a non-recursive reader), or S, a
// recursive reader; then R, the new lock a recursive read, or N anything else. One pair of
// classes may have several.
enum : std::uint8_t { DEP_ER = 1, DEP_EN = 2, DEP_SR = 4, DEP_SN = 8 };

struct dependency : lockdep_trace {
    int from;
    int to;
    std::uint8_t dep = DEP_EN; // the kinds found, the first of which `step` is the trace of
};

struct lockdep_graph {
    bool off = false;
    bool full = false; // a table filled: checking stopped
    std::vector<lock_class> classes;
    std::unordered_map<std::string, int> by_name;
    std::vector<std::vector<int>> after;  // after[c]: classes acquired while c was held
    std::vector<std::vector<int>> before; // before[c]: classes held while c was acquired
    std::vector<dependency> edges;

    // The class of `map` as `subclass`, made when first met; -1 once the table is full.
    int node(const lockdep_map* map, int subclass);
    bool depends(int from, int to) const;
    void add(int from, int to);
    // The classes on a shortest path from `from` to `to` through `after` (or, `backwards`,
    // through `before`), both included; empty if there is none.
    std::vector<int> path(int from, int to, bool backwards = false) const;
    // The classes on a shortest strong path (no -(*R)-> followed by -(S*)->) from `from`,
    // reached by a dependency that is -(*R)-> if `from_only_xr`, to `to` by a path that
    // conflicts with `to` held as `to_recursive` (a recursive reader of `to` meets only a path
    // ending -(*N)->), as check_noncircular() searches: a new dependency to -> from closes a
    // strong circle, a deadlock, iff there is one. Empty if none.
    std::vector<int> strong_path(int from, bool from_only_xr, int to, bool to_recursive) const;
    // The first class, breadth first from `root` through `after` (`before`), whose usage has
    // a bit of `mask` (1 << lock_usage_bit); -1 if none has. `root` itself counts, as in
    // lockdep's __bfs().
    int find_usage(int root, unsigned mask, bool backwards) const;
    const dependency& edge(int from, int to) const;
    dependency& edge(int from, int to);
    void fingerprint(StateHasher& h) const;
};

lockdep_graph& lockdep_state();

// The interrupt state an acquisition is checked with: the task's, after what the lock's own
// step turns off.
struct lockdep_irq_state {
    bool hardirqs_on;
    bool softirqs_on;
};
lockdep_irq_state lockdep_irqs_of(const task_struct* me, lockdep_irqs_off turned_off);
// lockdep_irq.cpp's checks of one acquisition of class `cls` by the running task, in the
// kernel's order (mark_irqflags() before validate_chain()). `attempt` is the model's call,
// which a report makes the trace's last step. Each returns false once it reported.
// The usage bits of this acquisition (not a trylock: it adds no USED_IN bit).
// `read`: taken for read (the _READ bits).
bool mark_irqflags(lockdep_graph& g, int cls, bool trylock, bool read, lockdep_irq_state s,
                   const Operation& attempt);
// The new dependency prev -> next connects no irq-safe class to an irq-unsafe one.
bool check_irq_usage(lockdep_graph& g, const held_lock& prev, int prev_cls, int next_cls,
                     lockdep_irq_state s, const Operation& attempt);

std::string pad(std::string s, std::size_t width);
// "balance0 took it at step 5, tree_lock.cpp:142 balance_level"
std::string took_it(const lockdep_trace& t);
// "A --> B --> C"
std::string chain_text(const lockdep_graph& g, const std::vector<int>& chain);

} // namespace lockcheck::detail
