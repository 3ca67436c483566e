// Recording a replayed execution into a Trace.
#include "trace.hpp"

#include <algorithm>

#include "scheduler/execution.hpp"

namespace lockcheck {

std::uint32_t Trace::preemptions() const {
    std::uint32_t n = 0;
    for (const TraceStep& s : steps)
        n += s.preempted;
    return n;
}

namespace {

std::string state_of(const Object& obj) {
    std::string state;
    obj.describe(state);
    // What it held when its memory was freed: say so.
    if (obj.freed_with()) state += " (freed)";
    return state;
}

} // namespace

void TraceRecorder::on_start(const Execution& ex) {
    for (const Object* obj : ex.objects())
        states_.push_back(state_of(*obj));
    changed_at_.assign(states_.size(), 0);
}

void TraceRecorder::on_step(const Execution& ex, std::uint32_t step, const Task& task,
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
    // Every object against its state after the step before: a replay is short, and what a
    // step changed reaches beyond its own object (a list entry, a woken task's queue).
    const std::vector<Object*>& objects = ex.objects();
    for (std::size_t i = 0; i < objects.size(); ++i) {
        std::string state = state_of(*objects[i]);
        if (i < states_.size() && state == states_[i]) continue;
        if (i < states_.size()) {
            states_[i] = std::move(state);
            changed_at_[i] = step;
        } else { // made by this step
            states_.push_back(std::move(state));
            changed_at_.push_back(step);
        }
        s.changed.push_back(objects[i]->name());
    }
    if (op.obj) {
        s.object = op.obj->name();
        s.state = states_[static_cast<std::size_t>(op.obj->id())];
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
    s.stores = !op.read_only && (op.access == DataAccess::plain || op.access == DataAccess::marked);
    trace_.steps.push_back(std::move(s));
}

void TraceRecorder::on_end(const Execution& ex) {
    trace_.reads.clear();
    for (const Object* obj : ex.property_reads()) {
        const auto same = [obj](const PropertyRead& r) { return r.object == obj->name(); };
        if (std::any_of(trace_.reads.begin(), trace_.reads.end(), same)) continue;
        const auto id = static_cast<std::size_t>(obj->id());
        trace_.reads.push_back(PropertyRead{obj->name(), state_of(*obj),
                                            id < changed_at_.size() ? changed_at_[id] : 0});
    }
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

namespace {

// The objects a step touched: its own and those it changed.
bool touches(const TraceStep& s, const std::string& object) {
    return !object.empty() && (s.object == object || std::find(s.changed.begin(), s.changed.end(),
                                                               object) != s.changed.end());
}

bool share_an_object(const TraceStep& a, const TraceStep& b) {
    if (touches(b, a.object)) return true;
    for (const std::string& o : a.changed)
        if (touches(b, o)) return true;
    return false;
}

bool changed_what_touches(const TraceStep& earlier, const TraceStep& later) {
    for (const std::string& o : earlier.changed)
        if (touches(later, o)) return true;
    return false;
}

} // namespace

Story story(const Trace& trace) {
    const std::vector<TraceStep>& steps = trace.steps;
    const std::size_t n = steps.size();
    Story story{std::vector<bool>(n, false), std::vector<bool>(n, false)};
    const auto index_of = [&steps](std::uint32_t step) {
        for (std::size_t i = 0; i < steps.size(); ++i)
            if (steps[i].step == step) return i;
        return steps.size();
    };
    const auto cause = [&story](std::size_t i) {
        if (i < story.cause.size()) story.cause[i] = true;
    };
    // The last change of `object`, or n if no step changed it.
    const auto last_change = [&steps, n](const std::string& object) {
        for (std::size_t i = n; i-- > 0;)
            if (std::find(steps[i].changed.begin(), steps[i].changed.end(), object) !=
                steps[i].changed.end())
                return i;
        return n;
    };
    if (trace.violating_step)
        cause(index_of(trace.violating_step));
    else if (trace.reads.empty() && n)
        cause(n - 1); // not known: the last step, as reports always took it
    for (std::uint32_t step : trace.cited)
        cause(index_of(step));
    for (const PropertyRead& r : trace.reads) {
        const std::size_t changed = last_change(r.object);
        if (changed == n) continue; // as set up: no step made it so
        for (std::size_t i = changed; i < n; ++i)
            if (i == changed || steps[i].object == r.object) cause(i);
    }
    for (const PendingTask& p : trace.pending) {
        if (p.blocked) cause(last_change(p.object));
        for (std::size_t i = n; i-- > 0;)
            if (steps[i].task_id == p.task_id) {
                cause(i);
                break;
            }
    }
    story.involved = story.cause;
    for (std::size_t j = n; j-- > 0;) {
        if (!story.involved[j]) continue;
        const TraceStep& later = steps[j];
        for (std::size_t i = 0; i < j; ++i) {
            const TraceStep& s = steps[i];
            if (story.involved[i]) continue;
            // What a step read: a value it returned, or an object it left as it was.
            const bool read = s.value.has_value() || s.changed.empty();
            story.involved[i] = (s.task_id == later.task_id &&
                                 (share_an_object(s, later) || (later.stores && read))) ||
                                changed_what_touches(s, later) || later.synced_from == s.step;
        }
    }
    // A step on no object (cpu_relax(), set_current_state()) goes with its task's next step.
    for (std::size_t i = n; i-- > 0;) {
        if (story.involved[i] || !steps[i].object.empty() || !steps[i].changed.empty()) continue;
        for (std::size_t j = i + 1; j < n; ++j)
            if (steps[j].task_id == steps[i].task_id) {
                story.involved[i] = story.involved[j];
                break;
            }
    }
    return story;
}

} // namespace lockcheck
