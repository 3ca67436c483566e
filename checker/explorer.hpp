// The checker's entry points: explore a model's executions under a strategy and collect what
// breaks, and replay one schedule into a full trace.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "progress.hpp"
#include "scheduler/execution.hpp"
#include "scheduler/schedule.hpp"
#include "scheduler/strategy.hpp"
#include "trace.hpp"

namespace lockcheck {

// Builds one execution's state and tasks (a protocol's set-up with its variant and sizes).
using Setup = std::function<void()>;

// --max-wait-ratio OP=R: an operation's worst wait may be at most R times its mean wait over
// the whole search (dbench's MaxLat/AvgLat). A property of the search, not of one execution:
// evaluated once a search has run every execution it was to run.
struct WaitRatio {
    std::string op;
    double ratio = 0;
};

struct CheckOptions {
    std::uint32_t depth = 200;
    bool keep_going = false;             // collect every distinct violation
    std::size_t stack_size = 256 * 1024; // per task fiber
    unsigned step_timeout = 10;          // seconds without a scheduling point: an endless loop
    std::uint64_t max_executions = 0;    // stop after this many (0: no limit)
    double time_limit = 0;               // seconds; stop after the execution running then (0: none)
    ProgressSink* progress = nullptr;    // shown how the search goes, a few times a second
    // Once it holds a signal's number, the search stops after the execution running then.
    const StopRequest* stop = nullptr;
    std::uint32_t spin_bound = 32; // see Execution::Limits::spin_bound
    // The properties checked (see Execution::Limits): lockdep's reports, data races, and the
    // model's invariants and final checks but those named in `unchecked`.
    bool lockdep = true;
    bool races = true;
    std::vector<std::string> unchecked;
    std::vector<WaitBound> wait_bounds; // --max-wait
    std::vector<WaitRatio> wait_ratios; // --max-wait-ratio

    // The limits of one execution of at most `steps` steps. With keep_going it goes on past
    // the violations the kernel survives, so that each one's later steps are checked too,
    // under every strategy alike: a partial-order reduction needs their races to run the
    // executions that reorder them.
    Execution::Limits limits(std::uint32_t steps) const {
        return Execution::Limits{steps,
                                 step_timeout,
                                 spin_bound,
                                 keep_going ? Execution::kNoEnd : 0,
                                 nullptr,
                                 lockdep,
                                 races,
                                 unchecked.empty() ? nullptr : &unchecked,
                                 wait_bounds.empty() ? nullptr : &wait_bounds};
    }
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

struct SearchStats {
    std::uint64_t executions = 0;
    std::uint64_t cut = 0; // executions that reached the depth bound unfinished
    // Executions a partial-order reduction stopped: every task that could run had already
    // been explored from an equivalent state (DPOR's sleep sets).
    std::uint64_t sleep_blocked = 0;
    std::uint64_t steps = 0; // over all executions
    std::uint32_t deepest = 0;
    std::uint32_t tasks = 0; // the most tasks one execution had
    // Wall-clock seconds of the search and, when a command then minimized its counterexamples,
    // of that too; minimizing_seconds is the part spent minimizing.
    double elapsed_seconds = 0;
    double minimizing_seconds = 0;
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
    // Executions in which the spin bound took part (Outcome::spin_bound_used).
    std::uint64_t spin_bound_used = 0;
    // A stateful search's table (--state-cache); all zero otherwise.
    StateCounts states;
    // Every property the model states: its invariants and final checks in the order
    // registered, then each check() in the order first reached.
    std::vector<PropertyStats> properties;
    // The latency bounds checked (--max-wait's, then the model's own), each also a property,
    // and the bounds on worst/mean waits (--max-wait-ratio).
    std::vector<WaitBound> wait_bounds;
    std::vector<WaitRatio> wait_ratios;

    // Adds one finished execution (before it is destroyed).
    void add(const Execution& ex, const Outcome& out);
    // The executions the figures of `holds` and `ops` come from: all but those a reduction
    // stopped early.
    std::uint64_t measured() const { return executions - sleep_blocked; }
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
};

SearchResult explore(const Setup& setup, Strategy& strategy, const CheckOptions& options);

// The model's invariants and final checks as its set-up declares them, in that order; no task
// runs. What --check and --no-check may name.
std::vector<PropertyStats> declared_properties(const Setup& setup, const CheckOptions& options);

struct ReplayResult {
    bool ok = false;
    std::string error; // why the schedule does not fit the model, when !ok
    Outcome outcome;
    Trace trace;
    SearchStats stats; // of this one execution
};

// Runs exactly `schedule`; it must drive the execution to its end (or to a violation). It goes
// on past the violations the kernel survives (survivable()) met before the schedule's end
// (a counterexample found with keep_going may have them), and ends at the first violation
// met at its end, or, given `reproduces` (the violation a search found with this schedule),
// at the first one there that is the same finding: several may be met after its last step.
// outcome.violation is the one it ended at.
ReplayResult replay(const Setup& setup, const Schedule& schedule, const CheckOptions& options,
                    const Violation* reproduces = nullptr);

} // namespace lockcheck
