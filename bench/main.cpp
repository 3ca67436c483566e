// lockcheck-bench: what one scheduling step costs next to a raw Boost.Context switch, how
// many steps per second the exhaustive rename-pin search runs, against the targets in
// measure.hpp, and what saving and restoring a checkpoint cost next to a step.
// docs/PERFORMANCE.md records its figures and how to reproduce them.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "checker/model_registry.hpp"
#include "report.hpp"

namespace bench = lockcheck::detail::bench;

namespace {

constexpr int kExitMissed = 1;
constexpr int kExitUsage = 2;

struct Size {
    int renames = 1;
    int fsyncs = 1;
};

struct Plan {
    bool quick = false;
    bool json = false;
    // What to measure: "switch" (the reference), "shapes" (the other switch variants),
    // "step", "search", "checkpoint". Profiling one part alone keeps the others out of the
    // profile.
    std::vector<std::string> only{"switch", "shapes", "step", "search", "checkpoint"};
    // The models whose checkpoints are measured, at their default sizes.
    std::vector<std::string> checkpoint_models{"rename-pin", "tree-lock", "cil-push",
                                               "buffered-write"};
    int reps = 31;
    std::uint64_t switches = 2'000'000;
    std::uint32_t steps = 1'000'000;
    std::vector<int> tasks{1, 2};
    // Which steps to time: "same-task" (the task that ran goes on) and, with two tasks or
    // more, "switching" (every step is another task's).
    std::vector<std::string> step_shapes{"same-task", "switching"};
    double search_budget = 10;
    // Searched to the end, 1x2 takes minutes and 2x1 far longer: by default both are stopped
    // after a minute, which measures their rate but not their size.
    double search_limit = 60;
    std::vector<std::string> sizes{"1x1", "1x2", "2x1"}; // the sizes
};

// "2x1": 2 renames, 1 fsync.
CLI::Validator size_text() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            int r = 0, f = 0;
            const char* end = text.data() + text.size();
            auto [x, e1] = std::from_chars(text.data(), end, r);
            if (e1 == std::errc() && x != end && *x == 'x') {
                auto [y, e2] = std::from_chars(x + 1, end, f);
                if (e2 == std::errc() && y == end && r >= 1 && f >= 1) return {};
            }
            return "'" + text + "' is not RENAMESxFSYNCS, like 2x1";
        },
        "RENAMESxFSYNCS");
}

Size parse_size(const std::string& text) {
    Size s;
    const auto x = text.find('x');
    std::from_chars(text.data(), text.data() + x, s.renames);
    std::from_chars(text.data() + x + 1, text.data() + text.size(), s.fsyncs);
    return s;
}

// --quick keeps every measurement but shrinks it to about a second in all; options given
// explicitly still win.
void apply_quick(const CLI::App& app, Plan& plan) {
    if (!plan.quick) return;
    if (!app.count("--reps")) plan.reps = 7;
    if (!app.count("--switches")) plan.switches = 200'000;
    if (!app.count("--steps")) plan.steps = 100'000;
    if (!app.count("--search-budget")) plan.search_budget = 1;
    if (!app.count("--sizes")) plan.sizes = {"1x1"};
}

bench::Results run(const Plan& plan) {
    bench::Results r;
    r.build_type = LOCKCHECK_BUILD_TYPE;
    r.reps = plan.reps;
    auto wanted = [&](const char* part) {
        return std::find(plan.only.begin(), plan.only.end(), part) != plan.only.end();
    };
    using bench::SwitchShape;
    if (wanted("switch"))
        r.switches.push_back(
            bench::measure_raw_switch(SwitchShape::plain, plan.switches, plan.reps));
    if (wanted("shapes"))
        for (SwitchShape shape : {SwitchShape::two_frames, SwitchShape::mxcsr_differs})
            r.switches.push_back(bench::measure_raw_switch(shape, plan.switches, plan.reps));
    if (wanted("step"))
        for (int tasks : plan.tasks)
            for (const std::string& shape : plan.step_shapes) {
                if (shape == "switching" && tasks == 1) continue;
                r.steps.push_back(bench::measure_step(tasks,
                                                      shape == "switching"
                                                          ? bench::StepShape::switching
                                                          : bench::StepShape::same_task,
                                                      plan.steps, plan.reps));
            }
    if (wanted("checkpoint"))
        for (const std::string& model : plan.checkpoint_models)
            r.checkpoints.push_back(bench::measure_checkpoint(model, plan.reps));
    if (wanted("search")) {
        // Every variant expected to verify: only those explore their whole state space.
        for (const lockcheck::detail::Variant& v :
             lockcheck::detail::find_registered_model("rename-pin")->variants) {
            if (v.expect.expects_violation) continue;
            for (const std::string& text : plan.sizes) {
                const Size s = parse_size(text);
                // The larger searches take minutes: say which one is running.
                std::cerr << "lockcheck-bench: searching rename-pin " << v.name << " " << text
                          << "\n";
                r.searches.push_back(bench::measure_rename_pin(
                    v.name, s.renames, s.fsyncs, plan.reps, plan.search_budget, plan.search_limit));
            }
        }
    }
    return r;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"lockcheck-bench: cost of a scheduling step and steps per second of exhaustive "
                 "rename-pin, against the performance targets",
                 "lockcheck-bench"};
    Plan plan;
    app.add_flag("--quick", plan.quick, "a short run: smaller, fewer runs; size 1x1 only");
    app.add_flag("--json", plan.json, "print the figures as JSON instead of a table");
    app.add_option("--only", plan.only, "measure only these parts (for profiling)")
        ->delimiter(',')
        ->check(CLI::IsMember({"switch", "shapes", "step", "search", "checkpoint"}));
    app.add_option("--reps", plan.reps, "timed runs per measurement (the median is reported)")
        ->check(CLI::Range(1, 1001));
    app.add_option("--switches", plan.switches, "raw switches per timed run")
        ->check(CLI::Range(std::uint64_t{2}, std::uint64_t{1} << 40));
    app.add_option("--steps", plan.steps, "scheduling steps per timed run")
        ->check(CLI::Range(2u, 1u << 30));
    app.add_option("--tasks", plan.tasks, "task counts of the scheduling-step benchmark")
        ->delimiter(',')
        ->check(CLI::Range(1, 64));
    app.add_option("--step-shapes", plan.step_shapes,
                   "steps to time: the same task going on, or every step switching task")
        ->delimiter(',')
        ->check(CLI::IsMember({"same-task", "switching"}));
    app.add_option("--sizes", plan.sizes, "rename-pin sizes to search, RENAMESxFSYNCS")
        ->delimiter(',')
        ->check(size_text());
    app.add_option("--search-limit", plan.search_limit,
                   "seconds after which a search is stopped before it is exhaustive")
        ->check(CLI::PositiveNumber);
    app.add_option("--search-budget", plan.search_budget,
                   "seconds after which a search stops repeating (it always runs once)")
        ->check(CLI::PositiveNumber);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help is a ParseError too, with exit code 0.
        return app.exit(e) == 0 ? 0 : kExitUsage;
    }
    apply_quick(app, plan);
    try {
        const bench::Results r = run(plan);
        if (plan.json)
            bench::print_json(r, std::cout);
        else
            bench::print_table(r, std::cout);
        return bench::targets_met(r) ? 0 : kExitMissed;
    } catch (const std::exception& e) {
        std::cerr << "lockcheck-bench: " << e.what() << "\n";
        return kExitUsage;
    }
}
