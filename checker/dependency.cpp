// An operation's access: its object's conflict id, unless it has no object or reaches beyond
// it (a spin turn, set_current_state, wake_up_process, hotplug): those are global.
#include "dependency.hpp"

#include "scheduler/execution.hpp"
#include "scheduler/object.hpp"

namespace lockcheck::detail {

Access access_of(const Operation& op, const Task* task) {
    // A task an interrupt handler kept waiting had to wait as a lock's waiter does.
    const bool blocking = op.enabled != nullptr || (task && task->was_blocked());
    // A step of a CPU not known depends on every step of its CPU: on every step.
    if (!op.obj || op.global || op.fallback || (op.cpu_wide && !task))
        return global_access(blocking);
    const bool held = task && op.obj->exclusive_holder() == task;
    const auto cpu = static_cast<std::int8_t>(task ? task->cpu() : -1);
    // A section's entry or exit changes nothing its object's other steps read (see ReadSide).
    const bool write = !op.read_only && (op.read_side & read_side_entry) != read_side_entry;
    return Access{op.obj->conflict_id(),
                  write,
                  false,
                  blocking,
                  held,
                  op.obj->watched(),
                  cpu,
                  op.cpu_wide,
                  static_cast<std::uint8_t>(op.read_side & 3)};
}

WriteOrder write_order(const Execution& ex) {
    if (!ex.has_invariants()) return WriteOrder::none;
    return ex.has_plain_state() ? WriteOrder::all : WriteOrder::watched;
}

TaskSet sleep_after(TaskSet asleep, TaskId chosen, const Execution& ex) {
    const Task& task = *ex.tasks()[chosen];
    const Access stepping = access_of(task.pending(), &task);
    TaskSet sleep = 0;
    for (TaskSet rest = asleep & ~task_bit(chosen); rest; rest &= rest - 1) {
        const Task& other = *ex.tasks()[lowest(rest)];
        if (!dependent(access_of(other.pending(), &other), stepping, write_order(ex)))
            sleep |= task_bit(other.id());
    }
    return sleep;
}

RacingPair first_race(TaskSet options, TaskSet enabled, const Execution& ex) {
    for (TaskSet a = options; a; a &= a - 1)
        for (TaskSet b = enabled & ~task_bit(lowest(a)); b; b &= b - 1)
            if (RaceDetector::races(ex.tasks()[lowest(a)]->pending(),
                                    ex.tasks()[lowest(b)]->pending()))
                return {lowest(a), lowest(b)};
    return {};
}

TaskSet reading_sections(TaskSet tasks, const Execution& ex) {
    TaskSet census = 0;
    for (; tasks; tasks &= tasks - 1)
        if (ex.tasks()[lowest(tasks)]->pending().read_side & read_side_census)
            census |= task_bit(lowest(tasks));
    return census;
}

} // namespace lockcheck::detail
