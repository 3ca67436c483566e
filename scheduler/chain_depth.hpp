// ChainDepth: the depth of an execution as its trace has it, for --depth. Along any chain of
// steps each of which depends on the one before (touches an object it touched, one of the two
// writing, or reaches beyond any object), it counts how often the chain passes from one task
// to another: the interactions a schedule has to get right. Each task's read-side section is
// a location of its own, which a census reads for every task (Operation::read_side). The count is
// the trace's, not the interleaving's: two schedules that differ only in the order of independent
// steps give every step the same depth, so a depth bound cuts the same executions under DFS and
// every reduction.
#pragma once

#include <array>
#include <cstdint>

#include "chain_marks.hpp"
#include "object.hpp"
#include "operation.hpp"
#include "task_set.hpp"

namespace lockcheck::detail {

class ChainDepth {
  public:
    // A task spawned: a step that depends on every other looks at the tasks spawned so far.
    void add_task() { ++tasks_; }
    // The depth the step of `task` with `op` would have, taken next.
    std::uint32_t of(TaskId task, const Operation& op) const {
        if (global(op)) [[unlikely]]
            return static_cast<std::uint32_t>(after_every_task(task, before(task)));
        std::int32_t depth = on_object(task, writes(op), op.obj->chain_steps(), before(task));
        if (op.read_side) [[unlikely]]
            depth = through_sections(task, op.read_side, depth);
        return static_cast<std::uint32_t>(depth);
    }
    // The step of `task` with `op` is taken: it is recorded at its depth. Inline, as of(): it is
    // part of every scheduling step.
    [[gnu::always_inline]] void take(TaskId task, const Operation& op) {
        if (repeats(task, op)) [[likely]]
            return;
        if (global(op)) [[unlikely]] {
            take_global(task, op);
            return;
        }
        const bool write = writes(op);
        last_ = Repeat{op.obj, task, !write};
        ObjectSteps& o = op.obj->chain_steps();
        std::int32_t depth = on_object(task, write, o, before(task));
        if (op.read_side) [[unlikely]]
            depth = through_sections(task, op.read_side, depth);
        const Mark m{depth, task};
        record_task(m);
        if (write)
            o = ObjectSteps{m, {}, kNone};
        else
            record_read(o, m);
        if (op.read_side) [[unlikely]]
            record_sections(m, op.read_side);
    }
    // The deepest step taken so far: no step can be deeper than one more.
    std::uint32_t deepest() const { return static_cast<std::uint32_t>(deepest_); }

  private:
    using Mark = ChainMark;
    static constexpr std::int32_t kNone = ChainMark::kNone;
    // The step before, as a repetition of it sees it. Only a step on an object that is not
    // global() is kept, so none is kept before the first step or after a global() one.
    struct Repeat {
        const Object* obj = nullptr;
        TaskId task = kNoTask;
        bool read_only = false;
    };
    // Whether the step before was this task's too, on the same object, and this one reads or
    // both write (a polling or retry loop's turn, a run of atomics): then its depth is that
    // step's, and what it would record changes nothing a later step can see (a read of the
    // task's own write is as deep as the write, which every later writer depends on). Not a
    // write after a read: it also depends on the others' reads since the last write.
    // A step in a read-side section's record never repeats: it reads or writes the section too.
    bool repeats(TaskId task, const Operation& op) const {
        return op.obj == last_.obj && task == last_.task && !(op.global | op.fallback) &&
               !writes(op) >= last_.read_only && !op.read_side;
    }
    // Whether the step writes its object (a read-side section's entry or exit only reads it:
    // Operation::read_side).
    static bool writes(const Operation& op) {
        return !op.read_only && (op.read_side & read_side_entry) != read_side_entry;
    }
    static std::int32_t max(std::int32_t a, std::int32_t b) { return a < b ? b : a; }
    // The depth a step of `task` would have after `m`: after no step (kNoTask), 0.
    static std::int32_t after(Mark m, TaskId task) { return m.depth + (m.task != task); }
    static bool global(const Operation& op) { return !op.obj || op.global || op.fallback; }
    // The depth from what every step depends on: the task's own last step and the last global
    // one.
    std::int32_t before(TaskId task) const { return max(task_depth_[task], after(global_, task)); }
    // With `depth` from before(): through the object.
    static std::int32_t on_object(TaskId task, bool write, const ObjectSteps& o,
                                  std::int32_t depth) {
        depth = max(depth, after(o.write, task));
        if (!write) return depth;
        // A read of its own task counts without a hand-over, any other's with one.
        return max(depth,
                   o.read.task == task ? max(o.read.depth, o.other_read + 1) : o.read.depth + 1);
    }
    void record_task(Mark m) {
        task_depth_[m.task] = m.depth;
        deepest_ = max(deepest_, m.depth);
    }
    static void record_read(ObjectSteps& o, Mark m) {
        if (o.read.task == m.task) {
            o.read.depth = max(o.read.depth, m.depth);
        } else if (m.depth >= o.read.depth) {
            o.other_read = o.read.depth;
            o.read = m;
        } else {
            o.other_read = max(o.other_read, m.depth);
        }
    }
    std::int32_t after_every_task(TaskId task, std::int32_t depth) const;
    void take_global(TaskId task, const Operation& op);
    // With `depth` so far: through the read-side sections the step reads or writes.
    std::int32_t through_sections(TaskId task, std::uint8_t read_side, std::int32_t depth) const;
    void record_sections(Mark m, std::uint8_t read_side);

    std::array<std::int32_t, kMaxTasks> task_depth_ = filled(kNone); // each task's last step
    std::size_t tasks_ = 0; // the tasks spawned: task_depth_[tasks_, kMaxTasks) unused
    Mark global_;           // the last step that depends on every other (global())
    std::array<ObjectSteps, kMaxTasks> sections_{}; // each task's read-side section
    Repeat last_;                                   // the step before, unless it was global()
    std::int32_t deepest_ = 0;

    static constexpr std::array<std::int32_t, kMaxTasks> filled(std::int32_t v) {
        std::array<std::int32_t, kMaxTasks> a{};
        a.fill(v);
        return a;
    }
};

} // namespace lockcheck::detail
