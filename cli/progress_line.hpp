// The progress line: on a terminal, once a run has gone on for a second, one line on stderr
// redrawn in place a few times a second with what the search or the minimizer is doing, and
// erased before anything else is printed. Off with -q and when stderr is not a terminal.
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>

#include "checker/progress.hpp"

namespace lockcheck::detail::cli {

// Whether a run draws a progress line at all.
bool wants_progress(bool stderr_is_terminal, bool quiet);

// What the line says besides the report: which run (check-all names the variant) and which
// counterexample is being minimized, in how long at most.
struct ProgressContext {
    std::string label;              // "rename-pin --variant no-pin: ", or empty
    std::size_t counterexample = 0; // minimizing the i-th (1-based)
    std::size_t counterexamples = 0;
    double minimize_seconds = 0; // the time minimizing may take in all (0: no limit)
};

// "search: 120345 executions (40115/s), deepest 37, 0 violations, 3.0 s, ~18% done",
// "minimizing 1 of 2: best 0 preemptions, 4 steps; bound 0, 1234 executions (617/s), 2.0 s
// of at most 10.0 s". Cut to `columns` - 1 characters (0: not cut).
std::string progress_text(const ProgressReport& report, const ProgressContext& context,
                          std::size_t columns);

class ProgressLine final : public ProgressSink {
  public:
    // Draws on `terminal`, `columns` wide (0: unknown), once the run has gone on for
    // `quiet_for` seconds: a short run's output is not interleaved with a line at all.
    ProgressLine(std::ostream& terminal, std::size_t columns, double quiet_for = 1.0);
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;
    // Another line for a run beside this one's (check-all's variants, side by side): drawn on
    // the same terminal row, in turn with this one, as quiet for as long from the same start.
    std::unique_ptr<ProgressLine> beside() const;

    // Draws the line over the one before, once the run has gone on for long enough.
    void show(const ProgressReport& report) override;
    // Erases the line, if one is drawn: before any other output.
    void clear();
    ProgressContext context;

  private:
    std::ostream& terminal_;
    std::size_t columns_;
    double quiet_for_;
    std::chrono::steady_clock::time_point start_;
    bool drawn_ = false;
};

// The width of the terminal on file descriptor `fd`, 0 if it is not one.
std::size_t terminal_columns(int fd);

} // namespace lockcheck::detail::cli
