// Recording a replayed execution into a Trace.
#include "trace.hpp"

#include "scheduler/execution.hpp"

namespace lockcheck {

std::uint32_t Trace::preemptions() const {
    std::uint32_t n = 0;
    for (const TraceStep& s : steps)
        n += s.preempted;
    return n;
}

void TraceRecorder::on_step(const Execution&, std::uint32_t step, const Task& task,
                            const Operation& op, std::optional<std::int64_t> value,
                            Context context) {
    TraceStep s;
    s.step = step;
    s.task_id = task.id();
    s.task = task.name();
    s.operation = op.name;
    if (!trace_.steps.empty()) {
        const TaskId before = trace_.steps.back().task_id;
        s.preempted = before != s.task_id && contains(context.enabled, before);
    }
    if (op.obj) {
        s.object = op.obj->name();
        op.obj->describe(s.state);
        // What it held when its memory was freed: say so.
        if (op.obj->freed_with()) s.state += " (freed)";
        auto last = last_write_.find(op.obj);
        // A read shows the write it saw; a step that had to wait, what let it go on.
        if (last != last_write_.end() && last->second.task != s.task_id &&
            (op.read_only || context.waited))
            s.synced_from = last->second.step;
        if (!op.read_only) last_write_[op.obj] = LastWrite{step, s.task_id};
    }
    s.args.assign(op.args.v, op.args.v + op.args.n);
    s.value = value;
    s.location = call_site(op.location);
    trace_.steps.push_back(std::move(s));
}

void TraceRecorder::on_end(const Execution& ex) {
    trace_.pending.clear();
    for (const auto& t : ex.tasks()) {
        if (t->finished()) continue;
        PendingTask p;
        p.task_id = t->id();
        p.task = t->name();
        const Operation& op = t->pending();
        p.operation = op.name ? op.name : "";
        p.blocked = op.enabled && !op.enabled(op.obj, *t);
        p.location = call_site(op.location);
        if (op.obj) {
            p.object = op.obj->name();
            if (p.blocked)
                if (const Task* holder = op.obj->holder_for(*t)) p.holder = holder->name();
        }
        trace_.pending.push_back(std::move(p));
    }
}

Trace TraceRecorder::take(const Execution& ex) {
    trace_.tasks.clear();
    for (const auto& t : ex.tasks())
        trace_.tasks.push_back(t->name());
    return std::move(trace_);
}

} // namespace lockcheck
