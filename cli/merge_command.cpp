// The shards' reports are checked to be every shard of one search, merged in shard order
// (checker/shard.hpp: the same figures and findings as the search run whole), judged against
// the variant's declared verdict, and printed as a search prints its result.
#include "merge_command.hpp"

#include <fstream>
#include <ostream>
#include <sstream>

#include "check_command.hpp"
#include "checker/model_registry.hpp"
#include "checker/shard.hpp"
#include "replay_file.hpp"
#include "reports/json_report.hpp"
#include "scheduler/one_line.hpp"

namespace lockcheck::detail::cli {

namespace {

bool read_report(const std::string& path, RunReport& report, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot read " + one_line(path);
        return false;
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (from_json(text.str(), report, error)) return true;
    error = one_line(path) + ": " + one_line(error);
    return false;
}

// The strategy row without its ", shard I of N".
std::string whole_strategy(const std::string& strategy) {
    return strategy.substr(0, strategy.find(", shard "));
}

// What every shard of one search has in common: "" if `b` has it as `a` does, else what differs.
std::string differs(const RunReport& a, const RunReport& b) {
    const Summary& x = a.summary;
    const Summary& y = b.summary;
    if (x.model != y.model) return "another model";
    if (x.variant != y.variant) return "another variant";
    if (x.parameters != y.parameters) return "other model sizes";
    if (whole_strategy(x.strategy) != whole_strategy(y.strategy)) return "another strategy";
    if (x.bound != y.bound || a.depth != b.depth || a.max_steps != b.max_steps ||
        a.spin_bound != b.spin_bound)
        return "other bounds";
    if (x.lockdep != y.lockdep || x.races != y.races) return "other checks";
    if (x.memory_model != y.memory_model) return "another memory model";
    if (x.keep_going != y.keep_going) return "one has --keep-going, the other not";
    if (x.shard->count != y.shard->count) return "another number of shards";
    return "";
}

// Reads and orders the shards: every one of 1..N once, all of one search.
bool read_shards(const std::vector<std::string>& files, std::vector<RunReport>& shards,
                 std::string& error) {
    for (const std::string& path : files) {
        RunReport report;
        if (!read_report(path, report, error)) return false;
        if (!report.summary.shard) {
            error = one_line(path) + " is the report of a whole search, not of a shard (--shard)";
            return false;
        }
        if (!shards.empty())
            if (const std::string what = differs(shards.front(), report); !what.empty()) {
                error = one_line(path) + " is not a shard of the same search as " +
                        one_line(files.front()) + " (" + what + ")";
                return false;
            }
        shards.push_back(std::move(report));
    }
    const unsigned count = shards.front().summary.shard->count;
    std::vector<RunReport> ordered(count);
    std::vector<bool> seen(count, false);
    for (RunReport& r : shards) {
        const unsigned i = r.summary.shard->index - 1;
        if (seen[i]) {
            error = "shard " + std::to_string(i + 1) + " of " + std::to_string(count) +
                    " is given twice";
            return false;
        }
        seen[i] = true;
        ordered[i] = std::move(r);
    }
    for (unsigned i = 0; i < count; ++i)
        if (!seen[i]) {
            error = "shard " + std::to_string(i + 1) + " of " + std::to_string(count) +
                    " is missing: every shard's report is needed for the search's verdict";
            return false;
        }
    shards = std::move(ordered);
    return true;
}

// The search's report: the shards' figures and findings merged, each finding with the
// counterexample (and its size) of the shard that found it first.
RunReport merged_report(std::vector<RunReport>& shards) {
    CheckOptions options;
    options.keep_going = shards.front().summary.keep_going;
    options.wait_ratios = shards.front().summary.stats.wait_ratios;
    std::vector<SearchResult> results;
    for (const RunReport& r : shards) {
        SearchResult result;
        result.stats = r.summary.stats;
        for (const Counterexample& c : r.counterexamples)
            result.findings.push_back(Finding{c.violation, c.schedule});
        results.push_back(std::move(result));
    }
    SearchResult merged = merge_shards(std::move(results), options);
    RunReport report;
    report.summary = shards.front().summary;
    report.summary.shard.reset();
    report.summary.strategy = whole_strategy(report.summary.strategy);
    report.summary.stats = std::move(merged.stats);
    report.summary.violations = merged.findings.size();
    report.summary.counterexamples.clear();
    report.depth = shards.front().depth;
    report.max_steps = shards.front().max_steps;
    report.spin_bound = shards.front().spin_bound;
    for (const Finding& f : merged.findings)
        for (const RunReport& r : shards) {
            const auto it = std::find_if(
                r.counterexamples.begin(), r.counterexamples.end(),
                [&f](const Counterexample& c) { return c.violation.key() == f.violation.key(); });
            if (it == r.counterexamples.end()) continue;
            report.counterexamples.push_back(*it);
            const auto i = static_cast<std::size_t>(it - r.counterexamples.begin());
            if (i < r.summary.counterexamples.size())
                report.summary.counterexamples.push_back(r.summary.counterexamples[i]);
            break;
        }
    const Protocol* protocol = find_registered_model(report.summary.model);
    const auto variant = protocol ? protocol->find_variant(report.summary.variant) : std::nullopt;
    report.summary.judgement.reset();
    if (variant)
        report.summary.judgement =
            judge(protocol->variants[*variant].expected(report.summary.memory_model),
                  merged.findings, report.summary);
    return report;
}

} // namespace

int run_merge(const MergeRequest& request, std::ostream& out, std::ostream& err) {
    std::vector<RunReport> shards;
    std::string error;
    if (!read_shards(request.files, shards, error)) {
        err << "lockcheck: merge: " << error << "\n";
        return kExitUsage;
    }
    RunReport report = merged_report(shards);
    report.command = request.command;
    report.summary.timed = request.timing;
    if (!request.timing) report.summary.stats.forget_speed();
    // Each counterexample replayed with the model, as the search that found it printed it.
    for (Counterexample& c : report.counterexamples) {
        CheckRequest r;
        const std::size_t index = &c - report.counterexamples.data();
        if (!request_of(report, static_cast<unsigned>(index + 1), r, error)) {
            err << "lockcheck: merge: " << error << "\n";
            return kExitUsage;
        }
        ReplayResult rr = replay(setup_of(r), c.schedule, r.options, &c.violation);
        out << format_violation(c.violation) << format_trace(rr.trace, request.colour);
        if (!rr.ok || !rr.outcome.violation || rr.outcome.violation->key() != c.violation.key())
            out << "warning: replaying this schedule did not reproduce the violation; the model "
                   "is not deterministic\n";
        out << "replay: " << c.replay_command << "\n\n";
        c.trace = std::move(rr.trace);
    }
    out << format_summary(report.summary);
    report.exit_code = exit_code_of(report.summary);
    ReportFiles files;
    files.json = request.json;
    std::vector<std::string> warnings; // none: a merge draws nothing
    if (!write_report_files(files, report, error, warnings)) {
        err << "lockcheck: " << error << "\n";
        return kExitUsage;
    }
    return report.exit_code;
}

} // namespace lockcheck::detail::cli
