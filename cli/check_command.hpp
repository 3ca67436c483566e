// `lockcheck MODEL ...`: check one protocol variant (or replay one schedule of it) and print
// the counterexamples and the summary block. Returns the process exit code.
#pragma once

#include <iosfwd>
#include <optional>

#include "checker/explorer.hpp"
#include "checker/protocol.hpp"
#include "checker/search.hpp"
#include "progress_line.hpp"
#include "property_selection.hpp"
#include "report_files.hpp"
#include "reports/text.hpp"

namespace lockcheck::detail::cli {

// Exit codes: no violation within the bounds, violation found, bad input, and a search that
// a limit (--time-limit, --max-executions) stopped before it was done, with no violation.
inline constexpr int kExitOk = 0;
inline constexpr int kExitViolation = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitIncomplete = 3;
// A run a signal stopped (SIGINT, SIGTERM) exits as a shell reports a process that signal
// killed: 130 for SIGINT, 143 for SIGTERM.
constexpr int interrupted_exit_code(int signal) {
    return 128 + signal;
}

// --minimize-time: how long minimizing a run's counterexamples may take in all, a multiple of
// the search's time ("10x", at least kMinimizeFloor) or a duration ("30s", "5m", "1h").
struct MinimizeTime {
    double factor = 10; // used when seconds is 0
    double seconds = 0;
    std::string text = "10x"; // as given, for the summary
    // The seconds allowed after a search of `search_seconds`.
    double allowed(double search_seconds) const;
};
inline constexpr double kMinimizeFloor = 1.0;
// Parses "10x", "0.5x", "30s", "5m", "1h" (positive); false with a one-line reason.
bool parse_minimize_time(const std::string& text, MinimizeTime& time, std::string& error);

// --shard I/N: "2/4" (1 <= I <= N <= kMaxShards); false with a one-line reason.
inline constexpr unsigned kMaxShards = 4096;
bool parse_shard(const std::string& text, std::optional<Shard>& shard, std::string& error);

// The largest --depth (scheduling choices) and --max-steps (steps) of one execution.
inline constexpr unsigned kMaxDepth = 1'000'000;

struct CheckRequest {
    const Protocol* protocol = nullptr;
    SearchOptions search; // its depth is options.depth
    std::size_t variant = 0;
    ParameterValues values;
    CheckOptions options;
    std::optional<Schedule> replay;
    // With replay under lkmm: the answers of load buffering's evidence (memory::Tape::format()).
    std::string evidence;
    bool minimize = true; // report the counterexample with the fewest preemptions, then steps
    // false: only a run that is not as its variant declares minimizes (check-all, which shows
    // no other run's counterexamples, so that the runs as declared spend no time on it).
    bool minimize_as_declared = true;
    MinimizeTime minimize_time;
    ProgressLine* progress = nullptr; // drawn while the run goes on (a terminal, no -q)
    bool colour = false;              // the output is a terminal
    bool locations = false;           // --locations: the trace names each step's line in the model
    bool timing = true;               // false: --no-timing, no elapsed time in any output
    std::size_t columns = 0;          // the terminal's width traces fit (0: not a terminal)
    // The command's own name, as replay lines print it: a user's binary built with
    // lockcheck_add_model replays its own models.
    std::string program = "lockcheck";
    std::string command;       // the whole command line, as the reports record it
    ReportFiles files;         // --trace, --json, --junit, --report
    PropertyChoice properties; // --check, --no-check: resolved into options.unchecked
    std::string worst_wait;    // --worst-wait OP: show where OP waited longest (empty: no)
};

// The model's set-up as the request sizes and picks its variant.
Setup setup_of(const CheckRequest& request);

// Resolves request.properties against the properties its model declares (running the model's
// set-up, no task) into request.options.unchecked. False with a one-line reason in `error`.
bool select_properties(CheckRequest& request, std::string& error);

// --max-wait OP=K and --max-wait-ratio OP=R, each repeatable, into options.wait_bounds and
// options.wait_ratios; false with a one-line reason in `error`.
bool parse_wait_bounds(const std::vector<std::string>& max_waits,
                       const std::vector<std::string>& max_ratios, CheckOptions& options,
                       std::string& error);
// Waits depend on the order of independent steps, which a partial-order reduction does not
// explore, and a stateful one explores each state from one path only: a run that bounds waits
// (--max-wait, or the model's own max_wait()) searches with plain dfs unless a strategy is
// given, and refuses dpor and stored states. False with a one-line reason in `error`.
bool choose_wait_search(CheckRequest& request, bool strategy_given, std::string& error);

// The one-line reason why `option` (--max-wait, --worst-wait) names `op`, an operation that no
// execution of a search with `stats` finished: a typo, or one the model does not have (a model
// may declare its operations only as they run, so only a search knows them).
std::string unknown_operation(const std::string& option, const std::string& op,
                              const CheckRequest& request, const SearchStats& stats);

int run_check(const CheckRequest& request, std::ostream& out, std::ostream& err);
// The exit code of a check or replay whose summary is `summary`.
int exit_code_of(const Summary& summary);
// The search of `request` (not a replay) as the report files describe it, each counterexample
// printed to `out` as run_check prints it, the summary block not.
RunReport search(const CheckRequest& request, std::ostream& out);
// The command line that replays `schedule` of this request.
std::string replay_command(const CheckRequest& request, const Schedule& schedule);

} // namespace lockcheck::detail::cli
