// Recording a replayed execution into a Trace.
#include "trace.hpp"

#include <algorithm>

#include "model/weak_memory.hpp"
#include "scheduler/execution.hpp"

namespace lockcheck::detail {

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
    note_links(ex);
}

WaitLink TraceRecorder::link_of(const Task& task) const {
    const auto innermost = [this](TaskId id) {
        return id < open_.size() && !open_[id].empty() ? open_[id].back().op : std::string();
    };
    WaitLink l;
    l.task_id = task.id();
    l.task = task.name();
    l.op = innermost(task.id());
    const Operation& op = task.pending();
    l.operation = op.name ? op.name : "";
    // An interrupted task waits for the handler that holds its CPU, whatever its next step is.
    if (const Task* handler = task.interrupted_by()) {
        l.object = "cpu" + std::to_string(task.cpu());
        l.holder_id = handler->id();
        l.holder = handler->name();
        l.holder_op = innermost(handler->id());
        return l;
    }
    if (!op.obj) return l;
    l.object = op.obj->name();
    const Task* holder = op.obj->holder_for(task);
    if (holder && holder != &task && !holder->finished()) {
        l.holder_id = holder->id();
        l.holder = holder->name();
        l.holder_op = innermost(holder->id());
    }
    return l;
}

void TraceRecorder::note_links(const Execution& ex) {
    const auto& tasks = ex.tasks();
    links_.assign(tasks.size(), std::nullopt);
    waited_.resize(tasks.size(), 0);
    for (const auto& t : tasks) {
        waited_[t->id()] = t->waited();
        if (!t->finished()) links_[t->id()] = link_of(*t);
    }
}

void TraceRecorder::on_op(const Execution& ex, const Task& task, const char* name, bool begins) {
    if (open_.size() <= task.id()) open_.resize(task.id() + 1);
    std::vector<OpSpan>& open = open_[task.id()];
    if (begins) {
        open.push_back(OpSpan{name, task.id(), task.name(), ex.step()});
        return;
    }
    if (open.empty()) return; // the engine reports the model's mistake
    OpSpan span = std::move(open.back());
    open.pop_back();
    span.ended_at = ex.step();
    trace_.ops.push_back(std::move(span));
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
        // Under lkmm a read may see an older write than the last: the graph says which.
        if (ex.limits().memory_model == MemoryModel::lkmm) {
            const weak_memory::ReadSeen seen = weak_memory::read_in_step(ex, step);
            if (seen.missed) {
                s.synced_from = seen.from;
                s.missed = seen.missed;
            }
        }
    }
    s.args.assign(op.args.v, op.args.v + op.args.n);
    s.object_first = op.args.object_first;
    s.value = value;
    if (value && op.obj) s.value_text = op.obj->value_text(*value);
    s.location = call_site(op.location);
    s.stores = !op.read_only && op.access != DataAccess::sync && op.access != DataAccess::atomic;
    // Who waited while it was taken, as the engine counts it: a blocked task's count grew at
    // the pick of this step; a retrying one's grows in one go later. Each as it stood before.
    for (const auto& t : ex.tasks()) {
        const TaskId id = t->id();
        if (id == task.id() || t->finished()) continue;
        const bool blocked = t->waited() != (id < waited_.size() ? waited_[id] : 0);
        if (!blocked && !t->retrying()) continue;
        s.waiting.push_back(id < links_.size() && links_[id] ? *links_[id] : link_of(*t));
    }
    trace_.steps.push_back(std::move(s));
    note_links(ex);
}

void TraceRecorder::on_end(const Execution& ex) {
    // A future read's write is known once it is made, after the read's step.
    if (ex.limits().memory_model == MemoryModel::lkmm)
        for (TraceStep& s : trace_.steps) {
            const weak_memory::ReadSeen seen = weak_memory::read_in_step(ex, s.step);
            if (seen.read && seen.from > s.step) s.synced_from = s.later_from = seen.from;
        }
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
    trace_.barriers.clear();
    for (const weak_memory::MissingBarrier& b : weak_memory::missing_barriers(ex))
        trace_.barriers.push_back(std::string(b.barrier) + " in " + trace_.tasks[b.task] +
                                  " between steps " + std::to_string(b.after) + " and " +
                                  std::to_string(b.before) + " (" + b.axiom + ")");
    for (OpSpan& span : trace_.ops) {
        span.waited = 0;
        for (const TraceStep& s : trace_.steps)
            span.waited +=
                s.step > span.begun_after && s.step <= span.ended_at && waiting_in(s, span.task_id);
    }
    return std::move(trace_);
}

const WaitLink* waiting_in(const TraceStep& step, TaskId task) {
    for (const WaitLink& l : step.waiting)
        if (l.task_id == task) return &l;
    return nullptr;
}

std::vector<WaitLink> blocking_chain(const TraceStep& step, TaskId task) {
    std::vector<WaitLink> chain;
    for (const WaitLink* l = waiting_in(step, task); l;
         l = l->holder_id ? waiting_in(step, *l->holder_id) : nullptr) {
        const auto seen = [l](const WaitLink& c) { return c.task_id == l->task_id; };
        if (std::any_of(chain.begin(), chain.end(), seen)) break;
        chain.push_back(*l);
    }
    return chain;
}

const OpSpan* worst_span(const Trace& trace, const std::string& op) {
    const OpSpan* worst = nullptr;
    for (const OpSpan& span : trace.ops)
        if (span.op == op && (!worst || span.waited > worst->waited)) worst = &span;
    return worst;
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

// Marks involved each cause and every step one depends on (see Story::involved).
void involve_dependencies(const Trace& trace, Story& story);

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
    // A read that saw an older write than the latest (lkmm) explains what followed, with the
    // other reads of its task, and those the task of the write it missed made after that write
    // and before it: together they are the outcome no interleaving gives (in store buffering,
    // each task's read misses the other's write).
    const auto reads = [&steps](std::size_t j) {
        return steps[j].value.has_value() && steps[j].changed.empty();
    };
    // A final check that failed when every task had finished reads the outcome, and under lkmm
    // with a stale read every value read may be part of it (IRIW's readers: one reader's reads
    // were each the latest when it read, and the outcome needs them too).
    const bool stale =
        std::any_of(steps.begin(), steps.end(), [](const TraceStep& s) { return s.missed != 0; });
    if (stale && !trace.violating_step && trace.pending.empty())
        for (std::size_t j = 0; j < n; ++j)
            if (reads(j)) cause(j);
    for (std::size_t i = 0; i < n; ++i) {
        if (!steps[i].missed) continue;
        const std::size_t writer = index_of(steps[i].missed);
        for (std::size_t j = 0; j < n; ++j) {
            if (!reads(j)) continue;
            if (steps[j].task_id == steps[i].task_id) cause(j);
            if (writer < n && steps[j].task_id == steps[writer].task_id && j > writer && j < i)
                cause(j);
        }
    }
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
    involve_dependencies(trace, story);
    return story;
}

Story wait_story(const Trace& trace, const OpSpan& span) {
    const std::size_t n = trace.steps.size();
    Story story{std::vector<bool>(n, false), std::vector<bool>(n, false)};
    const auto in_span = [&span](const TraceStep& s) {
        return s.step > span.begun_after && s.step <= span.ended_at;
    };
    for (std::size_t i = 0; i < n; ++i) {
        const TraceStep& s = trace.steps[i];
        story.cause[i] = in_span(s) && waiting_in(s, span.task_id);
    }
    involve_dependencies(trace, story);
    for (std::size_t i = 0; i < n; ++i)
        if (in_span(trace.steps[i])) story.involved[i] = true;
    return story;
}

namespace {

void involve_dependencies(const Trace& trace, Story& story) {
    const std::vector<TraceStep>& steps = trace.steps;
    const std::size_t n = steps.size();
    story.involved = story.cause;
    for (std::size_t j = n; j-- > 0;) {
        if (!story.involved[j]) continue;
        const TraceStep& later = steps[j];
        for (std::size_t i = 0; i < j; ++i) {
            const TraceStep& s = steps[i];
            if (story.involved[i]) continue;
            // What a step read: a value it returned, or an object it left as it was.
            const bool read = s.value.has_value() || s.changed.empty();
            // A pointer its task loaded may be how the later step reached its object.
            const bool pointer = read && !s.value_text.empty();
            story.involved[i] =
                (s.task_id == later.task_id &&
                 (share_an_object(s, later) || (later.stores && read) || pointer)) ||
                changed_what_touches(s, later) || later.synced_from == s.step ||
                later.missed == s.step;
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
}

} // namespace

} // namespace lockcheck::detail
