// Running a check or a replay, and printing what it found.
#include "check_command.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>
#include <ostream>

#include "checker/minimize.hpp"
#include "checker/shard.hpp"
#include "did_you_mean.hpp"
#include "memory/evidence.hpp"
#include "model/weak_memory.hpp"
#include "report_files.hpp"
#include "reports/text.hpp"
#include "worst_wait.hpp"

namespace lockcheck::detail::cli {

Setup setup_of(const CheckRequest& r) {
    return [&r] { r.protocol->setup(r.variant, r.values); };
}

namespace {

Summary summary_of(const CheckRequest& r, std::string strategy, std::string bound) {
    Summary s;
    s.model = r.protocol->name;
    s.variant = r.protocol->variants[r.variant].name;
    for (std::size_t i = 0; i < r.protocol->parameters.size(); ++i)
        s.parameters.emplace_back(r.protocol->parameters[i].name, r.values[i]);
    s.strategy = std::move(strategy);
    s.bound = std::move(bound);
    s.lockdep = r.options.lockdep;
    s.memory_model = r.options.memory_model;
    s.races = r.options.races;
    s.timed = r.timing;
    return s;
}

// --no-timing: the times are dropped, so that every byte of every output is the same from one
// run of a command to the next.
void forget_times(Summary& s) {
    if (s.timed) return;
    // How many threads ran it, and how, changes its speed, never its result.
    s.stats.forget_speed();
    s.one_thread.clear();
}

// The time minimizing may still take, shared by a run's counterexamples in the order found.
struct MinimizeClock {
    double allowed = 0;
    double used = 0;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The run as the report files describe it: what was checked, and the summary once known.
RunReport report_of(const CheckRequest& r) {
    RunReport report;
    report.depth = r.options.depth;
    report.max_steps = r.options.max_steps;
    report.command = r.command;
    report.spin_bound = r.options.spin_bound;
    return report;
}

// The bound row: `bound`, and the spin bound where it took part (it decides when a spin loop
// counts as endless, so a verdict depends on it).
std::string bound_text(std::string bound, const CheckRequest& r, const SearchStats& stats) {
    if (stats.spin_bound_used) bound += ", spin bound " + std::to_string(r.options.spin_bound);
    return bound;
}

// Prints the summary and writes the report files asked for; returns the run's exit code, or 2
// if a file cannot be written.
int finish(const CheckRequest& r, RunReport& report, std::ostream& out, std::ostream& err) {
    out << format_summary(report.summary);
    int code = exit_code_of(report.summary);
    // The files are written all the same: what was found before the signal is kept.
    if (r.options.stop && *r.options.stop) code = interrupted_exit_code(*r.options.stop);
    report.exit_code = code;
    std::string error;
    std::vector<std::string> warnings;
    const bool written = write_report_files(r.files, report, error, warnings);
    for (const std::string& w : warnings)
        err << "lockcheck: warning: " << w << "\n";
    if (written) return code;
    err << "lockcheck: " << error << "\n";
    return kExitUsage;
}

// Looks for the smallest counterexample of `found`'s property within the time left, showing
// its progress: the `index`-th of `count` found.
Minimized minimize_finding(const CheckRequest& r, const Finding& found,
                           const CounterexampleSize& size, std::size_t index, std::size_t count,
                           MinimizeClock& clock) {
    MinimizeLimits limits;
    limits.executions = std::numeric_limits<std::uint64_t>::max();
    // Never 0 (no limit): a counterexample that finds the time used up stops at once.
    limits.seconds = std::max(clock.allowed - clock.used, 1e-9);
    limits.time_limit_name = "--minimize-time " + r.minimize_time.text;
    CheckOptions options = r.options;
    options.progress = r.progress;
    if (r.progress)
        r.progress->context =
            ProgressContext{r.progress->context.label, index + 1, count, limits.seconds};
    const auto start = std::chrono::steady_clock::now();
    Minimized m = minimize(setup_of(r), found, size.preemptions, size.steps, options, limits);
    clock.used += seconds_since(start);
    if (r.progress) r.progress->clear();
    return m;
}

// Prints a violation with the trace that leads to it, replayed in full detail: the smallest
// counterexample of its property unless minimizing is off. Adds it to the report and returns
// its size.
// A violation of the whole search (--max-wait-ratio), with the execution of the operation's
// worst wait, its waited steps marked: not minimized, as no one execution reproduces it.
CounterexampleSize print_search_finding(const CheckRequest& r, const Finding& found,
                                        RunReport& report, std::ostream& out) {
    ReplayResult rr = replay(setup_of(r), found.schedule, r.options);
    CounterexampleSize size;
    size.preemptions = size.found_preemptions = rr.trace.preemptions();
    size.steps = size.found_steps = rr.outcome.steps;
    const OpSpan* span = worst_span(rr.trace, found.violation.property);
    Finding f = found;
    if (span) f.violation.step = span->ended_at; // where the worst wait ended
    out << format_violation(f.violation) << "the execution of that worst wait:\n"
        << format_trace(rr.trace, r.colour, r.locations, r.files.full_trace, r.columns, span)
        << (span ? format_wait(rr.trace, *span) : "");
    const std::string command = replay_command(r, found.schedule);
    out << "replay (the worst wait; the bound is on the whole search): " << command << "\n\n";
    report.counterexamples.push_back(
        Counterexample{f.violation, f.schedule, std::move(rr.trace), command});
    return size;
}

CounterexampleSize print_finding(const CheckRequest& r, const Finding& found, std::size_t index,
                                 std::size_t count, bool minimize, MinimizeClock& clock,
                                 RunReport& report, std::ostream& out) {
    if (found.of_search) return print_search_finding(r, found, report, out);
    ReplayResult rr = replay(setup_of(r), found.schedule, r.options, &found.violation);
    CounterexampleSize size;
    size.preemptions = size.found_preemptions = rr.trace.preemptions();
    size.steps = size.found_steps = rr.outcome.steps;
    Finding f = found;
    if (minimize) {
        Minimized m = minimize_finding(r, found, size, index, count, clock);
        size.minimized = true;
        size.minimal = m.minimal;
        size.minimize_stopped_by = m.stopped_by;
        if (m.finding.schedule != found.schedule) {
            f = std::move(m.finding);
            rr = replay(setup_of(r), f.schedule, r.options, &f.violation);
            size.preemptions = rr.trace.preemptions();
            size.steps = rr.outcome.steps;
        }
    }
    out << format_violation(f.violation)
        << format_trace(rr.trace, r.colour, r.locations, r.files.full_trace, r.columns);
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
    // What the search's rounds told the execution, from its replay line (checked as parsed).
    memory::Tape tape;
    std::string error;
    memory::Tape::parse(r.evidence, tape, error);
    const weak_memory::RoundScope round({r.evidence.empty() ? nullptr : &tape, nullptr});
    ReplayResult rr = replay(setup_of(r), *r.replay, r.options);
    if (!rr.ok) {
        err << "lockcheck: --replay: " << rr.error << "\n";
        return kExitUsage;
    }
    Summary s = summary_of(
        r, "replay",
        bound_text("schedule of " + std::to_string(r.replay->size()) + " steps", r, rr.stats));
    s.stats = rr.stats;
    // One schedule, not a search: which properties it evaluated says nothing of vacuity, and
    // it declares no verdict to judge.
    s.stats.properties.clear();
    if (rr.outcome.violation) {
        s.violations = 1;
        out << format_violation(*rr.outcome.violation);
    }
    out << format_trace(rr.trace, r.colour, r.locations, r.files.full_trace, r.columns) << "\n";
    RunReport report = report_of(r);
    if (rr.outcome.violation)
        report.counterexamples.push_back(Counterexample{
            *rr.outcome.violation, *r.replay, std::move(rr.trace), replay_command(r, *r.replay)});
    report.summary = std::move(s);
    forget_times(report.summary);
    return finish(r, report, out, err);
}

} // namespace

double MinimizeTime::allowed(double search_seconds) const {
    return seconds > 0 ? seconds : std::max(factor * search_seconds, kMinimizeFloor);
}

bool parse_minimize_time(const std::string& text, MinimizeTime& time, std::string& error) {
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [unit, ec] = std::from_chars(text.data(), end, value);
    const std::string_view suffix(unit, static_cast<std::size_t>(end - unit));
    double scale = 0;
    if (suffix == "s") scale = 1;
    if (suffix == "m") scale = 60;
    if (suffix == "h") scale = 3600;
    if (ec != std::errc() || !(value > 0) || value > 1e6 || (scale == 0 && suffix != "x")) {
        error = "--minimize-time: '" + text +
                "' is not a multiple of the search's time (10x) or a duration (30s, 5m, 1h)";
        return false;
    }
    time = MinimizeTime{scale == 0 ? value : 0, value * scale, text};
    return true;
}

bool parse_shard(const std::string& text, std::optional<Shard>& shard, std::string& error) {
    unsigned index = 0, count = 0;
    const char* end = text.data() + text.size();
    const auto [slash, ec] = std::from_chars(text.data(), end, index);
    bool ok = ec == std::errc() && slash != end && *slash == '/';
    if (ok) {
        const auto [last, ec2] = std::from_chars(slash + 1, end, count);
        ok = ec2 == std::errc() && last == end && index >= 1 && index <= count &&
             count <= kMaxShards;
    }
    if (!ok) {
        error = "--shard: '" + text +
                "' is not I/N, shard I of N (1 <= I <= N <= " + std::to_string(kMaxShards) + ")";
        return false;
    }
    shard = Shard{index, count};
    return true;
}

std::string replay_command(const CheckRequest& r, const Schedule& schedule) {
    std::string cmd =
        r.program + " " + r.protocol->name + " --variant " + r.protocol->variants[r.variant].name;
    for (std::size_t i = 0; i < r.protocol->parameters.size(); ++i)
        cmd += " --" + r.protocol->parameters[i].name + " " + std::to_string(r.values[i]);
    if (r.options.spin_bound != CheckOptions{}.spin_bound)
        cmd += " --spin-bound " + std::to_string(r.options.spin_bound);
    // Under lkmm the schedule holds which write each read saw.
    if (r.options.memory_model != MemoryModel::sc)
        cmd += std::string(" --memory-model ") + memory_model_name(r.options.memory_model);
    // What is checked decides where an execution ends.
    if (!r.options.lockdep) cmd += " --no-lockdep";
    if (!r.options.races) cmd += " --no-races";
    for (const std::string& name : r.options.unchecked)
        cmd += " --no-check " + shell_word(name);
    for (const WaitBound& b : r.options.wait_bounds)
        cmd += " --max-wait " + shell_word(b.op + "=" + std::to_string(b.steps));
    cmd += " --replay " + format_schedule(schedule);
    // Under lkmm, what the rounds before told the execution (docs/memory-model.md, "Load
    // buffering"): a fresh process has no record of them.
    if (r.options.memory_model == MemoryModel::lkmm)
        if (const std::string tape = evidence_tape(setup_of(r), schedule, r.options); !tape.empty())
            cmd += " --evidence " + tape;
    return cmd;
}

RunReport search(const CheckRequest& r, std::ostream& out) {
    SearchOptions search_options = r.search;
    search_options.depth = r.options.depth;
    const std::unique_ptr<Strategy> strategy = make_search(search_options);
    CheckOptions options = r.options;
    options.progress = r.progress;
    options.next_round = [&search_options] { return make_search(search_options); };
    if (r.progress) r.progress->context.counterexamples = 0;
    SearchResult result = r.search.shard
                              ? explore_shard(setup_of(r), *strategy, options, *r.search.shard)
                              : explore(setup_of(r), *strategy, options);
    if (r.progress) r.progress->clear();
    std::string bound = "depth " + std::to_string(r.options.depth);
    if (r.options.max_steps != Execution::kDefaultMaxSteps)
        bound += ", at most " + std::to_string(r.options.max_steps) + " steps";
    if (!exhaustive(r.search.search))
        bound += ", " + std::to_string(r.search.iterations) + " executions";
    Summary s = summary_of(r, describe(search_options), bound_text(bound, r, result.stats));
    s.sampled = !exhaustive(r.search.search);
    s.shard = r.search.shard;
    // A breadth-first search shares its levels among the threads instead of splitting.
    if (options.jobs > 1 && !strategy->splits() && r.search.search != Search::bfs)
        s.one_thread = r.search.state_cache   ? "--state-cache"
                       : r.search.preemptions ? "dpor --preemptions"
                                              : search_name(r.search.search);
    else if (options.jobs > 1 && options.max_executions)
        s.one_thread = "--max-executions";
    s.keep_going = r.options.keep_going;
    if (r.search.search == Search::dfs || r.search.search == Search::dpor)
        s.preemption_bound = r.search.preemptions;
    if (r.search.search == Search::pct) {
        s.pct_depth = r.search.pct_depth;
        s.pct_steps = std::max(result.stats.longest, 1u); // k, as PCT learned it
    }
    s.stats = result.stats;
    s.violations = result.findings.size();
    const Expectation& expected = r.protocol->variants[r.variant].expected(r.options.memory_model);
    if (expected.expects_violation && expected.kind == ViolationKind::check_failed)
        s.stats.declare_check(expected.property);
    // Judged on the counterexamples as found (minimizing keeps each one's property), so that
    // whether to minimize them can depend on it.
    s.judgement = judge(expected, result.findings, s);
    const bool minimize =
        r.minimize && (r.minimize_as_declared || s.judgement->agreement != Agreement::as_declared);
    RunReport report = report_of(r);
    MinimizeClock clock{r.minimize_time.allowed(result.stats.elapsed_seconds)};
    for (std::size_t i = 0; i < result.findings.size(); ++i)
        s.counterexamples.push_back(print_finding(r, result.findings[i], i, result.findings.size(),
                                                  minimize, clock, report, out));
    s.stats.minimizing_seconds = clock.used;
    s.stats.elapsed_seconds += clock.used;
    report.summary = std::move(s);
    forget_times(report.summary);
    return report;
}

// Found nothing: complete, or not (a limit stopped the search, an internal table filled).
int exit_code_of(const Summary& s) {
    if (s.violations) return kExitViolation;
    return verdict_of(s) == Verdict::incomplete ? kExitIncomplete : kExitOk;
}

bool select_properties(CheckRequest& r, std::string& error) {
    if (r.properties.empty()) return true;
    std::vector<PropertyStats> declared = declared_properties(setup_of(r), r.options);
    // --check and --no-check choose among the invariants and final checks.
    std::erase_if(declared,
                  [](const PropertyStats& p) { return p.kind == PropertyKind::wait_bound; });
    return unchecked_properties(r.properties, declared, r.options.unchecked, error);
}

namespace {

// "fsync=13" into its operation and the number after '=', which `parse` reads (false: not
// one); false with a one-line reason naming `option` and `what` the number is.
template <class Number, class Parse>
bool operation_and_number(const std::string& option, const std::string& text, const char* what,
                          Parse parse, std::string& op, Number& number, std::string& error) {
    const std::size_t equals = text.rfind('=');
    const char* end = text.data() + text.size();
    const char* digits = equals == std::string::npos ? end : text.data() + equals + 1;
    if (equals == std::string::npos || equals == 0 || digits == end ||
        !parse(digits, end, number)) {
        error = option + ": '" + text + "' is not OP=" + what;
        return false;
    }
    op = text.substr(0, equals);
    return true;
}

template <class Bound>
bool bounded_twice(const std::string& option, const std::vector<Bound>& bounds,
                   const std::string& op, std::string& error) {
    for (const Bound& b : bounds)
        if (b.op == op) {
            error = option + ": " + op + " is bounded twice";
            return true;
        }
    return false;
}

} // namespace

bool parse_wait_bounds(const std::vector<std::string>& max_waits,
                       const std::vector<std::string>& max_ratios, CheckOptions& options,
                       std::string& error) {
    options.wait_bounds.clear();
    options.wait_ratios.clear();
    const auto steps = [](const char* first, const char* last, unsigned& value) {
        const auto [ptr, ec] = std::from_chars(first, last, value);
        return ec == std::errc() && ptr == last && value <= kMaxDepth;
    };
    for (const std::string& text : max_waits) {
        std::string op;
        unsigned value = 0;
        const std::string what = "STEPS (an operation's name, and the steps it may wait, from 0 "
                                 "to " +
                                 std::to_string(kMaxDepth) + ")";
        if (!operation_and_number("--max-wait", text, what.c_str(), steps, op, value, error) ||
            bounded_twice("--max-wait", options.wait_bounds, op, error))
            return false;
        options.wait_bounds.push_back(WaitBound{std::move(op), value, false});
    }
    const auto ratio = [](const char* first, const char* last, double& value) {
        const auto [ptr, ec] = std::from_chars(first, last, value);
        return ec == std::errc() && ptr == last && value >= 1 && value <= 1e6;
    };
    for (const std::string& text : max_ratios) {
        std::string op;
        double value = 0;
        if (!operation_and_number("--max-wait-ratio", text,
                                  "RATIO (an operation's name, and how many times its mean wait "
                                  "its worst may be, from 1)",
                                  ratio, op, value, error) ||
            bounded_twice("--max-wait-ratio", options.wait_ratios, op, error))
            return false;
        options.wait_ratios.push_back(WaitRatio{std::move(op), value});
    }
    return true;
}

bool choose_wait_search(CheckRequest& r, bool strategy_given, std::string& error) {
    bool bounded = !r.options.wait_bounds.empty() || !r.options.wait_ratios.empty();
    if (!bounded)
        for (const PropertyStats& p : declared_properties(setup_of(r), r.options))
            bounded = bounded || p.kind == PropertyKind::wait_bound;
    if (!bounded) return true;
    if (stores_states(r.search)) {
        if (!strategy_given) {
            // The stored states a model asks check-all for give way to DFS, as DPOR does below.
            r.search.state_cache = false;
            r.search.search = Search::dfs;
            return true;
        }
        error = std::string(r.search.state_cache ? "--state-cache" : "--strategy bfs") +
                " cannot check a wait bound: a wait depends on the path to a state, and it "
                "explores each state from one path only";
        return false;
    }
    const Search s = r.search.search;
    if (s == Search::dpor || s == Search::optimal_dpor) {
        if (strategy_given) {
            error = std::string("--strategy ") + search_name(s) +
                    " cannot check a wait bound: a wait depends on the order of independent "
                    "steps, which it does not explore (use dfs, random or pct)";
            return false;
        }
        r.search.search = Search::dfs;
    }
    return true;
}

std::string unknown_operation(const std::string& option, const std::string& op,
                              const CheckRequest& r, const SearchStats& stats) {
    std::vector<std::string> names;
    for (const OpWaits& w : stats.ops)
        names.push_back(w.op);
    std::string listed;
    for (const std::string& name : names)
        listed += (listed.empty() ? "" : ", ") + name;
    return option + ": no operation '" + op + "' finished in " + r.protocol->name + " --variant " +
           r.protocol->variants[r.variant].name + did_you_mean(op, names) +
           " (its operations: " + (listed.empty() ? "none" : listed) + ")";
}

namespace {

// A bound on an operation no execution finished (--max-wait, --max-wait-ratio) would never be
// evaluated, and the run would pass: refused once a search that ran every execution it was
// to run knows the model's operations.
bool bounds_known_operations(const CheckRequest& r, const RunReport& report, std::string& error) {
    const Summary& s = report.summary;
    if (!s.stats.stopped_by.empty() || r.search.shard || (s.violations && !r.options.keep_going))
        return true;
    auto check = [&](const std::string& option, const std::string& op) {
        if (!error.empty() || s.stats.find_op(op)) return;
        error = unknown_operation(option, op, r, s.stats);
    };
    for (const WaitBound& b : r.options.wait_bounds)
        if (!b.declared) check("--max-wait", b.op);
    for (const WaitRatio& b : r.options.wait_ratios)
        check("--max-wait-ratio", b.op);
    return error.empty();
}

} // namespace

int run_check(const CheckRequest& r, std::ostream& out, std::ostream& err) {
    // A file that cannot be written is found before the search, not after it.
    if (std::string error; !check_report_files(r.files, error)) {
        err << "lockcheck: " << error << "\n";
        return kExitUsage;
    }
    if (r.replay) return run_replay(r, out, err);
    RunReport report = search(r, out);
    if (std::string error; !bounds_known_operations(r, report, error) ||
                           (!r.worst_wait.empty() && !show_worst_wait(r, report, out, error))) {
        err << "lockcheck: " << error << "\n";
        return kExitUsage;
    }
    return finish(r, report, out, err);
}

} // namespace lockcheck::detail::cli
