// Running `lockcheck compare`: the two searches, the table, the files and the exit code.
#include "compare_command.hpp"

#include <algorithm>
#include <cstdlib>
#include <ostream>
#include <sstream>

#include "did_you_mean.hpp"
#include "worst_wait.hpp"

namespace lockcheck::detail::cli {

namespace {

// The options compare takes for itself, and those it refuses: each run is a search, shown
// in the table, not a trace.
constexpr std::string_view kRefused[] = {"--replay", "--trace", "--junit"};

// "--name VALUE" or "--name=VALUE" at args[i]: its value (and i moved past it), if `name`.
bool take_value(const std::vector<std::string>& args, std::size_t& i, std::string_view name,
                std::string& value, std::string& error) {
    const std::string& arg = args[i];
    if (arg.size() > name.size() && arg.starts_with(name) && arg[name.size()] == '=') {
        value = arg.substr(name.size() + 1);
        return true;
    }
    if (arg != name) return false;
    if (i + 1 >= args.size() || args[i + 1].starts_with("-")) {
        error = "compare: " + std::string(name) + " needs a value";
        return false;
    }
    value = args[++i];
    return true;
}

const OpWaits* find_op(const RunReport& side, const std::string& op) {
    return side.summary.stats.find_op(op);
}

// The operation whose worst waits --report draws: --worst-wait's, else the first
// --fail-if-worse names, else the one whose worst wait changed the most (the first of those).
std::string drawn_operation(const CompareRequest& request, const CompareReport& c) {
    if (!request.run.worst_wait.empty()) return request.run.worst_wait;
    if (!request.fail_if_worse.empty()) return request.fail_if_worse.front();
    std::string drawn;
    std::int64_t most = -1;
    for (const OpWaits& w : c.before.summary.stats.ops) {
        const OpWaits* after = find_op(c.after, w.op);
        if (!after) continue;
        const std::int64_t change = std::abs(std::int64_t{after->worst} - std::int64_t{w.worst});
        if (change > most) {
            most = change;
            drawn = w.op;
        }
    }
    return drawn;
}

bool incomplete(const RunReport& r) {
    return !r.summary.stats.stopped_by.empty() || !r.summary.stats.full_tables.empty();
}

bool stopped(const CheckRequest& r) {
    return r.options.stop && *r.options.stop;
}

// Runs both sides of `c` with `run`'s search, the after side only if no signal stopped the
// before side's. With a `budget` (executions), stops at the first side whose search takes
// them all and returns its variant: the pair is beyond that search; "" otherwise.
std::string run_sides(const CompareRequest& request, const CheckRequest& run, std::uint64_t budget,
                      CompareReport& c) {
    RunReport* sides[] = {&c.before, &c.after};
    bool* ran[] = {&c.before_ran, &c.after_ran};
    const std::size_t variants[] = {request.before, request.after};
    c.before_ran = c.after_ran = false;
    for (std::size_t i = 0; i < 2; ++i) {
        if (i > 0 && stopped(run)) break;
        CheckRequest r = run;
        r.variant = variants[i];
        r.files = {};
        if (budget) r.options.max_executions = budget;
        const std::string& variant = r.protocol->variants[variants[i]].name;
        if (r.progress)
            r.progress->context.label =
                "compare " + r.protocol->name + " --variant " + variant + ": ";
        std::ostringstream traces; // the table shows each run; the traces are in --report
        *sides[i] = search(r, traces);
        sides[i]->exit_code = exit_code_of(sides[i]->summary);
        // A search bounded by a count of executions runs on one thread, as --max-executions's.
        if (budget && sides[i]->summary.one_thread == "--max-executions")
            sides[i]->summary.one_thread = "compare's bound on dfs";
        *ran[i] = true;
        if (budget && sides[i]->summary.stats.stopped_by.starts_with("--max-executions"))
            return variant;
    }
    return "";
}

} // namespace

bool split_compare_arguments(const std::vector<std::string>& args, CompareArguments& split,
                             std::string& error) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string name = args[i].substr(0, args[i].find('='));
        if (std::find(std::begin(kRefused), std::end(kRefused), name) != std::end(kRefused)) {
            error = "compare: " + name +
                    " is for one variant's run (lockcheck MODEL); compare prints a table";
            return false;
        }
        std::string value;
        if (take_value(args, i, "--variant", value, error))
            split.variants.push_back(value);
        else if (take_value(args, i, "--fail-if-worse", value, error))
            split.fail_if_worse.push_back(value);
        else if (take_value(args, i, "--json", value, error))
            split.json = value;
        else if (take_value(args, i, "--report", value, error))
            split.report = value;
        else if (error.empty())
            split.rest.push_back(args[i]);
        if (!error.empty()) return false;
    }
    return true;
}

bool choose_comparison(CompareRequest& request, const std::vector<std::string>& variants,
                       bool strategy_given, bool depth_given, bool iterations_given,
                       std::string& error) {
    CheckRequest& r = request.run;
    const Protocol& p = *r.protocol;
    const std::optional<Comparison>& declared = p.comparison;
    std::vector<std::string> pair = variants;
    if (pair.empty() && declared) pair = {declared->before, declared->after};
    if (pair.size() != 2) {
        error = "compare " + p.name + ": " +
                (pair.empty() ? "the model declares no before/after pair: name two variants"
                              : "give two variants") +
                " (--variant A --variant B)";
        return false;
    }
    std::vector<std::string> names;
    for (const Variant& v : p.variants)
        names.push_back(v.name);
    std::size_t* sides[] = {&request.before, &request.after};
    for (std::size_t i = 0; i < 2; ++i) {
        const std::optional<std::size_t> found = p.find_variant(pair[i]);
        if (!found) {
            error = "compare: '" + pair[i] + "' is not a variant of " + p.name +
                    did_you_mean(pair[i], names);
            return false;
        }
        *sides[i] = *found;
    }
    if (request.before == request.after) {
        error = "compare: the two variants are the same, " + pair[0];
        return false;
    }
    if (!strategy_given && declared) {
        r.search.search = *find_search(declared->strategy);
        if (!r.search.preemptions) r.search.preemptions = declared->preemptions;
        if (!iterations_given && declared->iterations) r.search.iterations = declared->iterations;
        if (r.search.search != Search::dfs)
            request.chosen = "the sample " + p.name + " declares for its comparison";
    }
    if (!depth_given)
        r.options.depth = std::max(p.depth_for(request.before), p.depth_for(request.after));
    // Waits are what compare is for: never measured by a reduction.
    if (stores_states(r.search)) {
        error = std::string("compare: ") +
                (r.search.state_cache ? "--state-cache" : "--strategy bfs") +
                " does not measure waits: it explores each state from one path only, and a "
                "wait depends on the path";
        return false;
    }
    if (r.search.search == Search::dpor || r.search.search == Search::optimal_dpor) {
        if (strategy_given) {
            error = std::string("compare: --strategy ") + search_name(r.search.search) +
                    " does not measure waits: a wait depends on the order of independent "
                    "steps, which it does not explore (use dfs, random or pct)";
            return false;
        }
        r.search.search = Search::dfs;
    }
    // A dfs compare chose is bounded by compare: a pair beyond dfs (a retry loop, a custom
    // spinning lock) would run without end, and the table only comes at the end.
    if (!strategy_given && r.search.search == Search::dfs && !r.options.max_executions) {
        request.dfs_budget = kCompareDfsBudget;
        request.sample = r.search;
        request.sample.search = Search::random;
        request.sample.preemptions.reset();
    }
    return true;
}

int run_compare(const CompareRequest& request, std::ostream& out, std::ostream& err) {
    ReportFiles files;
    files.json = request.json;
    files.report = request.report;
    if (std::string error; !check_report_files(files, error)) {
        err << "lockcheck: " << error << "\n";
        return kExitUsage;
    }
    CompareReport c;
    c.command = request.run.command;
    c.fail_if_worse = request.fail_if_worse;
    c.before_variant = request.run.protocol->variants[request.before].name;
    c.after_variant = request.run.protocol->variants[request.after].name;
    c.chosen = request.chosen;
    CheckRequest searched = request.run; // the search the table shows
    const std::string budget = std::to_string(request.dfs_budget);
    if (const std::string beyond = run_sides(request, searched, request.dfs_budget, c);
        !beyond.empty()) {
        searched.search = request.sample;
        run_sides(request, searched, 0, c);
        c.chosen = "a random sample: dfs did not end " + beyond + " within " + budget +
                   " executions (compare's bound; --strategy dfs runs it to its end)";
    } else if (request.dfs_budget && c.after_ran && c.before.summary.stats.stopped_by.empty() &&
               c.after.summary.stats.stopped_by.empty()) {
        c.chosen =
            "dfs: each side's search ended within " + budget + " executions (compare's bound)";
    } else if (request.dfs_budget) {
        c.chosen = "dfs, at most " + budget +
                   " executions a side (compare's bound), then a random sample of both";
    }
    RunReport* sides[] = {&c.before, &c.after};
    const std::size_t variants[] = {request.before, request.after};
    std::vector<std::pair<std::string, std::string>> named; // (option, operation)
    for (const std::string& op : request.fail_if_worse)
        named.emplace_back("--fail-if-worse", op);
    if (!request.run.worst_wait.empty()) named.emplace_back("--worst-wait", request.run.worst_wait);
    for (const auto& [option, op] : named)
        if (!find_op(c.before, op) && !find_op(c.after, op)) {
            err << "lockcheck: " << option << ": no operation '" << op << "' finished in either "
                << "variant of " << request.run.protocol->name << "\n";
            return kExitUsage;
        }
    if (const std::string op = drawn_operation(request, c); !request.report.empty() && !op.empty())
        for (std::size_t i = 0; i < 2; ++i) {
            if (!find_op(*sides[i], op)) continue; // the other side draws it alone
            CheckRequest r = searched;
            r.variant = variants[i];
            r.worst_wait = op;
            std::ostringstream shown;
            if (std::string error; !show_worst_wait(r, *sides[i], shown, error)) {
                err << "lockcheck: compare: " << error << "\n";
                return kExitUsage;
            }
        }
    if (request.run.options.stop && *request.run.options.stop)
        c.exit_code = interrupted_exit_code(*request.run.options.stop);
    else if (c.after.summary.violations || !worse_operations(c).empty())
        c.exit_code = kExitViolation;
    else if (incomplete(c.before) || incomplete(c.after))
        c.exit_code = kExitIncomplete;
    out << format_comparison(c);
    std::string error;
    std::vector<std::string> warnings;
    const bool written = write_compare_files(request.json, request.report, c, error, warnings);
    for (const std::string& w : warnings)
        err << "lockcheck: warning: " << w << "\n";
    if (!written) {
        err << "lockcheck: " << error << "\n";
        return kExitUsage;
    }
    return c.exit_code;
}

} // namespace lockcheck::detail::cli
