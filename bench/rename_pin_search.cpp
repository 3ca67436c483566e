// Steps per second where it matters: the exhaustive DFS of rename-pin, timed as the CLI runs
// it (explore() with a fresh DFS), so set-up and teardown of every execution count.
#include <algorithm>
#include <ctime>
#include <stdexcept>

#include "checker/explorer.hpp"
#include "checker/model_registry.hpp"
#include "deadline_dfs.hpp"
#include "measure.hpp"

namespace lockcheck::detail::bench {

namespace {

void set_parameter(const Protocol& p, ParameterValues& values, const std::string& name, int v) {
    for (std::size_t i = 0; i < p.parameters.size(); ++i)
        if (p.parameters[i].name == name) {
            values[i] = v;
            return;
        }
    throw std::invalid_argument(p.name + " has no parameter --" + name);
}

} // namespace

SearchCost measure_rename_pin(const std::string& variant, int renames, int fsyncs, int reps,
                              double budget, double limit) {
    const Protocol* p = find_registered_model("rename-pin");
    if (!p) throw std::invalid_argument("no rename-pin protocol");
    const std::optional<std::size_t> index = p->find_variant(variant);
    if (!index) throw std::invalid_argument("rename-pin has no variant " + variant);
    ParameterValues values = p->default_values();
    set_parameter(*p, values, "renames", renames);
    set_parameter(*p, values, "fsyncs", fsyncs);
    const Setup setup = [&] { p->setup(*index, values); };
    CheckOptions options;
    options.depth = p->default_depth;

    SearchCost cost;
    cost.variant = variant;
    cost.renames = renames;
    cost.fsyncs = fsyncs;
    std::clock_t cpu = 0;
    auto run = [&] {
        const std::clock_t cpu_start = std::clock();
        const auto start = Clock::now();
        const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(limit));
        DeadlineDfs dfs(options.depth, deadline);
        const SearchResult result = explore(setup, dfs, options);
        const double seconds = seconds_since(start);
        cpu += std::clock() - cpu_start;
        cost.executions = result.stats.executions;
        cost.steps = result.stats.steps;
        cost.switching_steps = dfs.switching_steps();
        cost.findings = result.findings.size();
        cost.exhaustive = !dfs.stopped();
        return seconds;
    };
    // A stopped run lasts at least `limit`: capping the budget there runs it once, so that its
    // steps and its time belong to the same run.
    cost.timing = time_repeated(reps, std::min(budget, limit), run);
    cost.cpu_seconds = static_cast<double>(cpu) / CLOCKS_PER_SEC / cost.timing.runs;
    return cost;
}

} // namespace lockcheck::detail::bench
