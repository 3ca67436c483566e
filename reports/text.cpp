// Text formatting of violations and the summary block (the trace table: trace_table.cpp).
#include "text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace lockcheck {

namespace {

std::string pad(const std::string& s, std::size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

} // namespace

std::string format_violation(const Violation& v) {
    std::string out = "VIOLATION (" + std::string(kind_name(v.kind)) + ") at step " +
                      std::to_string(v.step) + ": " + v.headline() + "\n";
    for (const std::string& d : v.details)
        out += "  " + d + "\n";
    return out;
}

std::string verdict(const Summary& s) {
    const std::string executions = std::to_string(s.stats.executions) + " executions";
    if (s.violations) return "VIOLATION (" + std::to_string(s.violations) + " found)";
    if (!s.stats.stopped_by.empty())
        return "incomplete: " + s.stats.stopped_by + " stopped the search after " + executions +
               ", none with a violation";
    if (s.sampled) return "no violation in " + executions + " sampled (a sample, not a proof)";
    if (s.preemption_bound)
        return "no violation within " + std::to_string(*s.preemption_bound) +
               (*s.preemption_bound == 1 ? " preemption" : " preemptions") +
               (s.stats.cut ? " and the depth (" + std::to_string(s.stats.cut) + " cut by it)"
                            : "");
    if (s.stats.cut == 0) return "verified: no violation in any execution";
    return "no violation within the bound (" + std::to_string(s.stats.cut) +
           " executions cut by it)";
}

namespace {
std::string counter(std::uint64_t total, std::uint64_t most) {
    return std::to_string(total) + " (at most " + std::to_string(most) + " in one execution)";
}

// "log_mutex: 2.31 steps on average over 1402 holds, at most 9"
std::string hold_text(const HoldStats& h) {
    char avg[32];
    std::snprintf(avg, sizeof avg, "%.2f",
                  static_cast<double>(h.steps) / static_cast<double>(h.holds));
    return std::string(avg) + " steps on average over " + std::to_string(h.holds) +
           " holds, at most " + std::to_string(h.longest);
}
std::string preemptions_and_steps(std::uint32_t preemptions, std::uint32_t steps) {
    return std::to_string(preemptions) + (preemptions == 1 ? " preemption, " : " preemptions, ") +
           std::to_string(steps) + " steps";
}

// "1 preemption, 12 steps (minimized from 3 preemptions, 17 steps)"
std::string size_text(const CounterexampleSize& c) {
    std::string text = preemptions_and_steps(c.preemptions, c.steps);
    if (!c.minimized) return text + " (not minimized)";
    if (c.preemptions != c.found_preemptions || c.steps != c.found_steps)
        text +=
            " (minimized from " + preemptions_and_steps(c.found_preemptions, c.found_steps) + ")";
    else
        text += " (minimal)";
    if (!c.minimal) text += "; the search for a smaller one stopped at its budget";
    return text;
}

// PCT's guarantee for the run: each execution finds a given bug of depth d with probability
// at least p = 1 / (n k^(d-1)); N executions, at least 1 - (1 - p)^N.
std::string pct_bound_text(const Summary& s) {
    double p = 1.0 / std::max(s.stats.tasks, 1u);
    for (std::uint32_t i = 1; i < s.pct_depth; ++i)
        p /= std::max(s.pct_steps, 1u);
    const double all = 1.0 - std::pow(1.0 - p, static_cast<double>(s.stats.executions));
    char text[160];
    std::snprintf(text, sizeof text,
                  "a bug of depth %u is found with probability >= %.3g per execution (n = %u "
                  "tasks, k = %u steps), >= %.3g in all",
                  s.pct_depth, p, s.stats.tasks, s.pct_steps, all);
    return text;
}

} // namespace

std::string format_summary(const Summary& s) {
    char elapsed[32];
    std::snprintf(elapsed, sizeof elapsed, "%.3f s", s.stats.elapsed_seconds);
    std::vector<std::pair<std::string, std::string>> rows = {
        {"model", s.model},
        {"variant", s.variant},
        {"strategy", s.strategy},
        {"bound", s.bound},
        {"executions", std::to_string(s.stats.executions)},
        {"cut by bound", std::to_string(s.stats.cut)},
        {"steps", std::to_string(s.stats.steps)},
        {"deepest", std::to_string(s.stats.deepest)},
        {"sleeps", counter(s.stats.total.sleeps, s.stats.most.sleeps)},
        {"wake-ups", counter(s.stats.total.wakeups, s.stats.most.wakeups)},
        {"spins", counter(s.stats.total.spins, s.stats.most.spins)},
    };
    // Only a reduction stops executions early; DFS's summary keeps its shape.
    if (s.strategy.find("dpor") != std::string::npos)
        rows.insert(rows.begin() + 6, {"sleep-blocked", std::to_string(s.stats.sleep_blocked)});
    for (const CounterexampleSize& c : s.counterexamples)
        rows.emplace_back("reported", size_text(c));
    if (s.pct_depth) rows.emplace_back("pct bound", pct_bound_text(s));
    for (const LockHolds& l : s.stats.holds)
        rows.emplace_back("held", l.lock + ": " + hold_text(l.stats));
    rows.emplace_back("elapsed", elapsed);
    rows.emplace_back("verdict", verdict(s));
    std::string out = "== lockcheck summary ==\n";
    for (const auto& [key, value] : rows)
        out += pad(key, 14) + value + "\n";
    return out;
}

} // namespace lockcheck
