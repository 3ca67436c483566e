// Plain-text reports: the numbered step-by-step trace of a counterexample, the violation it
// ends in, and the fixed summary block every run ends with (stable, greppable, as SPIN's),
// with the judgement of a run against the verdict its variant declares.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checker/explorer.hpp"
#include "checker/protocol.hpp"
#include "checker/search.hpp"
#include "checker/trace.hpp"
#include "scheduler/violation.hpp"

namespace lockcheck::detail {

// The size of a reported counterexample, and of the first one found if minimizing changed it.
struct CounterexampleSize {
    std::uint32_t preemptions = 0;
    std::uint32_t steps = 0;
    bool minimized = false;               // a search for a smaller one ran
    bool minimal = true;                  // false: a limit or a signal stopped that search first
    std::string minimize_stopped_by = {}; // which: "--minimize-time 10x", "SIGINT"
    std::uint32_t found_preemptions = 0;  // the one found first
    std::uint32_t found_steps = 0;
};

// "1 preemption, 12 steps (minimized from 3 preemptions, 17 steps)", "... (minimal)", "... (not
// proven minimal: SIGINT stopped the search for a smaller one)", "... (not minimized)": the
// summary's `reported` row.
std::string size_text(const CounterexampleSize& size);

// How a run's result compares with its variant's declared verdict.
enum class Agreement : std::uint8_t {
    as_declared, // it found the declared violation, or verified a variant declared verified
    differs,     // it found another violation, or none where the search was complete
    incomplete,  // it found none, but did not look everywhere: it can tell neither
};

// "as-declared", "differs", "incomplete"
std::string_view agreement_name(Agreement agreement);
// Parses a name produced by agreement_name; false if there is none such.
bool parse_agreement(std::string_view name, Agreement& agreement);

struct Judgement {
    Expectation expected;
    Agreement agreement = Agreement::incomplete;
    // The summary's `expected` row: "violation (invariant): as declared".
    std::string text;
};

struct Summary {
    std::string model;
    std::string variant;
    // The model's sizes by name, in the protocol's order: {"renames", 1}, {"fsyncs", 1}.
    std::vector<std::pair<std::string, int>> parameters;
    std::string strategy;
    std::string bound;
    SearchStats stats;
    std::size_t violations = 0;
    std::vector<CounterexampleSize> counterexamples; // one per violation, in order
    bool sampled = false;                            // random or pct: not every execution
    std::optional<std::uint32_t> preemption_bound;   // dfs --preemptions K
    std::uint32_t pct_depth = 0;                     // pct: the bug depth d aimed at (0: not pct)
    std::uint32_t pct_steps = 0;                     // pct: k, the steps change points fall in
    // The property classes checked (--no-lockdep, --no-races); the model's own properties
    // switched off are those of stats.properties not `checked`.
    bool lockdep = true;
    bool races = true;
    MemoryModel memory_model = MemoryModel::sc; // --memory-model
    // false (--no-timing): no elapsed row, and every time 0, so that reruns are byte-identical.
    bool timed = true;
    // What kept a search asked for several threads (--jobs) on one: "--state-cache"; "" if
    // none did. Shown in the elapsed row.
    std::string one_thread{};
    // The run against its variant's declared verdict; none for a replay, which runs one
    // schedule and declares nothing.
    std::optional<Judgement> judgement;
    std::optional<Shard> shard; // --shard I/N: one piece of the search
    bool keep_going = false;    // --keep-going: what a merge of shards must know
};

// Judges a run (`summary`, whose violations are `found`) against the verdict its variant
// declares. A violation found is judged whatever the search missed; a run that found none
// agrees or differs only if it looked everywhere: a complete, exhaustive search with no
// execution cut by the depth bound and no preemption bound. One judge for every command that
// compares a run with its declaration.
Judgement judge(const Expectation& expected, const std::vector<Finding>& found,
                const Summary& summary);

// A row of a trace as reports show it: one step, or a run of steps the violation does not
// depend on, folded, or the repeated turns of a loop, folded.
struct TraceRow {
    std::size_t first = 0; // index into the trace's steps
    std::size_t last = 0;  // the same as `first` for a step shown
    bool folded = false;
    std::size_t turns = 0; // folded turns of a loop: how many (0: a run of steps, or a step)
};
// The rows of the text trace, the drawing and the HTML report alike. The steps the violation
// depends on (its Story), a row each, and a row for each run of two or more others (a run of
// one is shown: its row is no longer than a folded one). A loop that went round the same way
// again and again (a spin or retry loop whose turns took the same steps with the same values
// and states, none of them a cause) shows its first turn, one row for the turns between, and
// its last turn, when that folds two turns or more. `full`: a row for every step.
std::vector<TraceRow> trace_rows(const Trace& trace, const Story& story, bool full);
// "… 24 steps …", "… 24 steps of balance0 …": what a folded row stands for; `ascii`: with
// "..." for a drawing, whose fonts may lack the ellipsis.
std::string folded_text(std::size_t steps, const std::string& tasks = "", bool ascii = false);
// "… 30 more turns of the same loop …": what a row of a loop's folded turns stands for.
std::string turns_text(std::size_t turns, bool ascii = false);
// "set_bit(1, log_tree) -> 0": a step's operation, arguments, object and value.
std::string operation_text(const TraceStep& step);
// The swim-lane table of a trace (reports/trace_table.cpp); `colour`: ANSI colours, for a
// terminal; `locations`: a last column with the model's line that made each step
// ("rename_pin.cpp:142 btrfs_sync_log"). Without it the table is as it always was. Steps the
// violation does not depend on are folded into "… N steps of T …" rows unless `full`. `width`:
// the columns of the terminal it is printed on (0: not a terminal, the table as it always
// was); lanes wider than that become a list, one row per step naming its task.
// `wait`: a span of the trace to show instead of a violation: the steps it waited are marked
// "~", its task's lane says what it waited on, and the steps outside it that it does not
// depend on fold (wait_story()).
std::string format_trace(const Trace& trace, bool colour = false, bool locations = false,
                         bool full = false, std::size_t width = 0, const OpSpan* wait = nullptr);
// "fsync0 (fsync) waits on log_mutex (mutex_lock), held by rename0 (rename), which waits on
// ...": a blocking chain in one line.
std::string chain_text(const std::vector<WaitLink>& chain);
// What `span` waited: its total ("wait: 15 steps"), then a line per run of waited steps with
// the same blocking chain ("  steps 9-21 (13): fsync0 (fsync) waits on ...").
std::string format_wait(const Trace& trace, const OpSpan& span);
// "VIOLATION (kind) at step N: " and the violation's headline, then its details.
std::string format_violation(const Violation& violation);
// What a run may claim, as tools read it: the verdict line's kind, in the order it is decided.
enum class Verdict : std::uint8_t {
    violation,          // it found one
    incomplete,         // a limit stopped the search before it was done
    in_sample,          // random or pct found none in the executions it sampled
    in_shard,           // one shard (--shard) found none in its part of the search
    within_preemptions, // a preemption-bounded search found none
    within_depth,       // none, but the depth bound cut executions
    verified,           // none in any execution
};
Verdict verdict_of(const Summary& summary);
// "violation", "incomplete", "no-violation-in-sample", "no-violation-in-shard",
// "no-violation-within-preemptions",
// "no-violation-within-depth", "verified": as the JSON report's `verdict` names it.
std::string_view verdict_name(Verdict verdict);
// The summary's "memory model" row: the model, and what it leaves out.
// `rounds`: the rounds an lkmm search ran (SearchStats::rounds).
std::string memory_model_text(MemoryModel model, const std::vector<std::string>& fully_ordered,
                              std::uint32_t rounds = 1);
// The verdict line's text: what the run may claim, and no more.
std::string verdict(const Summary& summary);
// Why a search that found no violation cannot tell whether there is one ("3 executions were
// cut by the depth bound"); empty if it looked everywhere. What makes a run's judgement
// incomplete, and its JUnit test case skipped.
std::string incompleteness(const Summary& summary);
// "renames=1 fsyncs=1"; empty for a model without sizes.
std::string sizes_text(const std::vector<std::pair<std::string, int>>& parameters);
std::string format_summary(const Summary& summary);
// "invariant", "final check", "check": a property's kind as the summary names it.
std::string property_kind_text(PropertyKind kind);
// "3.67": a figure of the summary, two decimals.
std::string decimal(double x);
// part / whole, 0 when whole is.
double ratio(std::uint64_t part, std::uint64_t whole);
// How a run of `strategy` (as Summary::strategy names it) weighs its executions in the
// figures per execution: the summary's `figures` row. `stores_states`: it explored each state
// once (--state-cache, --strategy bfs).
std::string weighting_text(const std::string& strategy, bool stores_states);
// ", fsync waits at most 13 steps (--max-wait)" for each latency bound, and the same for each
// bound on worst/mean; "" for none.
std::string wait_bounds_text(const std::vector<WaitBound>& bounds,
                             const std::vector<WaitRatio>& ratios);
// What a property's count means when it undermines the verdict, else empty: "NEVER
// EVALUATED (...)", or a check() always evaluated right after its task released a lock.
std::string property_note(const PropertyStats& property);

} // namespace lockcheck::detail
