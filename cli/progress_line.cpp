// Formatting and drawing of the progress line.
#include "progress_line.hpp"

#include <cstdio>
#include <mutex>
#include <ostream>

#include <sys/ioctl.h>
#include <unistd.h>

namespace lockcheck::detail::cli {

namespace {

// The process has one terminal row for progress: lines beside each other take turns on it.
std::mutex g_terminal;

std::string format(const char* pattern, double value) {
    char text[32];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}

// "1234 executions (617/s)"
std::string executions_text(const ProgressReport& r) {
    std::string text = std::to_string(r.executions) + " executions";
    if (r.seconds > 0) text += " (" + format("%.0f", r.executions / r.seconds) + "/s)";
    return text;
}

std::string plural(std::uint64_t n, const char* noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

} // namespace

bool wants_progress(bool stderr_is_terminal, bool quiet) {
    return stderr_is_terminal && !quiet;
}

std::string progress_text(const ProgressReport& r, const ProgressContext& c, std::size_t columns) {
    std::string text = c.label;
    if (r.phase == ProgressReport::Phase::search) {
        text += "search: " + executions_text(r) + ", deepest " + std::to_string(r.deepest) + ", " +
                plural(r.violations, "violation") + ", " + format("%.1f s", r.seconds);
        // A huge tree stays below 1 % for long: say so rather than "~0 %".
        if (r.explored >= 0)
            text += r.explored < 0.01 ? ", <1% done"
                                      : ", ~" + format("%.0f", r.explored * 100) + "% done";
    } else {
        text += "minimizing";
        if (c.counterexamples > 1)
            text +=
                " " + std::to_string(c.counterexample) + " of " + std::to_string(c.counterexamples);
        text += ": best " + plural(r.preemptions, "preemption") + ", " + plural(r.steps, "step") +
                "; bound " + std::to_string(r.bound) + ", " + executions_text(r) + ", " +
                format("%.1f s", r.seconds);
        if (c.minimize_seconds > 0) text += " of at most " + format("%.1f s", c.minimize_seconds);
    }
    if (columns > 1 && text.size() > columns - 1) text.resize(columns - 1);
    return text;
}

ProgressLine::ProgressLine(std::ostream& terminal, std::size_t columns, double quiet_for)
    : terminal_(terminal), columns_(columns), quiet_for_(quiet_for),
      start_(std::chrono::steady_clock::now()) {}

std::unique_ptr<ProgressLine> ProgressLine::beside() const {
    auto line = std::make_unique<ProgressLine>(terminal_, columns_, quiet_for_);
    line->start_ = start_;
    return line;
}

void ProgressLine::show(const ProgressReport& report) {
    const double run =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (run < quiet_for_) return;
    // Back to the start of the line, the new text, and the rest of the old one erased.
    const std::lock_guard lock(g_terminal);
    terminal_ << '\r' << progress_text(report, context, columns_) << "\x1b[K" << std::flush;
    drawn_ = true;
}

void ProgressLine::clear() {
    if (!drawn_) return;
    const std::lock_guard lock(g_terminal);
    terminal_ << "\r\x1b[K" << std::flush;
    drawn_ = false;
}

std::size_t terminal_columns(int fd) {
    winsize size{};
    if (!isatty(fd) || ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
    return size.ws_col;
}

} // namespace lockcheck::detail::cli
