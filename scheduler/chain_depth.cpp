// The depth of a step from what it depends on: its task's previous step, the last step that
// depends on every other, and on its object the last write and, for a write, the reads since
// (earlier steps there are predecessors of those, so never deeper through them). The common
// path is inline in the header; here, a step on no single object, and read-side sections.
#include "chain_depth.hpp"

namespace lockcheck::detail {

std::int32_t ChainDepth::after_every_task(TaskId task, std::int32_t depth) const {
    // It depends on every step before it: another task's deepest is its last.
    for (std::size_t u = 0; u < tasks_; ++u)
        if (u != task) depth = max(depth, task_depth_[u] + 1);
    return depth;
}

void ChainDepth::take_global(TaskId task, const Operation& op) {
    const Mark m{static_cast<std::int32_t>(of(task, op)), task};
    record_task(m);
    global_ = m;
    last_ = Repeat{};
}

std::int32_t ChainDepth::through_sections(TaskId task, std::uint8_t read_side,
                                          std::int32_t depth) const {
    if (read_side & read_side_census)
        for (std::size_t u = 0; u < tasks_; ++u)
            depth = max(depth, after(sections_[u].write, task));
    if (read_side & read_side_change) depth = on_object(task, true, sections_[task], depth);
    return depth;
}

void ChainDepth::record_sections(Mark m, std::uint8_t read_side) {
    if (read_side & read_side_census)
        for (std::size_t u = 0; u < tasks_; ++u)
            record_read(sections_[u], m);
    if (read_side & read_side_change) sections_[m.task] = ObjectSteps{m, {}, kNone};
}

} // namespace lockcheck::detail
