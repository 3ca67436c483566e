// What a search found and measured: its distinct violations, and its figures (executions,
// waits, lock holds, how often each property was evaluated), added up one execution at a time
// and merged part by part when several threads ran the search.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/execution.hpp"
#include "scheduler/schedule.hpp"
#include "scheduler/strategy.hpp"

namespace lockcheck::detail {

// --max-wait-ratio OP=R: an operation's worst wait may be at most R times its mean wait over
// the whole search (dbench's MaxLat/AvgLat). A property of the search, not of one execution:
// evaluated once a search has run every execution it was to run.
struct WaitRatio {
    std::string op;
    double ratio = 0;
};

struct Finding {
    Violation violation;
    Schedule schedule; // replays it
    // A violation of the search as a whole (--max-wait-ratio): the schedule is the execution
    // that shows it (the operation's worst wait), which alone does not reproduce it.
    bool of_search = false;
};

// A lock's hold times over the whole search, by object (the same in every execution).
struct LockHolds {
    std::string lock;
    LockStats stats;
};

// A named operation's waits (scheduler/op_wait.hpp) over the whole search, and the first
// execution explored in which one instance waited the longest.
struct OpWaits {
    std::string op;
    std::uint64_t count = 0; // instances that finished
    std::uint64_t total = 0; // steps waited, summed over them
    std::uint32_t worst = 0;
    Schedule worst_schedule;
};

// An internal table that filled (TableFull), and in how many executions.
struct FullTable {
    std::string table;
    std::uint32_t capacity = 0;
    std::uint64_t executions = 0;
};

// What states a property: each kind is evaluated at its own moments.
enum class PropertyKind : std::uint8_t {
    invariant,   // after every step
    final_check, // when every task has finished
    check,       // where task code calls check(), BUG_ON() or WARN_ON()
    wait_bound,  // when an instance of the named operation ends (--max-wait, max_wait())
};

// "invariant", "final-check", "check", "wait-bound"
std::string_view property_kind_name(PropertyKind kind);
// Parses a name produced by property_kind_name; false if there is none such.
bool parse_property_kind(std::string_view name, PropertyKind& kind);

// How often the search evaluated one property (SPIN's "unreached" report: a property never
// evaluated proves nothing, whatever the verdict says).
struct PropertyStats {
    PropertyKind kind{};
    // The invariant's or final check's name, the check()'s message, the bounded operation.
    std::string name;
    std::uint64_t evaluations = 0;
    // A check(): evaluations right after its task's own step released a lock, and that
    // release ("spin_unlock(table_lock)") when it was always the same one (else empty).
    std::uint64_t after_release = 0;
    std::string release;
    bool checked = true; // false: switched off (--no-check), so never evaluated
};

// How the search reached its executions (issue 41): the checkpoints it saved, and the executions
// that went on from one instead of replaying their path from the start. A figure of speed, not
// of what was explored: under --jobs it depends on how the threads split the search, so
// --no-timing drops it with the times.
struct CheckpointCounts {
    std::string off; // why the search used none ("--no-checkpoints", ...); empty: it did
    std::uint64_t saved = 0;
    std::uint64_t resumed = 0;    // executions that went on from a checkpoint
    std::uint64_t steps_kept = 0; // the steps before their checkpoints, not run again
};

struct SearchStats {
    std::uint64_t executions = 0;
    std::uint64_t cut = 0; // executions that reached a bound unfinished (--depth, --max-steps)
    std::uint64_t cut_by_steps = 0; // of those, the ones --max-steps cut
    // Executions a partial-order reduction stopped: every task that could run had already
    // been explored from an equivalent state (DPOR's sleep sets).
    std::uint64_t sleep_blocked = 0;
    // Executions that ended where a loop's turn that changed nothing had read an older write
    // (End::redundant): another execution covers each.
    std::uint64_t redundant = 0;
    // Under lkmm, executions that ended with a read of a write not yet made unsettled
    // (End::unsettled), and of those, the ones with a finding that waited for it: it rested on
    // a write that did not come, and went with the execution.
    std::uint64_t unsettled = 0;
    std::uint64_t unsettled_findings = 0;
    std::uint64_t steps = 0;   // over all executions
    std::uint32_t deepest = 0; // the deepest step of any execution (--depth)
    std::uint32_t longest = 0; // the most steps one execution took
    bool lockdep_off = false;  // the model called lockdep_off(): no lock-order checking
    std::uint32_t tasks = 0;   // the most tasks one execution had
    // Wall-clock seconds of the search and, when a command then minimized its counterexamples,
    // of that too; minimizing_seconds is the part spent minimizing.
    double elapsed_seconds = 0;
    double minimizing_seconds = 0;
    std::uint32_t threads = 1;    // that ran executions (--jobs): timing, like the seconds
    CheckpointCounts checkpoints; // timing too
    Counters total;               // summed over executions
    Counters most;                // the largest value of each counter in one execution
    std::vector<LockHolds> holds; // locks ever taken or slept on
    std::vector<OpWaits> ops;     // the model's named operations, in the order first finished
    // Set when a limit or a signal stopped the search before the strategy was done:
    // "--time-limit", "SIGINT".
    std::string stopped_by;
    // Internal tables that filled, in the order first met: what did not fit went unchecked,
    // so the search is incomplete.
    std::vector<FullTable> full_tables;
    // Under --memory-model lkmm, the operations some execution ordered fully rather than access
    // by access (model/weak_memory.hpp), sorted: what the memory model approximated.
    std::vector<std::string> fully_ordered;
    // Under lkmm, the rounds the search ran (docs/memory-model.md, "Load buffering"): the
    // stats above are the last round's, which explores every execution the earlier ones did.
    std::uint32_t rounds = 0;
    std::uint64_t earlier_rounds_executions = 0; // the executions of the rounds before the last
    // Executions in which the spin bound took part (Outcome::spin_bound_used).
    std::uint64_t spin_bound_used = 0;
    // A stateful search's table (--state-cache); all zero otherwise.
    StateCounts states;
    // Where lists were kept as sets: the first read of a list's order, which ended the search
    // (LoopEnd::list_order_read), "list_entries(head) at step 3".
    std::string list_order_read;
    // Where loops were judged as cycles: what made the search begin again with them watched
    // (LoopEnd::loops_unjudged), "execution 12 was cut by the depth bound".
    std::string loops_unjudged;
    // What loops_unjudged names is a finding: a violation, or a cycle that can go on for ever.
    bool unjudged_finding = false;
    // Every property the model states: its invariants and final checks in the order
    // registered, then each check() in the order first reached.
    std::vector<PropertyStats> properties;
    // The latency bounds checked (--max-wait's, then the model's own), each also a property,
    // and the bounds on worst/mean waits (--max-wait-ratio).
    std::vector<WaitBound> wait_bounds;
    std::vector<WaitRatio> wait_ratios;

    // Adds one finished execution (before it is destroyed).
    void add(const Execution& ex, const Outcome& out);
    // Adds the figures of a part of the search run after those already here (by another
    // thread): the same figures as adding its executions one by one. Leaves the times and
    // stopped_by as they are.
    void merge(const SearchStats& later);
    void add_fully_ordered(const std::string& op);
    // Drops the figures of speed, which vary from one run of a search to the next: the times,
    // the threads and the checkpoints (--no-timing).
    void forget_speed();
    // Lists the execution's invariants, final checks and latency bounds, evaluated 0 times: the
    // properties its set-up declares.
    void declare(const Execution& ex);
    // The executions the figures of `holds` and `ops` come from: all but those a reduction
    // stopped early.
    std::uint64_t measured() const { return executions - sleep_blocked - redundant - unsettled; }
    // The named operation `op`'s waits, if an instance of it finished.
    const OpWaits* find_op(const std::string& op) const;
    // Lists the check() with `message` even if the search never reached it (a check() is
    // known only once reached, unless a variant declares it may fail).
    void declare_check(const std::string& message);

  private:
    void add_contention(const Execution& ex);
    std::vector<const char*> op_literals_;    // by ops index: the name's literal last met
    std::vector<std::size_t> hold_of_object_; // by object id: its holds index last time
    void add_wait_bounds(const Execution& ex);
};

struct SearchResult {
    SearchStats stats;
    std::vector<Finding> findings; // distinct, in the order found

    // Appends what a part of the search run after this one found and measured: its findings
    // not already here, and its figures (SearchStats::merge).
    void merge(SearchResult&& later);
    // Whether `v` is a finding already here (Violation::key): if so, what it is about joins
    // that finding's (Violation::merge_objects).
    bool found_again(const Violation& v);
};

} // namespace lockcheck::detail
