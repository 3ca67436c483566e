// The dependency relation partial-order reduction rests on: which two steps may give a
// different result when their order is swapped. docs/dpor.md explains each rule and what a
// model must do for it to hold.
#pragma once

#include <cstdint>

#include "scheduler/operation.hpp"
#include "scheduler/task_set.hpp"

namespace lockcheck::detail {

class Execution;

// What one step does to shared state, as far as its order against other steps matters.
// Trivial, so that DPOR's branch points can hold one per task without initializing them.
struct Access {
    std::int32_t object; // the object's conflict id; -1 when global
    bool write;          // changes the object (or may: a trylock, a failed cmpxchg)
    bool global;         // depends on every other step
    bool blocking;       // may have to wait (a lock, a sleep, an interrupt): see Dpor::every_race
    // The task held the object exclusively as the step began (an unlock): no other task's
    // waiting operation on it can run before this step, so DPOR does not try to.
    bool held;
    bool watched; // a property can read the object (Object::watched())
    // The CPU of the task that takes it (-1: not known), and whether it depends on every step
    // of that CPU's tasks (Operation::cpu_wide).
    std::int8_t cpu;
    bool cpu_wide;
    // Its part in read-side sections: read_side_change and read_side_census bits
    // (Operation::read_side).
    std::uint8_t read_side;
    bool operator==(const Access&) const = default;
};
// The access of a step that depends on every other.
inline Access global_access(bool blocking) {
    return Access{-1, true, true, blocking, false, true, -1, false, read_side_none};
}

// The access of `op`; with the task about to take it, whether that task holds the object.
Access access_of(const Operation& op, const Task* task = nullptr);

// Which writes to different objects are ordered for the properties checked after every step.
// Swapping two adjacent writes changes only the state between them, and an invariant reads
// only objects it can peek() at: when one write leaves every such object as it was, the states
// it sees in one order are those it sees in the other. Locks and wait queues have no peek(),
// but model code after any step may change plain_state(), which properties may read.
enum class WriteOrder : std::uint8_t {
    none,    // no invariant: final checks see the end, which equivalent executions share
    watched, // writes that both change objects a property can read
    all,     // every two writes: the model declared plain_state()
};
WriteOrder write_order(const Execution& ex);

// Whether `a` is a write that `order` orders against the other such writes.
inline bool ordered_write(Access a, WriteOrder order) {
    return a.write && (order == WriteOrder::all || (order == WriteOrder::watched && a.watched));
}

// Whether a step that changes what runs on its CPU meets a step of that CPU (or of one not
// known).
inline bool same_cpu(Access wide, Access other) {
    return wide.cpu_wide && (other.cpu == wide.cpu || other.cpu < 0 || wide.cpu < 0);
}

// Whether one of two steps enters or leaves its task's read-side section and the other reads
// every task's (a grace period's start or end).
inline bool read_side_dependent(Access a, Access b) {
    constexpr int shift = 1; // read_side_change << 1 == read_side_census
    static_assert(read_side_change << shift == read_side_census);
    return ((a.read_side << shift) & b.read_side) | ((b.read_side << shift) & a.read_side);
}

inline bool dependent(Access a, Access b, WriteOrder order) {
    if (a.global || b.global) return true;
    if ((a.read_side | b.read_side) && read_side_dependent(a, b)) [[unlikely]]
        return true;
    if ((a.cpu_wide || b.cpu_wide) && (same_cpu(a, b) || same_cpu(b, a))) [[unlikely]]
        return true;
    if (a.object == b.object) return a.write || b.write;
    return ordered_write(a, order) && ordered_write(b, order);
}

// Sleep sets (Godefroid): of the tasks `asleep` at a state (asleep on entry, or already run
// from it), those still asleep once task `chosen` has taken its pending step in `ex`: the
// ones whose pending steps are independent of it.
TaskSet sleep_after(TaskSet asleep, TaskId chosen, const Execution& ex);

// Two pending accesses that race (RaceDetector::races): the lowest task of `options` with
// one, and the lowest other task of `enabled` it races with. A stateful search runs them
// back to back, so that the race detector sees the pair whatever path led to the state.
struct RacingPair {
    TaskId first = kNoTask;
    TaskId second = kNoTask;
};
RacingPair first_race(TaskSet options, TaskSet enabled, const Execution& ex);

// Of `tasks`, those whose pending step reads every task's read-side section: the ones a step
// that changed its task's section without declaring it (Execution::changed_section()) wakes.
TaskSet reading_sections(TaskSet tasks, const Execution& ex);

} // namespace lockcheck::detail
