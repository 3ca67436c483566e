// ChainDepth: the depth of an execution as its trace has it, for --depth. Along any chain of
// steps each of which depends on the one before (touches an object it touched, one of the two
// writing, or reaches beyond any object), it counts how often the chain passes from one task
// to another: the interactions a schedule has to get right. The count is the trace's, not the
// interleaving's: two schedules that differ only in the order of independent steps give every
// step the same depth, so a depth bound cuts the same executions under DFS and every reduction.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "object.hpp"
#include "operation.hpp"
#include "task_set.hpp"

namespace lockcheck::detail {

class ChainDepth {
  public:
    // An object registered: steps may touch it from now on. Not on the hot path.
    void add_object(int conflict_id) {
        if (static_cast<std::size_t>(conflict_id) >= objects_.size())
            objects_.resize(static_cast<std::size_t>(conflict_id) + 1);
    }
    // The depth the step of `task` with `op` would have, taken next.
    std::uint32_t of(TaskId task, const Operation& op) const {
        const std::uint32_t own = task_mark_[task];
        const std::uint32_t depth = std::max(own ? own - 1 : 0, after(global_, task));
        if (global(op)) [[unlikely]]
            return after_every_task(task, depth);
        return on_object(task, op, objects_[static_cast<std::size_t>(op.obj->conflict_id())],
                         depth);
    }
    // The step of `task` with `op` is taken: it is recorded at its depth. Inline, as of(): it is
    // part of every scheduling step.
    void take(TaskId task, const Operation& op) {
        if (global(op)) [[unlikely]] {
            take_global(task, op);
            return;
        }
        const std::uint32_t own = task_mark_[task];
        ObjectSteps& o = objects_[static_cast<std::size_t>(op.obj->conflict_id())];
        const std::uint32_t depth =
            on_object(task, op, o, std::max(own ? own - 1 : 0, after(global_, task)));
        const Mark m{depth + 1, task};
        record_task(m);
        if (!op.read_only)
            o = ObjectSteps{m, {}, 0};
        else
            record_read(o, m);
    }
    // The deepest step taken so far: no step can be deeper than one more.
    std::uint32_t deepest() const { return deepest_; }

  private:
    // A step, or the deepest of several, as its successors see it: its depth plus one (0: no
    // step) and its task.
    struct Mark {
        std::uint32_t mark = 0;
        TaskId task = kNoTask;
    };
    // What a step of an object depends on there: its last write, and the reads since, by the
    // deepest read (with its task) and the deepest read of any other task than that one's.
    struct ObjectSteps {
        Mark write;
        Mark read;
        std::uint32_t other_read = 0;
    };
    // The depth a step of `task` would have after `m`.
    static std::uint32_t after(Mark m, TaskId task) {
        return m.mark == 0 ? 0 : m.mark - 1 + (m.task != task);
    }
    static bool global(const Operation& op) { return !op.obj || op.global || op.fallback; }
    // With `depth` from the task's own last step and the last global one: through the object.
    static std::uint32_t on_object(TaskId task, const Operation& op, const ObjectSteps& o,
                                   std::uint32_t depth) {
        depth = std::max(depth, after(o.write, task));
        if (op.read_only) return depth;
        // A read of its own task counts without a hand-over, any other's with one.
        return std::max(depth, o.read.task == task
                                   ? std::max(o.read.mark ? o.read.mark - 1 : 0, o.other_read)
                                   : o.read.mark);
    }
    void record_task(Mark m) {
        task_mark_[m.task] = m.mark;
        if (m.task >= tasks_) tasks_ = static_cast<std::size_t>(m.task) + 1;
        if (m.mark - 1 > deepest_) deepest_ = m.mark - 1;
    }
    static void record_read(ObjectSteps& o, Mark m) {
        if (o.read.task == m.task) {
            o.read.mark = std::max(o.read.mark, m.mark);
        } else if (m.mark >= o.read.mark) {
            o.other_read = o.read.mark;
            o.read = m;
        } else {
            o.other_read = std::max(o.other_read, m.mark);
        }
    }
    std::uint32_t after_every_task(TaskId task, std::uint32_t depth) const;
    void take_global(TaskId task, const Operation& op);

    std::array<std::uint32_t, kMaxTasks> task_mark_{}; // each task's last step, as Mark::mark
    std::size_t tasks_ = 0; // task_mark_[tasks_, kMaxTasks) are 0: those tasks took no step
    std::vector<ObjectSteps> objects_; // by conflict id
    Mark global_;                      // the last step that depends on every other (global())
    std::uint32_t deepest_ = 0;
};

} // namespace lockcheck::detail
