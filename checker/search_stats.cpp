// SearchStats and SearchResult: a search's figures added up execution by execution, and the
// figures of two parts of a search merged as if one had run after the other.
#include "search_stats.hpp"

#include <algorithm>

#include "model/lockdep.hpp"
#include "model/weak_memory.hpp"
#include "scheduler/enum_names.hpp"

namespace lockcheck::detail {

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

void add_holds(LockStats& into, const LockStats& h) {
    into.acquisitions += h.acquisitions;
    into.contended += h.contended;
    into.sleeps += h.sleeps;
    into.holds += h.holds;
    into.steps += h.steps;
    into.longest = std::max(into.longest, h.longest);
}

// Sums `total` and takes the largest of `most`: one execution's counters are both.
void add_counters(Counters& total, Counters& most, const Counters& later_total,
                  const Counters& later_most) {
    total.sleeps += later_total.sleeps;
    total.wakeups += later_total.wakeups;
    total.spins += later_total.spins;
    most.sleeps = std::max(most.sleeps, later_most.sleeps);
    most.wakeups = std::max(most.wakeups, later_most.wakeups);
    most.spins = std::max(most.spins, later_most.spins);
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

// A property's figures over a later part of the search (a check()'s release as add_check
// decides it).
void add_property(std::vector<PropertyStats>& properties, const PropertyStats& later) {
    PropertyStats& p = entry(properties, later.kind, later.name);
    p.evaluations += later.evaluations;
    p.checked = later.checked;
    if (later.after_release == 0) return;
    if (p.after_release == 0)
        p.release = later.release;
    else if (p.release != later.release)
        p.release.clear();
    p.after_release += later.after_release;
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
        add_holds(it->stats, h);
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
    if (ex.limits().memory_model == MemoryModel::lkmm) [[unlikely]]
        for (const char* op : weak_memory::fully_ordered_operations(ex))
            add_fully_ordered(op);
    steps += out.steps;
    deepest = std::max(deepest, out.depth);
    longest = std::max(longest, out.steps);
    tasks = std::max(tasks, static_cast<std::uint32_t>(ex.tasks().size()));
    if (out.end == End::cut) {
        ++cut;
        cut_by_steps += out.cut_by_steps;
    }
    if (out.end == End::stopped) ++sleep_blocked;
    if (out.end == End::redundant) ++redundant;
    if (out.end == End::unsettled) {
        ++unsettled;
        unsettled_findings += out.unsettled_finding;
    }
    if (out.spin_bound_used) ++spin_bound_used;
    lockdep_off = lockdep_off || lockdep_turned_off(ex);
    if (const TableFull& full = out.table_full; full.table) {
        auto it = std::find_if(full_tables.begin(), full_tables.end(),
                               [&full](const FullTable& f) { return f.table == full.table; });
        if (it == full_tables.end())
            it = full_tables.insert(full_tables.end(), FullTable{full.table, full.capacity, 0});
        ++it->executions;
    }
    add_counters(total, most, ex.counters(), ex.counters());
    // An execution a reduction stopped early (or a loop's redundant turn, End::redundant)
    // repeats a prefix explored in full elsewhere:
    // counted, it would only dilute the figures per execution.
    if (out.end != End::stopped && out.end != End::redundant && out.end != End::unsettled)
        add_contention(ex);
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

void SearchStats::add_fully_ordered(const std::string& op) {
    const auto at = std::lower_bound(fully_ordered.begin(), fully_ordered.end(), op);
    if (at == fully_ordered.end() || *at != op) fully_ordered.insert(at, op);
}

void SearchStats::merge(const SearchStats& later) {
    if (list_order_read.empty()) list_order_read = later.list_order_read;
    if (loops_unjudged.empty()) loops_unjudged = later.loops_unjudged;
    executions += later.executions;
    for (const std::string& op : later.fully_ordered)
        add_fully_ordered(op);
    cut += later.cut;
    cut_by_steps += later.cut_by_steps;
    lockdep_off = lockdep_off || later.lockdep_off;
    sleep_blocked += later.sleep_blocked;
    redundant += later.redundant;
    unsettled += later.unsettled;
    unsettled_findings += later.unsettled_findings;
    steps += later.steps;
    deepest = std::max(deepest, later.deepest);
    longest = std::max(longest, later.longest);
    tasks = std::max(tasks, later.tasks);
    add_counters(total, most, later.total, later.most);
    for (const LockHolds& h : later.holds) {
        auto it = std::find_if(holds.begin(), holds.end(),
                               [&h](const LockHolds& l) { return l.lock == h.lock; });
        if (it == holds.end()) it = holds.insert(holds.end(), LockHolds{h.lock, {}});
        add_holds(it->stats, h.stats);
    }
    for (const OpWaits& w : later.ops) {
        auto it =
            std::find_if(ops.begin(), ops.end(), [&w](const OpWaits& o) { return o.op == w.op; });
        if (it == ops.end()) it = ops.insert(ops.end(), OpWaits{w.op, 0, 0, 0, {}});
        // The first execution of the whole search with the longest wait.
        if (it->count == 0 || w.worst > it->worst) {
            it->worst = w.worst;
            it->worst_schedule = w.worst_schedule;
        }
        it->count += w.count;
        it->total += w.total;
    }
    op_literals_.resize(ops.size(), nullptr);
    for (const FullTable& f : later.full_tables) {
        auto it = std::find_if(full_tables.begin(), full_tables.end(),
                               [&f](const FullTable& t) { return t.table == f.table; });
        if (it == full_tables.end())
            it = full_tables.insert(full_tables.end(), FullTable{f.table, f.capacity, 0});
        it->executions += f.executions;
    }
    spin_bound_used += later.spin_bound_used;
    // Every part's search is the same; a part that ran no execution has no reason.
    if (!later.checkpoints.off.empty()) checkpoints.off = later.checkpoints.off;
    checkpoints.saved += later.checkpoints.saved;
    checkpoints.resumed += later.checkpoints.resumed;
    checkpoints.steps_kept += later.checkpoints.steps_kept;
    states.stored += later.states.stored;
    states.matched += later.states.matched;
    states.bytes += later.states.bytes;
    states.full = states.full || later.states.full;
    for (const PropertyStats& p : later.properties)
        add_property(properties, p);
    if (wait_bounds.empty()) wait_bounds = later.wait_bounds;
}

void SearchStats::forget_speed() {
    elapsed_seconds = 0;
    minimizing_seconds = 0;
    threads = 0;
    checkpoints = {};
}

void SearchStats::declare(const Execution& ex) {
    for (const Execution::Property& p : ex.invariants())
        add_property(properties, PropertyKind::invariant, p);
    for (const Execution::Property& p : ex.final_checks())
        add_property(properties, PropertyKind::final_check, p);
    for (const WaitBound& b : ex.wait_bounds())
        entry(properties, PropertyKind::wait_bound, b.op);
}

void SearchResult::merge(SearchResult&& later) {
    stats.merge(later.stats);
    for (Finding& f : later.findings)
        if (!found_again(f.violation)) findings.push_back(std::move(f));
}

bool SearchResult::found_again(const Violation& v) {
    const std::string key = v.key();
    const auto it = std::find_if(findings.begin(), findings.end(),
                                 [&key](const Finding& f) { return f.violation.key() == key; });
    if (it == findings.end()) return false;
    it->violation.merge_objects(v);
    return true;
}

} // namespace lockcheck::detail
