// `lockcheck compare`: two variants of a model run at the same sizes and bounds, side by side:
// verdicts, executions, and each named operation's waits and each lock's contention per
// execution, with the changes that matter marked. The table, its JSON and its HTML page.
#pragma once

#include <string>
#include <vector>

#include "json_report.hpp"

namespace lockcheck::detail {

// Versions of the compare document (`schema`: "lockcheck-compare"), as for the run report.
// Minor 1: each side's run (`sides`), the variants named even where a side did not run, a
// side that did not run as null, and how compare chose its search (`chosen`).
inline constexpr int kCompareVersion = 1;
inline constexpr int kCompareMinorVersion = 1;

// A change that matters, marked on its row: a worse or better worst-case wait, contention
// where there was none, a verdict that changed, and an operation or lock one side lacks. The
// marks of the operations and locks are set only where both sides ran whole, and the
// verdict's only where both ran: a search that stopped early weighs other executions.
enum class Mark : std::uint8_t {
    none,
    worse,
    better,
    new_contention,
    changed,
    only_before,
    only_after
};
// "", "worse", "better", "new contention", "changed", "only before", "only after"
std::string_view mark_name(Mark mark);

struct ComparisonRow {
    // The operation or lock, on its first row; "verdict" and "executions" for the run's.
    std::string subject;
    std::string figure; // "worst wait"; empty for the run's rows
    std::string before;
    std::string after;
    Mark mark = Mark::none;
    // The figures themselves, for the JSON: -1 where a side has none.
    double before_value = -1;
    double after_value = -1;
};

// How far a side's search went, which decides whether its figures compare: only a search run
// to its end (within its bounds) weighs the same executions as the other side's.
enum class SideRun : std::uint8_t {
    whole,        // to the end of its search
    to_violation, // it stopped at its first violation (without --keep-going)
    stopped,      // a limit or a signal stopped it (stats.stopped_by)
    not_run,      // compare stopped before it began
};
// "whole", "to-violation", "stopped", "not-run": as the JSON names it.
std::string_view side_run_name(SideRun run);

struct CompareReport {
    std::string command;
    // The variants, named here as each side's report names its own only once it ran.
    std::string before_variant;
    std::string after_variant;
    RunReport before;
    RunReport after;
    bool before_ran = false;
    bool after_ran = false;
    // How compare chose the search both sides ran, when no --strategy chose it: "" otherwise.
    std::string chosen;
    std::vector<std::string> fail_if_worse; // operations whose worse worst wait fails the run
    int exit_code = 0;
};

// How far the before (`after` false) or after side went.
SideRun side_run(const CompareReport& comparison, bool after);

// The side-by-side rows: the run's (verdict, executions), then each operation's, then each
// lock's, in the order the before side met them (the after side's new ones last).
std::vector<ComparisonRow> comparison_rows(const CompareReport& comparison);
// The operations in `fail_if_worse` whose worst wait grew, in that order; none unless both
// sides ran whole.
std::vector<std::string> worse_operations(const CompareReport& comparison);
// The table as the command prints it, with a closing line saying what the change did.
std::string format_comparison(const CompareReport& comparison);
// Pretty-printed, keys in a fixed order: both run reports whole, the rows, the exit code.
std::string to_json(const CompareReport& comparison);
// index.html of --report DIR: the table, and each side's worst-wait drawing and report, which
// live in DIR/<variant>/ (`drawings`: their paths relative to DIR, empty where none).
std::string to_html(const CompareReport& comparison, const std::vector<std::string>& drawings);

} // namespace lockcheck::detail
