// Running a check or a replay, and printing what it found.
#include "check_command.hpp"

#include <algorithm>
#include <ostream>

#include "checker/minimize.hpp"
#include "report_files.hpp"
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
    for (std::size_t i = 0; i < r.protocol->parameters.size(); ++i)
        s.parameters.emplace_back(r.protocol->parameters[i].name, r.values[i]);
    s.strategy = std::move(strategy);
    s.bound = std::move(bound);
    return s;
}

// Executions the search for a smaller counterexample may run, per violation.
constexpr std::uint64_t kMinimizeBudget = 1'000'000;

// The run as the report files describe it: what was checked, and the summary once known.
RunReport report_of(const CheckRequest& r) {
    RunReport report;
    report.depth = r.options.depth;
    return report;
}

// Writes the report files asked for; exit code 2 if one cannot be written.
int finish(const CheckRequest& r, const RunReport& report, int code, std::ostream& out,
           std::ostream& err) {
    out << format_summary(report.summary);
    std::string error;
    if (write_report_files(r.files, report, error)) return code;
    err << "lockcheck: " << error << "\n";
    return kExitUsage;
}

// Prints a violation with the trace that leads to it, replayed in full detail: the smallest
// counterexample of its property unless minimizing is off. Adds it to the report and returns
// its size.
CounterexampleSize print_finding(const CheckRequest& r, const Finding& found, RunReport& report,
                                 std::ostream& out) {
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
    out << format_violation(f.violation)
        << format_trace(rr.trace, r.colour, r.locations, r.files.full_trace);
    if (!rr.ok || !rr.outcome.violation || rr.outcome.violation->key() != f.violation.key())
        out << "warning: replaying this schedule did not reproduce the violation; the model "
               "is not deterministic\n";
    const std::string command = replay_command(r, f.schedule);
    out << "replay: " << command << "\n\n";
    report.counterexamples.push_back(
        Counterexample{f.violation, f.schedule, std::move(rr.trace), command});
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
    // One schedule, not a search: which properties it evaluated says nothing of vacuity, and
    // it declares no verdict to judge.
    s.stats.properties.clear();
    if (rr.outcome.violation) {
        s.violations = 1;
        out << format_violation(*rr.outcome.violation);
    }
    out << format_trace(rr.trace, r.colour, r.locations, r.files.full_trace) << "\n";
    RunReport report = report_of(r);
    if (rr.outcome.violation)
        report.counterexamples.push_back(Counterexample{
            *rr.outcome.violation, *r.replay, std::move(rr.trace), replay_command(r, *r.replay)});
    const int code = s.violations ? kExitViolation : kExitOk;
    report.summary = std::move(s);
    return finish(r, report, code, out, err);
}

} // namespace

std::string replay_command(const CheckRequest& r, const Schedule& schedule) {
    std::string cmd =
        r.program + " " + r.protocol->name + " --variant " + r.protocol->variants[r.variant].name;
    for (std::size_t i = 0; i < r.protocol->parameters.size(); ++i)
        cmd += " --" + r.protocol->parameters[i].name + " " + std::to_string(r.values[i]);
    return cmd + " --replay " + format_schedule(schedule);
}

RunReport search(const CheckRequest& r, std::ostream& out) {
    SearchOptions search_options = r.search;
    search_options.depth = r.options.depth;
    const std::unique_ptr<Strategy> strategy = make_search(search_options);
    SearchResult result = explore(setup_of(r), *strategy, r.options);
    std::string bound = "depth " + std::to_string(r.options.depth);
    if (!exhaustive(r.search.search))
        bound += ", " + std::to_string(r.search.iterations) + " executions";
    Summary s = summary_of(r, describe(search_options), bound);
    s.sampled = !exhaustive(r.search.search);
    if (r.search.search == Search::dfs || r.search.search == Search::dpor)
        s.preemption_bound = r.search.preemptions;
    if (r.search.search == Search::pct) {
        s.pct_depth = r.search.pct_depth;
        s.pct_steps = std::max(result.stats.deepest, 1u); // k, as PCT learned it
    }
    RunReport report = report_of(r);
    for (const Finding& f : result.findings)
        s.counterexamples.push_back(print_finding(r, f, report, out));
    s.stats = result.stats;
    s.violations = result.findings.size();
    const Expectation& expected = r.protocol->variants[r.variant].expect;
    if (expected.expects_violation && expected.kind == ViolationKind::check_failed)
        s.stats.declare_check(expected.property);
    s.judgement = judge(expected, result.findings, s);
    report.summary = std::move(s);
    return report;
}

int run_check(const CheckRequest& r, std::ostream& out, std::ostream& err) {
    if (r.replay) return run_replay(r, out, err);
    RunReport report = search(r, out);
    const Summary& s = report.summary;
    const int code = s.violations                 ? kExitViolation
                     : s.stats.stopped_by.empty() ? kExitOk
                                                  : kExitIncomplete;
    return finish(r, report, code, out, err);
}

} // namespace lockcheck::cli
