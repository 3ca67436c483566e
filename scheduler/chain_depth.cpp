// The depth of a step from what it depends on: its task's previous step, the last step that
// depends on every other, and on its object the last write and, for a write, the reads since
// (earlier steps there are predecessors of those, so never deeper through them).
#include "chain_depth.hpp"

#include <algorithm>

namespace lockcheck {

std::uint32_t ChainDepth::of(TaskId task, const Operation& op) const {
    const std::uint32_t own = task_mark_[task];
    std::uint32_t depth = std::max(own ? own - 1 : 0, after(global_, task));
    if (global(op)) {
        // It depends on every step before it: another task's deepest is its last.
        for (std::size_t u = 0; u < tasks_; ++u)
            if (u != task) depth = std::max(depth, task_mark_[u]);
        return depth;
    }
    const ObjectSteps& o = objects_[static_cast<std::size_t>(op.obj->conflict_id())];
    depth = std::max(depth, after(o.write, task));
    if (!op.read_only) {
        // A read of its own task counts without a hand-over, any other's with one.
        depth = std::max(depth, o.read.task == task
                                    ? std::max(o.read.mark ? o.read.mark - 1 : 0, o.other_read)
                                    : o.read.mark);
    }
    return depth;
}

void ChainDepth::take(TaskId task, const Operation& op, std::uint32_t depth) {
    const Mark m{depth + 1, task};
    task_mark_[task] = m.mark;
    tasks_ = std::max(tasks_, static_cast<std::size_t>(task) + 1);
    deepest_ = std::max(deepest_, depth);
    if (global(op)) {
        global_ = m;
        return;
    }
    ObjectSteps& o = objects_[static_cast<std::size_t>(op.obj->conflict_id())];
    if (!op.read_only) {
        o = ObjectSteps{m, {}, 0};
    } else if (o.read.task == task) {
        o.read.mark = std::max(o.read.mark, m.mark);
    } else if (m.mark >= o.read.mark) {
        o.other_read = o.read.mark;
        o.read = m;
    } else {
        o.other_read = std::max(o.other_read, m.mark);
    }
}

} // namespace lockcheck
