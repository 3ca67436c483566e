// Recording a replayed execution into a Trace.
#include "trace.hpp"

#include "scheduler/execution.hpp"

namespace lockcheck {

void TraceRecorder::on_step(const Execution&, std::uint32_t step, const Task& task,
                            const Operation& op, std::optional<std::int64_t> value) {
    TraceStep s;
    s.step = step;
    s.task = task.name();
    s.operation = op.name;
    if (op.obj) {
        s.object = op.obj->name();
        op.obj->describe(s.state);
    }
    s.args.assign(op.args.v, op.args.v + op.args.n);
    s.value = value;
    trace_.steps.push_back(std::move(s));
}

Trace TraceRecorder::take(const Execution& ex) {
    trace_.tasks.clear();
    for (const auto& t : ex.tasks())
        trace_.tasks.push_back(t->name());
    return std::move(trace_);
}

} // namespace lockcheck
