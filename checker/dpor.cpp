// Source-DPOR: happens-before by vector clocks, races found as each new step runs, and the
// initials of each race's reversal added to the branch point before it. Optimal DPOR adds
// the whole reversal to the branch point's wake-up tree instead.
#include "dpor.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

#include "dfs_path.hpp"
#include "progress.hpp"
#include "scheduler/execution.hpp"

namespace lockcheck::detail {

Dpor::Dpor(std::size_t depth_hint, Mode mode, std::optional<std::uint32_t> preemptions)
    : mode_(mode), bound_(preemptions) {
    assert(!(bound_ && mode_ == Mode::optimal) && "a preemption bound needs source DPOR");
    path_.reserve(depth_hint);
    events_.reserve(depth_hint);
    clocks_.reserve(depth_hint * kMaxTasks);
    clock_width_.reserve(depth_hint);
    last_event_.fill(-1);
    last_cpu_wide_.fill(-1);
    last_section_.fill(-1);
}

void Dpor::begin_execution() {
    taken_.recorded = true; // an execution stopped before its step ran leaves nothing
    // The steps before the branch point that changed are those of the execution before:
    // they keep their clocks, and the latest access to each object is the one they left
    // (the later steps' are undone, last first).
    while (!events_.empty() && events_.back().node >= same_steps_before_) {
        forget_access(events_.back());
        events_.pop_back();
    }
    next_sleep_ = 0;
    last_ = kNoTask;
    preemptions_ = 0;
}

void Dpor::resume_at(std::uint32_t position) {
    // As a replay would stand before the decision at `position`: every step before it is
    // kept, and its last pick sets the task that ran last and the preemptions so far.
    begin_execution();
    position_ = position;
    if (const Node* pick = last_pick_before(path_, position)) {
        last_ = pick->chosen;
        preemptions_ = preemptions_after(*pick);
    }
}

TaskId Dpor::pick(std::uint32_t step, TaskSet enabled, const Execution& ex) {
    writes_ = write_order(ex);
    if (step == 1) begin_execution();
    commit_taken(ex);
    std::size_t index = position_;
    if (position_ < path_.size()) {
        // Same prefix, same state: a model that is not deterministic would break this.
        assert(!path_[position_].choice && path_[position_].enabled == enabled &&
               "model is not deterministic");
        ++position_;
    } else if (new_node(enabled) == kNoTask) {
        return kNoTask; // every enabled task sleeps: this continuation was explored already
    }
    const TaskId task = path_[index].chosen;
    preemptions_ = preemptions_after(path_[index]);
    last_ = task;
    if (index < same_steps_before_) return task; // its step is kept from the execution before
    // What the step does is known once it has run (see commit_taken). Field by field: a
    // Taken built whole on the stack and copied stalled on its byte stores (perf).
    taken_.task = task;
    taken_.access =
        access_of(ex.tasks()[task]->pending(), bound_ ? nullptr : ex.tasks()[task].get());
    taken_.node = static_cast<std::uint32_t>(index);
    taken_.recorded = false;
    return task;
}

void Dpor::commit_taken(const Execution& ex) {
    if (taken_.recorded) return;
    taken_.recorded = true;
    Access access = taken_.access;
    if (ex.last_step_changed_section()) [[unlikely]]
        access.read_side |= read_side_change;
    if (ex.last_step_global() || (ex.failed() && disables_others(ex, taken_.task)))
        access = global_access(access.blocking);
    Node& node = path_[taken_.node];
    const TaskId task = taken_.task;
    node.parked[task] = access;
    record(task, access, taken_.node, ex, true);
    // Tasks asleep here, or tried here before this one, stay asleep past this step unless it
    // depends on theirs.
    next_sleep_ = 0;
    if (bound_) return;
    for (TaskSet s = (node.sleep | node.done) & ~task_bit(task); s; s &= s - 1) {
        const TaskId q = lowest(s);
        if (dependent(node.parked[q], access, writes_)) continue;
        next_sleep_ |= task_bit(q);
        next_parked_[q] = node.parked[q];
    }
}

// A violation that ends the execution while other tasks could still run disables them: the
// step that made it depends on each of theirs, as a step that disables another does, so that
// they are tried before it (one may break something of its own first).
bool Dpor::disables_others(const Execution& ex, TaskId task) {
    return std::any_of(ex.tasks().begin(), ex.tasks().end(),
                       [task](const auto& t) { return t->id() != task && t->can_run(); });
}

TaskId Dpor::new_node(TaskSet enabled) {
    const TaskSet awake = enabled & ~next_sleep_;
    if (!awake) return kNoTask;
    const auto index = static_cast<std::uint32_t>(path_.size());
    Node& node = path_.emplace_back();
    node.enabled = enabled;
    node.sleep = next_sleep_;
    for (TaskSet s = node.sleep; s; s &= s - 1)
        node.parked[lowest(s)] = next_parked_[lowest(s)];
    node.last = last_;
    node.before = preemptions_;
    if (mode_ == Mode::optimal)
        node.chosen = follow_tree(index, awake);
    else if (bound_ && last_ != kNoTask && contains(awake, last_))
        node.chosen = last_; // the first execution under a bound preempts nothing
    else
        node.chosen = lowest(awake);
    node.backtrack = node.done = task_bit(node.chosen);
    node.order[0] = static_cast<std::uint8_t>(node.chosen);
    node.added = 1;
    ++position_;
    return node.chosen;
}

std::uint32_t Dpor::choose(std::uint32_t, std::uint32_t n) {
    if (position_ < path_.size()) {
        assert(path_[position_].choice && "model is not deterministic");
        return path_[position_++].chosen;
    }
    if (mode_ == Mode::optimal) {
        if (trees_.size() <= path_.size()) trees_.resize(path_.size() + 1);
        trees_[path_.size()] = handed_;
    }
    Node& node = path_.emplace_back();
    node.choice = true;
    node.enabled = first_n(n);
    node.chosen = 0;
    node.done = task_bit(0);
    ++position_;
    return 0;
}

void Dpor::record(TaskId task, const Access& access, std::uint32_t node, const Execution& ex,
                  bool commit) {
    const auto i = static_cast<std::uint32_t>(events_.size());
    // Entries past the tasks that exist are zero in every clock, and are neither copied nor
    // joined; a slot's entries left over from a wider execution are cleared.
    const std::size_t width = ex.tasks().size();
    if (clock_width_.size() <= i) {
        clocks_.resize(std::size_t{i + 1} * kMaxTasks, 0);
        clock_width_.resize(i + 1, 0);
    }
    std::uint32_t* clock = &clocks_[std::size_t{i} * kMaxTasks];
    if (clock_width_[i] > width) std::fill(clock + width, clock + clock_width_[i], 0);
    clock_width_[i] = static_cast<std::uint8_t>(width);
    const std::uint32_t* from = nullptr;
    if (last_event_[task] >= 0) {
        from = clock_of(static_cast<std::uint32_t>(last_event_[task]));
    } else if (const std::uint32_t after = ex.tasks()[task]->started_after(); after > 0) {
        from = clock_of(after - 1); // its spawner's step
    }
    // Loops, not memcpy: a model has a handful of tasks.
    for (std::size_t t = 0; t < width; ++t)
        clock[t] = from ? from[t] : 0;
    // The earlier steps this one depends on directly; every other dependent one is
    // happens-before one of these.
    std::vector<std::uint32_t>& preds = preds_;
    preds.clear();
    auto add = [&](std::int32_t e) {
        if (e >= 0) preds.push_back(static_cast<std::uint32_t>(e));
    };
    if (access.global) {
        for (std::size_t t = 0; t < ex.tasks().size(); ++t)
            if (t != task) add(last_event_[t]);
    } else {
        add(last_global_);
        add(last_write_of(access.object));
        if (access.write) {
            // The reads since the object's last write, in the order they were taken.
            const std::size_t first = preds.size();
            const std::int32_t since = last_write_of(access.object);
            for (std::int32_t r = last_read_of(access.object); r > since;
                 r = events_[static_cast<std::uint32_t>(r)].was_last)
                add(r);
            std::reverse(preds.begin() + static_cast<std::ptrdiff_t>(first), preds.end());
            if (ordered_write(access, writes_)) add(last_ordered_write_);
        }
        if (access.cpu_wide) [[unlikely]] {
            // Each other task's last step on the CPU: its earlier ones there come before it.
            TaskSet found = task_bit(task);
            for (std::uint32_t j = i;
                 j-- > 0 && found != first_n(static_cast<std::uint32_t>(ex.tasks().size()));) {
                const Event& e = events_[j];
                if (contains(found, e.task)) continue;
                if (e.access.cpu == access.cpu || e.access.cpu < 0) {
                    add(static_cast<std::int32_t>(j));
                    found |= task_bit(e.task);
                }
            }
        } else if (access.cpu >= 0) {
            add(last_cpu_wide_[static_cast<std::size_t>(access.cpu)]);
        } else {
            for (std::int32_t e : last_cpu_wide_)
                add(e);
        }
        if (access.read_side) [[unlikely]] {
            // A census reads each task's section; an entry or exit writes its own, which the
            // censuses since its last one read (the earlier ones come before that one).
            if (access.read_side & read_side_census)
                for (std::size_t t = 0; t < width; ++t)
                    if (t != task) add(last_section_[t]);
            if (access.read_side & read_side_change)
                for (std::uint32_t c : censuses_)
                    if (static_cast<std::int32_t>(c) > last_section_[task])
                        add(static_cast<std::int32_t>(c));
        }
    }
    Clock before; // read only for the tasks that exist
    for (std::size_t t = 0; t < width; ++t)
        before[t] = clock[t];
    const std::size_t n = preds.size();
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t* pred = clock_of(preds[k]);
        for (std::size_t t = 0; t < width; ++t)
            clock[t] = std::max(clock[t], pred[t]);
    }
    ++clock[task];
    events_.push_back(Event{task, access, node});
    if (!commit) {
        // A step not taken: only its races count, and every one of them does. The execution
        // stopped short of the steps that would have raced with it in a longer one.
        every_race(task, access, before.data(), i);
        events_.pop_back();
        return;
    }
    note_access(i);
    // A part reruns its giver's steps before its floor: their races were found then.
    if (node < replayed_below_) return;
    if (access.blocking)
        every_race(task, access, before.data(), i);
    else
        find_races(task, before.data(), i);
}

void Dpor::note_access(std::uint32_t i) {
    Event& e = events_[i];
    const Access& access = e.access;
    const auto step = static_cast<std::int32_t>(i);
    e.was_task = std::exchange(last_event_[e.task], step);
    if (access.cpu_wide) [[unlikely]]
        e.was_cpu = std::exchange(last_cpu_wide_[static_cast<std::size_t>(access.cpu)], step);
    if (access.read_side) [[unlikely]] {
        if (access.read_side & read_side_change)
            e.was_section = std::exchange(last_section_[e.task], step);
        if (access.read_side & read_side_census) censuses_.push_back(i);
    }
    if (access.global) {
        e.was_last = std::exchange(last_global_, step);
    } else if (access.write) {
        e.was_last = std::exchange(last_write_of(access.object), step);
        if (ordered_write(access, writes_))
            e.was_ordered = std::exchange(last_ordered_write_, step);
    } else {
        e.was_last = std::exchange(last_read_of(access.object), step);
    }
}

void Dpor::forget_access(const Event& e) {
    const Access& access = e.access;
    last_event_[e.task] = e.was_task;
    if (access.cpu_wide) [[unlikely]]
        last_cpu_wide_[static_cast<std::size_t>(access.cpu)] = e.was_cpu;
    if (access.read_side) [[unlikely]] {
        if (access.read_side & read_side_change) last_section_[e.task] = e.was_section;
        if (access.read_side & read_side_census) censuses_.pop_back();
    }
    if (access.global) {
        last_global_ = e.was_last;
    } else if (access.write) {
        last_write_of(access.object) = e.was_last;
        if (ordered_write(access, writes_)) last_ordered_write_ = e.was_ordered;
    } else {
        last_read_of(access.object) = e.was_last;
    }
}

// Every earlier dependent step of another task that is not ordered before this task's last
// one. For a step that had to wait this is not too many: the step it raced with is the one
// that took what it waits for (a lock's acquisition), which the release in between hides
// from find_races.
void Dpor::every_race(TaskId task, const Access& access, const std::uint32_t* before,
                      std::uint32_t i) {
    for (std::uint32_t j = 0; j < i; ++j)
        if (events_[j].task != task && !happens_before(j, before) &&
            dependent(events_[j].access, access, writes_))
            reverse(j, i);
}

// Races of step i: a direct predecessor by another task that nothing else orders before it.
void Dpor::find_races(TaskId task, const std::uint32_t* before, std::uint32_t i) {
    const std::vector<std::uint32_t>& preds = preds_;
    const std::size_t n = preds.size();
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t j = preds[k];
        if (events_[j].task == task || happens_before(j, before)) continue;
        bool ordered = false;
        for (std::size_t m = 0; m < n && !ordered; ++m)
            ordered = m != k && preds[m] != j && happens_before(j, clock_of(preds[m]));
        if (!ordered) reverse(j, i);
    }
}

// The race j -> i: run, at j's branch point, a task that starts the sequence of steps after
// j that do not depend on it, followed by i (an "initial" of it), unless one already does.
void Dpor::reverse(std::uint32_t j, std::uint32_t i) {
    const Node& at = path_[events_[j].node];
    std::vector<std::uint32_t>& v = after_race_;
    v.clear();
    for (std::uint32_t k = j + 1; k <= i; ++k)
        if (k == i || !happens_before(j, clock_of(k))) v.push_back(k);
    const std::size_t len = v.size();
    TaskSet seen = 0;
    TaskSet initials = 0;
    for (std::size_t a = 0; a < len; ++a) {
        const TaskId t = events_[v[a]].task;
        if (seen & task_bit(t)) continue;
        seen |= task_bit(t);
        bool first = true;
        for (std::size_t b = 0; b < a && first; ++b)
            first = !happens_before(v[b], clock_of(v[a]));
        if (first) initials |= task_bit(t);
    }
    const TaskSet runnable = initials & at.enabled;
    // An acquisition cannot run before the release of what another task holds: not a race
    // to reverse (the one with that task's acquisition is).
    if (!bound_ && events_[i].access.blocking && events_[j].access.held &&
        events_[j].access.object == events_[i].access.object)
        return;
    if (mode_ == Mode::optimal) {
        // Each initial's task would take that same step first at j's point, so if none can
        // run there the reversal cannot either; the race that can be reversed is with an
        // earlier step (every_race finds it).
        if (runnable) insert_reversal(events_[j].node);
        return;
    }
    const TaskId task = events_[i].task;
    std::uint32_t from = 0;
    if (!runnable) {
        // No earlier than the task's previous step (see blocked_race).
        const std::int32_t previous = last_event_before(task, i);
        if (previous >= 0) from = events_[static_cast<std::uint32_t>(previous)].node + 1;
    }
    settle(Deferred{Deferred::Kind::race, task, events_[j].node, from, initials, runnable});
}

void Dpor::settle(const Deferred& d) {
    if (d.node < owned_from_) {
        if (deferred_seen_.insert(d).second) deferred_.push_back(d);
        return;
    }
    if (d.kind == Deferred::Kind::add) {
        backtrack_at(d.node, d.initials);
        return;
    }
    Node& at = path_[d.node];
    if (!d.runnable) {
        if (!(d.initials & at.backtrack)) blocked_race(d.task, d.from, d.node);
        return;
    }
    // Under a bound the initial tried here may be out of it, and the one that is within it
    // at the switch point may not be the same: every initial is tried at both.
    if (bound_) {
        backtrack_at(d.node, d.runnable);
        return;
    }
    if (d.initials & at.backtrack) return;
    const TaskSet awake = d.runnable & ~at.sleep;
    add_backtrack(at, task_bit(lowest(awake ? awake : d.runnable)));
}

// The later step's task could not run at the earlier step's branch point `at`: that step's
// task held what it waits for (a lock taken before and released at that step). The race to
// reverse is with the step that made it wait, so the task runs instead at the latest branch
// point up to `at` where its operation could run, no earlier than `from`. With none, every
// task that can run at `at` does.
void Dpor::blocked_race(TaskId task, std::uint32_t from, std::uint32_t at) {
    for (std::uint32_t k = at + 1; k-- > from;) {
        const Node& node = path_[k];
        if (node.choice || !(node.enabled & task_bit(task))) continue;
        backtrack_at(k, task_bit(task));
        return;
    }
    backtrack_at(at, path_[at].enabled);
}

void Dpor::backtrack_at(std::uint32_t at, TaskSet tasks) {
    if (at < owned_from_) {
        settle(Deferred{Deferred::Kind::add, 0, at, 0, tasks, 0});
        return;
    }
    add_backtrack(path_[at], tasks);
    if (!bound_) return;
    for (std::uint32_t k = at + 1; k-- > 0;) {
        Node& node = path_[k];
        if (node.choice || (node.last != kNoTask && node.chosen == node.last)) continue;
        add_backtrack(node, tasks & node.enabled);
        return;
    }
}

void Dpor::add_backtrack(Node& node, TaskSet tasks) {
    for (TaskSet s = tasks & ~node.backtrack; s; s &= s - 1)
        node.order[node.added++] = static_cast<std::uint8_t>(lowest(s));
    node.backtrack |= tasks;
}

TaskSet Dpor::within_bound(const Node& node) const {
    const bool free = !bound_ || node.before < *bound_ || node.last == kNoTask ||
                      !contains(node.enabled, node.last);
    return free ? node.enabled : task_bit(node.last);
}

std::uint32_t Dpor::preemptions_after(const Node& node) const {
    const bool preempts =
        node.last != kNoTask && node.chosen != node.last && contains(node.enabled, node.last);
    return node.before + preempts;
}

void Dpor::insert_reversal(std::uint32_t at) {
    race_.steps.clear();
    for (std::uint32_t k : after_race_)
        race_.steps.push_back(WakeupStep{events_[k].task, events_[k].access});
    race_.node = at;
    race_.chosen = path_[at].chosen;
    race_.pending = 0;
    settle(race_);
}

void Dpor::settle(Reversal& r) {
    const Node& node = path_[r.node];
    // A task asleep here, or run from here before, that starts an equivalent execution: that
    // execution was run (or is being run). So does a task handed to another part, whose
    // branch here is that one step (split), but not one a part had still to run.
    const TaskSet before =
        (node.sleep | node.done | node.handed) & ~task_bit(r.chosen) & ~r.pending;
    for (TaskSet s = before; s; s &= s - 1)
        if (weak_initial(lowest(s), node.parked[lowest(s)], r.steps, writes_)) return;
    if (r.node >= owned_from_) {
        trees_[r.node].insert(r.steps, writes_);
        return;
    }
    if (r.node + 1 == owned_from_ && r.pending == 0) {
        // At its floor a part's branches left are its own, each one step: one that starts the
        // reversal covers it; the giver settles the rest with them still to run.
        for (const WakeupStep& step : trees_[r.node].first_steps()) {
            if (weak_initial(step.task, step.access, r.steps, writes_)) return;
            r.pending |= task_bit(step.task);
        }
    }
    if (reversals_seen_.contains(r)) return;
    reversals_seen_.insert(r);
    reversals_.push_back(r);
}

TaskId Dpor::follow_tree(std::uint32_t at, TaskSet awake) {
    if (trees_.size() <= at) trees_.resize(at + 1);
    WakeupTree& tree = trees_[at];
    tree = std::move(handed_);
    handed_.clear();
    // A branch whose task cannot run here is one whose later step turned out to wait (a
    // reversal is checked only for its first steps), or sleeps: an equivalent execution ran.
    while (!tree.empty() && !(awake & task_bit(tree.first_task())))
        (void)tree.take_first();
    if (tree.empty()) return lowest(awake);
    const TaskId task = tree.first_task();
    handed_ = tree.take_first();
    return task;
}

void Dpor::end(const Execution& ex) {
    commit_taken(ex);
    // The steps the unfinished tasks were about to take race with the steps taken, as any
    // step would: without them a search cut by its bound (or stopped by a deadlock or a
    // violation) would never try another task before the end.
    const auto beyond = static_cast<std::uint32_t>(path_.size());
    // An idle task that cannot run (a softirq with nothing pending) would have taken no step,
    // unless it was given something to do since its last one (a work queued, then cancelled).
    for (const auto& t : ex.tasks())
        if (!t->finished() && (!t->idle() || t->can_run() || t->woken()))
            record(t->id(), access_of(t->pending(), t.get()), beyond, ex, false);
}

std::int32_t Dpor::last_event_before(TaskId task, std::uint32_t i) const {
    for (std::uint32_t k = i; k-- > 0;)
        if (events_[k].task == task) return static_cast<std::int32_t>(k);
    return -1;
}

bool Dpor::next_execution() {
    // An execution that ended early (a violation) leaves nodes it never reached.
    path_.resize(position_);
    position_ = 0;
    return advance();
}

TaskSet Dpor::todo(const Node& node) const {
    if (node.choice) return node.enabled & ~node.done & ~node.handed;
    return node.backtrack & ~node.done & ~node.sleep & ~node.handed & within_bound(node);
}

TaskId Dpor::next_of(const Node& node, TaskSet todo) const {
    if (node.choice) return lowest(todo);
    for (std::uint8_t k = 0; k < node.added; ++k)
        if (contains(todo, node.order[k])) return node.order[k];
    assert(false && "a task to run that no race added");
    return lowest(todo);
}

bool Dpor::advance() {
    while (!path_.empty()) {
        Node& node = path_.back();
        const std::size_t at = path_.size() - 1;
        if (!suspended_.empty() && at == suspended_.back()) return false;
        // A new value of a model choice changes what the step that made it did.
        same_steps_before_ = at;
        while (same_steps_before_ > 0 && path_[same_steps_before_].choice)
            --same_steps_before_;
        if (mode_ == Mode::optimal && !node.choice) {
            WakeupTree& tree = trees_[at];
            while (!tree.empty() &&
                   !(node.enabled & ~node.done & ~node.sleep & task_bit(tree.first_task())))
                (void)tree.take_first();
            if (!tree.empty()) {
                node.chosen = tree.first_task();
                node.done |= task_bit(node.chosen);
                handed_ = tree.take_first();
                return true;
            }
        } else if (const TaskSet left = todo(node)) {
            node.chosen = next_of(node, left);
            node.done |= task_bit(node.chosen);
            if (mode_ == Mode::optimal) handed_ = trees_[at];
            return true;
        }
        // A part keeps its floor: the search it came from reads what ran there (resume).
        if (owned_from_ > 0 && at + 1 == owned_from_) return false;
        path_.pop_back();
    }
    return false;
}

int Dpor::branches(const Node& node) const {
    if (node.choice) return count(node.enabled);
    if (mode_ == Mode::source) return count(node.done | node.handed | todo(node));
    const auto i = static_cast<std::size_t>(&node - path_.data());
    return count(node.done | node.handed) + (i < trees_.size() ? trees_[i].first_tasks() : 0);
}

double Dpor::explored() const {
    ExploredFraction f;
    for (std::size_t i = owned_from_ > 0 ? owned_from_ - 1 : 0; i < path_.size(); ++i) {
        const Node& node = path_[i];
        const int finished = count(node.done | node.handed) - 1;
        if (!f.level(finished, branches(node))) break;
    }
    return f.fraction();
}

} // namespace lockcheck::detail
