// Runs executions one after another until the strategy is done (or a violation stops it).
#include "explorer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "scheduler/enum_names.hpp"
#include "scheduler/replay.hpp"

namespace lockcheck {

namespace {

constexpr std::string_view kPropertyKindNames[] = {"invariant", "final-check", "check",
                                                   "wait-bound"};

// The entry of a property, added at the end the first time it is seen.
PropertyStats& entry(std::vector<PropertyStats>& properties, PropertyKind kind,
                     std::string_view name) {
    for (PropertyStats& p : properties)
        if (p.kind == kind && p.name == name) return p;
    PropertyStats& added = properties.emplace_back();
    added.kind = kind;
    added.name = name;
    return added;
}

void add_property(std::vector<PropertyStats>& properties, PropertyKind kind,
                  const Execution::Property& p) {
    PropertyStats& e = entry(properties, kind, p.name);
    e.evaluations += p.evaluations;
    e.checked = p.checked;
}

// Whether `text` is `op(object)`, compared without building it.
bool spells(const std::string& text, std::string_view op, const std::string& object) {
    return text.size() == op.size() + object.size() + 2 && text.starts_with(op) &&
           text[op.size()] == '(' && text.compare(op.size() + 1, object.size(), object) == 0 &&
           text.back() == ')';
}

void add_check(std::vector<PropertyStats>& properties, const Execution::CheckSite& site) {
    PropertyStats& p = entry(properties, PropertyKind::check, site.message);
    p.evaluations += site.evaluations;
    if (site.after_release == 0) return;
    static const std::string kNoObject;
    const std::string& object = site.release_obj ? site.release_obj->name() : kNoObject;
    if (p.after_release == 0 && site.one_release)
        p.release = std::string(site.release_op) + "(" + object + ")";
    else if (!site.one_release || !spells(p.release, site.release_op, object))
        p.release.clear(); // released different locks: no one release to name
    p.after_release += site.after_release;
}

} // namespace

std::string_view property_kind_name(PropertyKind kind) {
    return kPropertyKindNames[static_cast<int>(kind)];
}

bool parse_property_kind(std::string_view name, PropertyKind& kind) {
    return parse_enum_name(kPropertyKindNames, name, kind);
}

const OpWaits* SearchStats::find_op(const std::string& op) const {
    const auto it =
        std::find_if(ops.begin(), ops.end(), [&op](const OpWaits& w) { return w.op == op; });
    return it == ops.end() ? nullptr : &*it;
}

void SearchStats::declare_check(const std::string& message) {
    entry(properties, PropertyKind::check, message);
}

void SearchStats::add_contention(const Execution& ex) {
    for (const Object* obj : ex.objects()) {
        const LockStats& h = obj->lock_stats;
        if (h.acquisitions == 0 && h.sleeps == 0 && h.holds == 0) continue;
        // Set-up makes the same objects in the same order in every execution: the entry the
        // object had the last time is tried first, and the names compared once.
        const auto id = static_cast<std::size_t>(obj->id());
        if (hold_of_object_.size() <= id) hold_of_object_.resize(id + 1, 0);
        auto it = holds.begin() +
                  static_cast<std::ptrdiff_t>(std::min(hold_of_object_[id], holds.size()));
        if (it == holds.end() || it->lock != obj->name())
            it = std::find_if(holds.begin(), holds.end(),
                              [obj](const LockHolds& l) { return l.lock == obj->name(); });
        if (it == holds.end()) it = holds.insert(holds.end(), LockHolds{obj->name(), {}});
        hold_of_object_[id] = static_cast<std::size_t>(it - holds.begin());
        it->stats.acquisitions += h.acquisitions;
        it->stats.contended += h.contended;
        it->stats.sleeps += h.sleeps;
        it->stats.holds += h.holds;
        it->stats.steps += h.steps;
        it->stats.longest = std::max(it->stats.longest, h.longest);
    }
    for (const OpWait& w : ex.op_waits()) {
        // By the literal's address first: every execution names its operations with the same
        // string literals, so the text is compared only the first time.
        auto it = ops.begin();
        while (it != ops.end() &&
               op_literals_[static_cast<std::size_t>(it - ops.begin())] != w.name &&
               it->op != w.name)
            ++it;
        if (it == ops.end()) it = ops.insert(ops.end(), OpWaits{w.name, 0, 0, 0, {}});
        op_literals_.resize(ops.size());
        op_literals_[static_cast<std::size_t>(it - ops.begin())] = w.name;
        if (it->count == 0 || w.worst > it->worst) {
            it->worst = w.worst;
            it->worst_schedule = ex.schedule();
        }
        it->count += w.count;
        it->total += w.total;
    }
}

void SearchStats::add(const Execution& ex, const Outcome& out) {
    ++executions;
    steps += out.steps;
    deepest = std::max(deepest, out.steps);
    tasks = std::max(tasks, static_cast<std::uint32_t>(ex.tasks().size()));
    if (out.end == End::cut) ++cut;
    if (out.end == End::stopped) ++sleep_blocked;
    if (out.spin_bound_used) ++spin_bound_used;
    if (const TableFull& full = out.table_full; full.table) {
        auto it = std::find_if(full_tables.begin(), full_tables.end(),
                               [&full](const FullTable& f) { return f.table == full.table; });
        if (it == full_tables.end())
            it = full_tables.insert(full_tables.end(), FullTable{full.table, full.capacity, 0});
        ++it->executions;
    }
    const Counters& c = ex.counters();
    total.sleeps += c.sleeps;
    total.wakeups += c.wakeups;
    total.spins += c.spins;
    most.sleeps = std::max(most.sleeps, c.sleeps);
    most.wakeups = std::max(most.wakeups, c.wakeups);
    most.spins = std::max(most.spins, c.spins);
    // An execution a reduction stopped early repeats a prefix explored in full elsewhere:
    // counted, it would only dilute the figures per execution.
    if (out.end != End::stopped) add_contention(ex);
    for (const Execution::Property& p : ex.invariants())
        add_property(properties, PropertyKind::invariant, p);
    for (const Execution::Property& p : ex.final_checks())
        add_property(properties, PropertyKind::final_check, p);
    for (const Execution::CheckSite& site : ex.check_sites())
        add_check(properties, site);
    add_wait_bounds(ex);
}

void SearchStats::add_wait_bounds(const Execution& ex) {
    if (ex.wait_bounds().empty()) return;
    if (wait_bounds.empty()) wait_bounds = ex.wait_bounds();
    for (const WaitBound& b : ex.wait_bounds()) {
        PropertyStats& p = entry(properties, PropertyKind::wait_bound, b.op);
        for (const OpWait& w : ex.op_waits())
            if (w.name == b.op) p.evaluations += w.count;
    }
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ProgressReport search_progress(const SearchResult& result, const Strategy& strategy,
                               const CheckOptions& options, double seconds) {
    ProgressReport report;
    report.executions = result.stats.executions;
    report.seconds = seconds;
    report.deepest = result.stats.deepest;
    report.violations = result.findings.size();
    report.explored = strategy.explored();
    // A limit may end the search first: the part of the run done is then the larger.
    if (options.time_limit > 0)
        report.explored = std::max(report.explored, seconds / options.time_limit);
    if (options.max_executions)
        report.explored =
            std::max(report.explored, static_cast<double>(report.executions) /
                                          static_cast<double>(options.max_executions));
    return report;
}

} // namespace

namespace {

// After a search that ran every execution it was to run: each operation whose worst wait is
// more than its bound times its mean is a finding, shown by the execution of that worst wait.
void check_wait_ratios(const std::vector<WaitRatio>& ratios, SearchResult& result) {
    result.stats.wait_ratios = ratios;
    for (const WaitRatio& bound : ratios)
        for (const OpWaits& w : result.stats.ops) {
            if (w.op != bound.op || w.total == 0) continue;
            const double mean = static_cast<double>(w.total) / static_cast<double>(w.count);
            const double ratio = w.worst / mean;
            if (ratio <= bound.ratio) continue;
            char text[160];
            std::snprintf(text, sizeof text,
                          "worst %u steps, mean %.2f steps: %.2f times (--max-wait-ratio %s=%g)",
                          w.worst, mean, ratio, w.op.c_str(), bound.ratio);
            Violation v;
            v.kind = ViolationKind::wait_bound;
            v.property = w.op;
            char message[96];
            std::snprintf(message, sizeof message, " waited more than %g times its mean at worst",
                          bound.ratio);
            v.message = w.op + message;
            v.details = {text};
            result.findings.push_back(Finding{std::move(v), w.worst_schedule, true});
        }
}

} // namespace

SearchResult explore(const Setup& setup, Strategy& strategy, const CheckOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    StackPool stacks(options.stack_size);
    SearchResult result;
    std::set<std::string> seen;
    ProgressPacer pacer;
    Execution::Limits limits = options.limits(options.depth);
    limits.fingerprints = strategy.fingerprints();
    for (;;) {
        Execution ex(stacks, strategy, limits);
        setup();
        Outcome out = ex.run();
        result.stats.add(ex, out);
        out.each_violation([&](const Violation& v, std::size_t reached) {
            if (!seen.insert(v.key()).second) return;
            const auto cut = ex.schedule().begin() + static_cast<std::ptrdiff_t>(reached);
            result.findings.push_back(Finding{v, Schedule(ex.schedule().begin(), cut)});
        });
        if (out.violation && !options.keep_going) break;
        if (!strategy.next_execution()) {
            check_wait_ratios(options.wait_ratios, result);
            break;
        }
        if (options.progress && pacer.tick())
            options.progress->show(search_progress(result, strategy, options, pacer.seconds()));
        // Limits cut a search short only when there was more to run.
        if (options.stop && *options.stop) {
            result.stats.stopped_by = signal_name(*options.stop);
            break;
        }
        if (options.max_executions && result.stats.executions >= options.max_executions) {
            result.stats.stopped_by = "--max-executions " + std::to_string(options.max_executions);
            break;
        }
        if (options.time_limit > 0 && seconds_since(start) >= options.time_limit) {
            result.stats.stopped_by = "--time-limit";
            break;
        }
    }
    result.stats.states = strategy.states();
    result.stats.elapsed_seconds = seconds_since(start);
    return result;
}

namespace {

std::string steps(std::uint32_t n) {
    return std::to_string(n) + (n == 1 ? " step" : " steps");
}

std::string divergence(const Execution& ex, std::uint32_t step, const Outcome& out) {
    const auto& tasks = ex.tasks();
    std::string at = "step " + std::to_string(step) + ": ";
    if (out.diverged_choice)
        return at + "the schedule's value for a choice among " +
               std::to_string(out.diverged_choice) + " is out of range";
    const TaskId id = out.diverged_task;
    if (id >= tasks.size())
        return at + "there is no task " + std::to_string(id) + " (the model has tasks 0.." +
               std::to_string(tasks.size() - 1) + ")";
    const Task& t = *tasks[id];
    std::string who = "task " + std::to_string(id) + " (" + t.name() + ")";
    if (t.exited()) return at + who + " has already finished";
    std::string op = t.pending().name;
    if (t.pending().obj) op += "(" + t.pending().obj->name() + ")";
    return at + who + " cannot run: it is blocked in " + op;
}

} // namespace

std::vector<PropertyStats> declared_properties(const Setup& setup, const CheckOptions& options) {
    StackPool stacks(options.stack_size);
    Replay strategy(Schedule{});
    CheckOptions all = options;
    all.unchecked.clear();
    Execution ex(stacks, strategy, all.limits(options.depth));
    setup();
    std::vector<PropertyStats> declared;
    for (const Execution::Property& p : ex.invariants())
        add_property(declared, PropertyKind::invariant, p);
    for (const Execution::Property& p : ex.final_checks())
        add_property(declared, PropertyKind::final_check, p);
    for (const WaitBound& b : ex.wait_bounds())
        entry(declared, PropertyKind::wait_bound, b.op);
    return declared;
}

ReplayResult replay(const Setup& setup, const Schedule& schedule, const CheckOptions& options,
                    const Violation* reproduces) {
    StackPool stacks(options.stack_size);
    Replay strategy(schedule);
    TraceRecorder recorder;
    const auto depth = static_cast<std::uint32_t>(schedule.size());
    // A replay goes on past the violations the kernel survives up to the end of its schedule,
    // and past another finding met at the same step as the one it reproduces.
    Execution::Limits limits = options.limits(depth);
    limits.keep_going_until = schedule.size();
    limits.reproduces = reproduces;
    Execution ex(stacks, strategy, limits, &recorder);
    setup();
    ReplayResult r;
    r.outcome = ex.run();
    // What the schedule leads to is the violation recorded last: the execution went on past
    // the ones before it.
    if (!r.outcome.later.empty()) {
        r.outcome.violation = std::move(r.outcome.later.back().violation);
        r.outcome.violation_reached = r.outcome.later.back().reached;
        r.outcome.later.clear();
    }
    r.trace = recorder.take(ex);
    // A final check breaks after every step, not at one.
    if (r.outcome.violation && r.outcome.violation->kind != ViolationKind::final_check)
        r.trace.violating_step = r.outcome.violation->step;
    if (r.outcome.violation) r.trace.cited = r.outcome.violation->cited;
    r.stats.add(ex, r.outcome);
    const std::uint32_t ran = r.outcome.steps;
    if (r.outcome.end == End::diverged) {
        r.error = divergence(ex, r.outcome.diverged_choice ? ran : ran + 1, r.outcome);
    } else if (r.outcome.end == End::cut || r.outcome.end == End::stopped) {
        r.error = "the schedule ends after " + steps(ran) + " but the execution goes on";
    } else if (strategy.consumed() < schedule.size()) {
        // A schedule holds task picks and the values of model choices: count entries.
        r.error = "the execution ends after " + steps(ran) + " but the schedule has " +
                  std::to_string(schedule.size()) + " entries, " +
                  std::to_string(strategy.consumed()) + " of them used";
    } else {
        r.ok = true;
    }
    return r;
}

} // namespace lockcheck
