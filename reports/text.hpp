// Plain-text reports: the numbered step-by-step trace of a counterexample, the violation it
// ends in, and the fixed summary block every run ends with (stable, greppable, as SPIN's).
#pragma once

#include <optional>
#include <string>

#include "checker/explorer.hpp"
#include "checker/trace.hpp"
#include "scheduler/violation.hpp"

namespace lockcheck {

// The size of a reported counterexample, and of the first one found if minimizing changed it.
struct CounterexampleSize {
    std::uint32_t preemptions = 0;
    std::uint32_t steps = 0;
    bool minimized = false;              // a search for a smaller one ran
    bool minimal = true;                 // false: that search's budget ran out first
    std::uint32_t found_preemptions = 0; // the one found first
    std::uint32_t found_steps = 0;
};

struct Summary {
    std::string model;
    std::string variant;
    std::string strategy;
    std::string bound;
    SearchStats stats;
    std::size_t violations = 0;
    std::vector<CounterexampleSize> counterexamples; // one per violation, in order
    bool sampled = false;                            // random or pct: not every execution
    std::optional<std::uint32_t> preemption_bound;   // dfs --preemptions K
    std::uint32_t pct_depth = 0;                     // pct: the bug depth d aimed at (0: not pct)
    std::uint32_t pct_steps = 0;                     // pct: k, the steps change points fall in
};

// "set_bit(1, log_tree) -> 0": a step's operation, arguments, object and value.
std::string operation_text(const TraceStep& step);
// The swim-lane table of a trace (reports/trace_table.cpp); `colour`: ANSI colours, for a
// terminal; `locations`: a last column with the model's line that made each step
// ("rename_pin.cpp:142 btrfs_sync_log"). Without it the table is as it always was.
std::string format_trace(const Trace& trace, bool colour = false, bool locations = false);
// "VIOLATION (kind) at step N: " and the violation's headline, then its details.
std::string format_violation(const Violation& violation);
// The verdict line's text: what the run may claim, and no more.
std::string verdict(const Summary& summary);
std::string format_summary(const Summary& summary);

} // namespace lockcheck
