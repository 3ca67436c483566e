// Running a check or a replay, and printing what it found.
#include "check_command.hpp"

#include <ostream>

#include "checker/minimize.hpp"
#include "reports/text.hpp"

namespace lockcheck::cli {

namespace {

Setup setup_of(const CheckRequest& r) {
    return [&r] { r.protocol->setup(r.variant, r.values); };
}

Summary summary_of(const CheckRequest& r, std::string strategy, std::string bound) {
    Summary s;
    s.model = r.protocol->name;
    s.variant = r.protocol->variants[r.variant].name;
    s.strategy = std::move(strategy);
    s.bound = std::move(bound);
    return s;
}

// Executions the search for a smaller counterexample may run, per violation.
constexpr std::uint64_t kMinimizeBudget = 1'000'000;

// Prints a violation with the trace that leads to it, replayed in full detail: the smallest
// counterexample of its property unless minimizing is off. Returns its size.
CounterexampleSize print_finding(const CheckRequest& r, const Finding& found, std::ostream& out) {
    ReplayResult rr = replay(setup_of(r), found.schedule, r.options);
    CounterexampleSize size;
    size.preemptions = size.found_preemptions = rr.trace.preemptions();
    size.steps = size.found_steps = rr.outcome.steps;
    Finding f = found;
    if (r.minimize) {
        Minimized m =
            minimize(setup_of(r), found, size.preemptions, size.steps, r.options, kMinimizeBudget);
        size.minimized = true;
        size.minimal = m.minimal;
        if (m.finding.schedule != found.schedule) {
            f = std::move(m.finding);
            rr = replay(setup_of(r), f.schedule, r.options);
            size.preemptions = rr.trace.preemptions();
            size.steps = rr.outcome.steps;
        }
    }
    out << format_violation(f.violation) << format_trace(rr.trace, r.colour);
    if (!rr.ok || !rr.outcome.violation || rr.outcome.violation->key() != f.violation.key())
        out << "warning: replaying this schedule did not reproduce the violation; the model "
               "is not deterministic\n";
    out << "replay: " << replay_command(r, f.schedule) << "\n\n";
    return size;
}

int run_replay(const CheckRequest& r, std::ostream& out, std::ostream& err) {
    ReplayResult rr = replay(setup_of(r), *r.replay, r.options);
    if (!rr.ok) {
        err << "lockcheck: --replay: " << rr.error << "\n";
        return kExitUsage;
    }
    Summary s =
        summary_of(r, "replay", "schedule of " + std::to_string(r.replay->size()) + " steps");
    s.stats = rr.stats;
    if (rr.outcome.violation) {
        s.violations = 1;
        out << format_violation(*rr.outcome.violation);
    }
    out << format_trace(rr.trace, r.colour) << "\n" << format_summary(s);
    return s.violations ? kExitViolation : kExitOk;
}

} // namespace

std::string replay_command(const CheckRequest& r, const Schedule& schedule) {
    std::string cmd =
        "lockcheck " + r.protocol->name + " --variant " + r.protocol->variants[r.variant].name;
    for (std::size_t i = 0; i < r.protocol->parameters.size(); ++i)
        cmd += " --" + r.protocol->parameters[i].name + " " + std::to_string(r.values[i]);
    return cmd + " --replay " + format_schedule(schedule);
}

int run_check(const CheckRequest& r, std::ostream& out, std::ostream& err) {
    if (r.replay) return run_replay(r, out, err);
    const std::unique_ptr<Strategy> search = make_search(r.search, r.options.depth);
    SearchResult result = explore(setup_of(r), *search, r.options);
    Summary s = summary_of(r, search_name(r.search), "depth " + std::to_string(r.options.depth));
    for (const Finding& f : result.findings)
        s.counterexamples.push_back(print_finding(r, f, out));
    s.stats = result.stats;
    s.violations = result.findings.size();
    out << format_summary(s);
    return s.violations ? kExitViolation : kExitOk;
}

} // namespace lockcheck::cli
