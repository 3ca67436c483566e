// The lockcheck command line: `lockcheck list`, `lockcheck MODEL [options]`. Parsing is
// CLI11's; every input error is one line on stderr and exit code 2.
#include <CLI/CLI.hpp>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <unistd.h>

#include "check_all.hpp"
#include "check_command.hpp"
#include "checker/model_registry.hpp"
#include "list_command.hpp"
#include "replay_file.hpp"
#include "reports/graph.hpp"

namespace lc = lockcheck;

namespace {

constexpr unsigned kMaxDepth = 1'000'000;

// "--depth 0", "--depth x": a validator so that the message names the value and the range.
CLI::Validator positive_integer(unsigned max) {
    return CLI::Validator(
        [max](std::string& text) -> std::string {
            unsigned value = 0;
            auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (ec != std::errc() || ptr != text.data() + text.size() || value == 0 || value > max)
                return "'" + text + "' is not an integer from 1 to " + std::to_string(max);
            return {};
        },
        "INT in [1.." + std::to_string(max) + "]");
}

std::string model_names() {
    std::string names;
    for (const lc::Protocol& p : lc::registered_models())
        names += (names.empty() ? "" : ", ") + p.name;
    return names;
}

// How a trace is printed.
void add_trace_options(CLI::App* sub, bool& locations, bool& full) {
    sub->add_flag(
        "--locations", locations,
        "name each trace step's line in the model (FILE:LINE FUNCTION), in a last column");
    sub->add_flag("--full-trace", full,
                  "show every step in traces and drawings, none folded into '... N steps ...'");
}

// The files a run may write besides its output.
void add_report_options(CLI::App* sub, lc::cli::ReportFiles& files) {
    sub->add_option("--trace", files.trace,
                    "draw each counterexample into FILE (.dot, .svg, .png or .pdf; the 2nd "
                    "into FILE-2.EXT, ...)")
        ->type_name("FILE")
        ->check(CLI::Validator(&lc::graph_format_problem, "FILE.{dot,svg,png,pdf}"));
    sub->add_option("--json", files.json, "write the run and its counterexamples as JSON")
        ->type_name("FILE");
    sub->add_option("--junit", files.junit, "write the run as JUnit XML, for CI")
        ->type_name("FILE");
    sub->add_option("--report", files.report,
                    "write DIR/index.html: the summary, each counterexample drawn and traced")
        ->type_name("DIR");
}

// --time-limit DURATION, in seconds: "30s", "5m", "1h".
void add_time_limit(CLI::App* sub, double& seconds, const std::string& help) {
    sub->add_option("--time-limit", seconds, help)
        ->type_name("DURATION")
        ->transform(
            CLI::AsNumberWithUnit(std::map<std::string, double>{{"s", 1}, {"m", 60}, {"h", 3600}}))
        ->check(CLI::PositiveNumber);
}

std::string comma_separated(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names)
        text += (text.empty() ? "" : ",") + name;
    return text;
}

int usage_error(const std::string& message) {
    std::cerr << "lockcheck: " << message << "\n";
    return lc::cli::kExitUsage;
}

} // namespace

int main(int argc, char** argv) {
    // A binary built with a broken model (lockcheck_add_model) says so before anything else.
    if (const auto problems = lc::registration_problems(); !problems.empty())
        return usage_error(problems.front());

    CLI::App app{"lockcheck: a deterministic model checker for kernel-style lock protocols",
                 "lockcheck"};
    app.set_version_flag("--version", "lockcheck " LOCKCHECK_VERSION);
    app.require_subcommand(1);
    app.failure_message([](const CLI::App*, const CLI::Error& e) { return std::string(e.what()); });

    app.add_subcommand("list", "list models, their variants and each variant's expected verdict");

    const bool colour = isatty(STDOUT_FILENO) != 0;
    // Replay lines name the command as it is called: lockcheck, or a user's model binary.
    const std::string program = std::filesystem::path(argv[0]).filename().string();
    std::string replay_path;
    unsigned replay_index = 1;
    bool replay_locations = false;
    lc::cli::ReportFiles replay_files;
    CLI::App* replay_file =
        app.add_subcommand("replay", "replay a counterexample saved by --json: the same trace, "
                                     "summary and drawing");
    replay_file->add_option("file", replay_path, "a report written by --json")
        ->required()
        ->type_name("FILE.json");
    replay_file
        ->add_option("--counterexample", replay_index, "which of the report's counterexamples")
        ->check(CLI::Range(1u, 1'000'000u))
        ->capture_default_str();
    add_trace_options(replay_file, replay_locations, replay_files.full_trace);
    add_report_options(replay_file, replay_files);

    lc::cli::CheckAllRequest check_all;
    CLI::App* check_all_cmd = app.add_subcommand(
        "check-all", "check every variant of every model (or of the MODELs named) against the "
                     "verdict it declares; exit 0 only if all are as declared (for CI)");
    check_all_cmd->add_option("model", check_all.models, "models to check (default: all)")
        ->type_name("MODEL");
    check_all_cmd
        ->add_option("--junit", check_all.junit,
                     "write a JUnit test case per variant: failing if it differs, skipped if "
                     "incomplete")
        ->type_name("FILE");
    check_all_cmd->add_option("--json", check_all.json, "write every variant's run as JSON")
        ->type_name("FILE");
    add_time_limit(check_all_cmd, check_all.time_limit,
                   "stop each variant's search after this long (e.g. 30s, 5m); a variant it "
                   "stops is incomplete");

    const auto& protocols = lc::registered_models();
    std::vector<lc::cli::CheckRequest> requests(protocols.size());
    std::vector<std::string> variant_names(protocols.size()), depth_text(protocols.size()),
        replay_text(protocols.size()), strategy_text(protocols.size());
    std::vector<unsigned> stack_kib(protocols.size(), 256);
    std::vector<std::optional<unsigned>> preemptions(protocols.size());
    for (std::size_t i = 0; i < protocols.size(); ++i) {
        const lc::Protocol& p = protocols[i];
        lc::cli::CheckRequest& r = requests[i];
        r.protocol = &p;
        r.colour = colour;
        r.program = program;
        r.values = p.default_values();
        variant_names[i] = p.variants[p.default_variant].name;
        std::vector<std::string> choices;
        for (const lc::Variant& v : p.variants)
            choices.push_back(v.name);

        CLI::App* sub = app.add_subcommand(p.name, p.summary);
        sub->add_option("--variant", variant_names[i], "protocol variant")
            ->check(CLI::IsMember(choices))
            ->capture_default_str();
        sub->add_option("--depth", depth_text[i],
                        "scheduling steps one execution may take (default " +
                            std::to_string(p.default_depth) + ", or the variant's own)")
            ->type_name("N")
            ->check(positive_integer(kMaxDepth));
        sub->add_option("--replay", replay_text[i], "replay one schedule (as printed by a run)")
            ->type_name("SCHEDULE");
        r.search.search = lc::kDefaultSearch;
        sub->add_option("--strategy", strategy_text[i],
                        "dfs: every interleaving; dpor: one of each class of interleavings that "
                        "differ only in the order of independent steps; optimal-dpor: dpor that "
                        "runs no class twice; random: uniformly random schedules; pct: "
                        "probabilistic concurrency testing")
            ->check(CLI::IsMember(lc::search_names()).description(""))
            ->type_name("{" + comma_separated(lc::search_names()) + "}")
            ->default_str(lc::search_name(lc::kDefaultSearch));
        sub->add_option("--preemptions", preemptions[i],
                        "dfs, dpor: only schedules with at most K preemptions (iterative "
                        "context bounding)")
            ->type_name("K")
            ->check(CLI::Range(0u, 1000u));
        sub->add_option("--iterations", r.search.iterations,
                        "random, pct: the number of executions to run")
            ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))
            ->capture_default_str();
        sub->add_option("--seed", r.search.seed, "random, pct: the seed of every random choice")
            ->capture_default_str();
        sub->add_option("--pct-depth", r.search.pct_depth, "pct: the bug depth d to aim at")
            ->check(CLI::Range(1u, 32u))
            ->capture_default_str();
        add_time_limit(sub, r.options.time_limit,
                       "stop the search after this long (e.g. 30s, 5m, 1h); the run then exits 3 "
                       "(incomplete) unless it found a violation");
        sub->add_option("--max-executions", r.options.max_executions,
                        "stop the search after this many executions (exit 3 if incomplete)")
            ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
        add_trace_options(sub, r.locations, r.files.full_trace);
        add_report_options(sub, r.files);
        sub->add_flag("!--no-minimize", r.minimize,
                      "report the first counterexample found, not the one with the fewest "
                      "preemptions and then steps");
        sub->add_flag("--keep-going", r.options.keep_going,
                      "collect every distinct violation instead of stopping at the first");
        sub->add_option("--stack-size", stack_kib[i], "stack of each task fiber, in KiB")
            ->check(CLI::Range(16u, 65536u))
            ->capture_default_str();
        sub->add_option("--step-timeout", r.options.step_timeout,
                        "seconds a task may run without a scheduling point (an endless loop)")
            ->check(CLI::Range(1u, 3600u))
            ->capture_default_str();
        for (std::size_t k = 0; k < p.parameters.size(); ++k) {
            const lc::Parameter& param = p.parameters[k];
            try {
                sub->add_option("--" + param.name, r.values[k], param.help)
                    ->check(CLI::Range(param.min, param.max))
                    ->capture_default_str();
            } catch (const CLI::OptionAlreadyAdded&) {
                return usage_error("model '" + p.name + "': size option --" + param.name +
                                   " is one of lockcheck's own options");
            }
        }
    }

    if (argc < 2) return usage_error("no model given (models: " + model_names() + "; or 'list')");
    // An unknown model is the most common mistake: name the valid ones.
    const std::string command = argv[1];
    if (command[0] != '-' && command != "list" && command != "replay" && command != "check-all" &&
        !lc::find_registered_model(command))
        return usage_error("unknown model '" + std::string(argv[1]) +
                           "' (models: " + model_names() + "; or 'list')");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);
        std::string what = e.what();
        if (auto nl = what.find('\n'); nl != std::string::npos) what.resize(nl);
        return usage_error(what);
    }

    if (app.got_subcommand("list")) {
        lc::cli::print_list(std::cout);
        return lc::cli::kExitOk;
    }
    if (app.got_subcommand("check-all")) {
        check_all.colour = colour;
        check_all.program = program;
        std::vector<const lc::Protocol*> models;
        std::string error;
        if (!lc::cli::select_models(check_all, models, error)) return usage_error(error);
        try {
            return lc::cli::run_check_all(check_all, models, std::cout, std::cerr);
        } catch (const std::exception& e) {
            return usage_error("check-all: cannot set up a model: " + std::string(e.what()));
        }
    }
    if (app.got_subcommand("replay")) {
        try {
            return lc::cli::run_replay_file(replay_path, replay_index, replay_files, colour,
                                            replay_locations, program, std::cout, std::cerr);
        } catch (const std::exception& e) {
            return usage_error("replay: " + std::string(e.what()));
        }
    }
    for (std::size_t i = 0; i < protocols.size(); ++i) {
        if (!app.got_subcommand(protocols[i].name)) continue;
        lc::cli::CheckRequest& r = requests[i];
        r.variant = *protocols[i].find_variant(variant_names[i]);
        if (!strategy_text[i].empty()) r.search.search = *lc::find_search(strategy_text[i]);
        r.options.depth = depth_text[i].empty()
                              ? protocols[i].depth_for(r.variant)
                              : static_cast<std::uint32_t>(std::stoul(depth_text[i]));
        r.options.stack_size = std::size_t{stack_kib[i]} * 1024;
        if (preemptions[i]) {
            if (r.search.search != lc::Search::dfs && r.search.search != lc::Search::dpor)
                return usage_error("--preemptions bounds --strategy dfs and dpor only");
            r.search.preemptions = *preemptions[i];
        }
        if (!replay_text[i].empty() || app.get_subcommand(protocols[i].name)->count("--replay")) {
            lc::Schedule schedule;
            std::string error;
            if (!lc::parse_schedule(replay_text[i], schedule, error))
                return usage_error("--replay: " + error);
            r.replay = std::move(schedule);
        }
        try {
            return lc::cli::run_check(r, std::cout, std::cerr);
        } catch (const std::exception& e) {
            // The model's set-up itself failed (too many tasks, say): nothing was checked.
            return usage_error("cannot set up " + protocols[i].name + ": " + e.what());
        }
    }
    return usage_error("no model given (models: " + model_names() + "; or 'list')");
}
