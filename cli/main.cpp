// The lockcheck command line: `lockcheck list`, `lockcheck MODEL [options]`. Parsing is
// CLI11's; every input error is one line on stderr and exit code 2. main() itself is in
// lockcheck.cpp, so that the fuzz target can link this file without it.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <thread>
#include <unistd.h>

#include "check_all.hpp"
#include "check_command.hpp"
#include "checker/model_registry.hpp"
#include "compare_command.hpp"
#include "did_you_mean.hpp"
#include "list_command.hpp"
#include "lockcheck_command.hpp"
#include "memory/evidence.hpp"
#include "merge_command.hpp"
#include "pager.hpp"
#include "replay_file.hpp"
#include "reports/graph.hpp"
#include "scheduler/one_line.hpp"

namespace lc = lockcheck::detail;

namespace {

using lc::cli::kMaxDepth;

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

// "--renames x" to check-all: an int, which select_models() holds to each model's range.
CLI::Validator integer() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            int value = 0;
            auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (ec != std::errc() || ptr != text.data() + text.size())
                return "'" + text + "' is not an integer";
            return {};
        },
        "INT");
}

// "--seed -1": an unsigned 64-bit integer, refused rather than wrapped around.
CLI::Validator unsigned_64() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            std::uint64_t value = 0;
            auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (ec != std::errc() || ptr != text.data() + text.size())
                return "'" + text + "' is not an integer from 0 to " +
                       std::to_string(std::numeric_limits<std::uint64_t>::max());
            return {};
        },
        "UINT64");
}

std::string comma_separated(const std::vector<std::string>& names, const char* separator = ",") {
    std::string text;
    for (const std::string& name : names)
        text += (text.empty() ? "" : separator) + name;
    return text;
}

// "--variant no-pn": one of `choices`, or a message naming the nearest one and all of them.
CLI::Validator one_of(const std::string& what, const std::vector<std::string>& choices) {
    return CLI::Validator(
               [what, choices](std::string& text) -> std::string {
                   if (std::find(choices.begin(), choices.end(), text) != choices.end()) return {};
                   return "'" + text + "' is not " + what + lc::cli::did_you_mean(text, choices) +
                          "; one of " + comma_separated(choices, ", ");
               },
               "")
        .name(what);
}

std::vector<std::string> model_name_list() {
    std::vector<std::string> names;
    for (const lc::Protocol& p : lc::registered_models())
        names.push_back(p.name);
    return names;
}

std::string model_names() {
    return comma_separated(model_name_list(), ", ");
}

// "<what>unknown model 'NAME'" and what to type instead: the nearest of `choices` if one is
// near, else every model (`more`: what else may be typed), on one short line.
std::string unknown_model(const std::string& what, const std::string& name,
                          const std::vector<std::string>& choices, const std::string& more) {
    const std::string nearest = lc::cli::did_you_mean(name, choices);
    return what + "unknown model '" + name + "'" +
           (nearest.empty() ? " (models: " + model_names() + more + ")"
                            : nearest + " ('lockcheck list' shows every model)");
}

// `compare`'s own help: its options, besides the model's (lockcheck help MODEL); compare's
// bound on dfs goes between the two parts.
constexpr const char* kCompareHelp[] = {
    "lockcheck compare MODEL [--variant A --variant B] [MODEL's options]\n"
    "  Runs variants A and B of MODEL at the same sizes and bounds (default: the before/after\n"
    "  pair the model declares, with its strategy) and prints one table side by side: verdicts,\n"
    "  executions, each named operation's waits and each lock's contention per execution, the\n"
    "  changes that matter marked. Without --strategy it always ends: dfs takes at most\n  ",
    " executions a side, past which both sides are sampled (--strategy random); the\n"
    "  table's 'chosen' row says which ran. A side stopped early (at its first violation, by a\n"
    "  limit or a signal) is 'partial', its waits not compared; one never run is 'not run'.\n"
    "  Exit 1 if B is unsafe or an operation --fail-if-worse names waits longer in B; 3 if a\n"
    "  limit stopped a search; 0 otherwise.\n"
    "Options (any of the model's too but --replay, --trace and --junit):\n"
    "  --variant NAME        twice: the variant before the change, then the one after\n"
    "  --fail-if-worse OP    exit 1 if OP's worst wait is longer in B (repeatable)\n"
    "  --json FILE           write both runs and the table as JSON (lockcheck-compare)\n"
    "  --report DIR          write DIR/index.html: the table, and each side's report with the\n"
    "                        drawing of its worst wait (of --worst-wait OP, else the first\n"
    "                        operation) in DIR/VARIANT/\n"};

std::string compare_help() {
    return kCompareHelp[0] + std::to_string(lc::cli::kCompareDfsBudget) + kCompareHelp[1];
}

// How a trace is printed.
void add_trace_options(CLI::App* sub, bool& locations, bool& full) {
    sub->add_flag(
        "--locations", locations,
        "name each trace step's line in the model (FILE:LINE FUNCTION), in a last column");
    sub->add_flag("--full-trace", full,
                  "show every step in traces and drawings, none folded into '... N steps ...' "
                  "or '... N more turns of the same loop ...'");
}

// --color WHEN, as git and ls take it.
void add_colour_option(CLI::App* sub, std::string& when) {
    sub->add_option("--color", when,
                    "colour the violating step: auto (on a terminal, unless NO_COLOR is set), "
                    "always or never")
        ->type_name("WHEN")
        ->check(one_of("a --color choice", {"auto", "always", "never"}))
        ->default_str("auto");
}

// Whether to colour stdout: --color, else a terminal without NO_COLOR (no-color.org).
bool use_colour(const std::string& when) {
    if (when == "always") return true;
    if (when == "never") return false;
    const char* no_colour = std::getenv("NO_COLOR");
    return isatty(STDOUT_FILENO) != 0 && !(no_colour && *no_colour);
}

// The options that only shape a search, refused with --replay, which runs one schedule.
const char* const kSearchOptions[] = {
    "--depth",       "--max-steps",     "--strategy",    "--preemptions",    "--iterations",
    "--seed",        "--pct-depth",     "--time-limit",  "--max-executions", "--keep-going",
    "--no-minimize", "--minimize-time", "--state-cache", "--shard",          "--no-load-buffering"};

// A model's size option that the command line cannot take: it has an option of that name.
std::string size_clash(const lc::Protocol& model, const std::string& size) {
    return "model '" + model.name + "': size option --" + size +
           " is one of lockcheck's own options";
}

// --minimize-time with --no-minimize, as a message; "" if not both.
std::string minimize_both(const CLI::App* sub) {
    if (sub->count("--minimize-time") && sub->count("--no-minimize"))
        return "--minimize-time bounds minimizing, and --no-minimize turns it off";
    return {};
}

// An option given that the chosen strategy (or --replay) would ignore, as a message; "" if none.
std::string ignored_option(const CLI::App* sub, lc::Search search, bool replay) {
    if (replay) {
        for (const char* option : kSearchOptions)
            if (sub->count(option))
                return std::string(option) +
                       " shapes a search, and --replay runs the one schedule it is given";
        return {};
    }
    const bool sampling = search == lc::Search::random || search == lc::Search::pct;
    const std::string name(lc::search_name(search));
    for (const char* option : {"--iterations", "--seed"})
        if (!sampling && sub->count(option))
            return std::string(option) + " is for --strategy random and pct; " + name +
                   " makes no random choice";
    if (search != lc::Search::pct && sub->count("--pct-depth"))
        return "--pct-depth is for --strategy pct, not " + name;
    if (const std::string both = minimize_both(sub); !both.empty()) return both;
    if (sub->count("--preemptions") && search != lc::Search::dfs && search != lc::Search::dpor)
        return "--preemptions bounds --strategy dfs and dpor only, not " + name;
    if (sub->count("--state-cache") && search == lc::Search::bfs)
        return "--state-cache is for --strategy dfs: bfs stores every state anyway";
    if (sub->count("--state-cache") && search != lc::Search::dfs)
        return "--state-cache is for --strategy dfs, not " + name;
    if (sub->count("--state-cache") && sub->count("--preemptions"))
        return "--state-cache explores every state, and --preemptions bounds schedules";
    if (sub->count("--shard") && (search != lc::Search::dfs || sub->count("--state-cache")))
        return "--shard splits --strategy dfs (with or without --preemptions), not " + name +
               (sub->count("--state-cache") ? " --state-cache" : "");
    if (sub->count("--shard") && sub->count("--max-wait-ratio"))
        return "--max-wait-ratio bounds the whole search, and --shard runs a part of it";
    if (sub->count("--shard") && sub->count("--max-executions"))
        return "--shard runs its part of the search, and --max-executions would cut it at a "
               "count that means nothing once the shards are merged";
    return {};
}

// An option `sub` does not have in argv, with the nearest it has: "--varient" -> "--variant".
std::string unknown_option(const CLI::App* sub, int argc, char** argv) {
    std::vector<std::string> names;
    for (const CLI::Option* o : sub->get_options()) {
        for (const std::string& name : o->get_lnames())
            names.push_back("--" + name);
        for (const std::string& name : o->get_snames())
            names.push_back("-" + name);
    }
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.size() < 2 || arg[0] != '-') continue;
        const std::string name = arg.substr(0, arg.find('='));
        if (name == "--" || std::find(names.begin(), names.end(), name) != names.end()) continue;
        if (name == "-h" || name == "--help") continue;
        return "unknown option '" + name + "' for " + sub->get_name() +
               lc::cli::did_you_mean(name, names) + " (see: " + sub->get_parent()->get_name() +
               " help " + sub->get_name() + ")";
    }
    return {};
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

// --time-limit DURATION, in seconds: "30s", "5m", "1h"; above 0 and at most a year.
void add_time_limit(CLI::App* sub, double& seconds, const std::string& help) {
    constexpr double kYear = 365.0 * 24 * 3600;
    sub->add_option("--time-limit", seconds, help)
        ->type_name("DURATION")
        ->transform(
            CLI::AsNumberWithUnit(std::map<std::string, double>{{"s", 1}, {"m", 60}, {"h", 3600}}))
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                double value = 0;
                auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
                if (ec != std::errc() || ptr != text.data() + text.size() || !(value > 0) ||
                    value > kYear)
                    return "'" + text +
                           "' seconds is not a duration above 0 and up to a year "
                           "(e.g. 30s, 5m, 1h)";
                return {};
            },
            ""));
}

// `message` quotes what the user typed, which may hold a line break or a terminal escape.
int usage_error(const std::string& message) {
    std::cerr << "lockcheck: " << lc::one_line(message) << "\n";
    return lc::cli::kExitUsage;
}

// A model's set-up that threw `e` (an exception of the model, too many tasks): the run is
// refused, with `context` before the reason. Running out of memory is no bad input: it goes on
// to main(), which says so (lockcheck.cpp).
int set_up_error(const std::string& context, const std::exception& e) {
    if (dynamic_cast<const std::bad_alloc*>(&e)) throw;
    return usage_error(context + e.what());
}

// SIGINT and SIGTERM ask a check to stop after the execution running then, and to report
// what it found so far; a second one of the same signal ends the process at once.
lc::StopRequest g_stop{0};

extern "C" void request_stop(int signal) {
    g_stop.store(signal, std::memory_order_relaxed);
}

void install_stop_handlers() {
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    // SA_RESTART: writing the report files is not cut short by the signal.
    action.sa_flags = SA_RESETHAND | SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

// The progress line on stderr, if a run draws one (-q: never).
std::unique_ptr<lc::cli::ProgressLine> progress_line(bool quiet) {
    if (!lc::cli::wants_progress(isatty(STDERR_FILENO) != 0, quiet)) return nullptr;
    return std::make_unique<lc::cli::ProgressLine>(std::cerr,
                                                   lc::cli::terminal_columns(STDERR_FILENO));
}

void add_quiet_flag(CLI::App* sub, bool& quiet) {
    sub->add_flag("-q,--quiet", quiet,
                  "no progress line (drawn on stderr, when it is a terminal, once a run has "
                  "gone on for a second)");
}

void add_pager_flag(CLI::App* sub, bool& no_pager) {
    sub->add_flag("--no-pager", no_pager,
                  "on a terminal, print straight to it rather than through $LOCKCHECK_PAGER, "
                  "$PAGER or less -FRX");
}

// Whether output goes through the pager: stdout is a terminal, and --no-pager was not given.
bool wants_pager(bool no_pager) {
    return !no_pager && isatty(STDOUT_FILENO) != 0;
}

// How executions are run and ended, which changes nothing a search reports: --unwind-tasks
// (the teardown of an execution's unfinished tasks by unwinding their stacks) and
// --no-checkpoints (every execution replayed from its start).
void add_execution_flags(CLI::App* sub, bool& unwind, bool& checkpoints) {
    sub->add_flag("--unwind-tasks", unwind,
                  "end an execution's unfinished tasks by unwinding their stacks, running their "
                  "locals' destructors, as before execution-owned memory (the default drops "
                  "them with the execution's memory; the findings and counts are the same)");
    sub->add_flag("!--no-checkpoints", checkpoints,
                  "replay each execution's path from its start, instead of going on from the "
                  "execution saved where the path leaves the last one's (dfs, dpor and "
                  "optimal-dpor under sc; the findings and counts are the same)");
}

// --jobs N: the threads that run executions, one per core unless told.
void add_jobs_option(CLI::App* sub, unsigned& jobs,
                     const char* what = "threads that run executions (default: one per core); "
                                        "dpor, optimal-dpor, dfs and bfs share their search "
                                        "among them, with the same result as on one") {
    jobs = std::max(1u, std::thread::hardware_concurrency());
    sub->add_option("-j,--jobs", jobs, what)->type_name("N")->check(CLI::Range(1u, 1024u));
}

void add_memory_model_option(CLI::App* sub, std::string& text) {
    sub->add_option("--memory-model", text,
                    "sc: every read sees the last write (barriers are assumed); lkmm: the Linux "
                    "kernel memory model, where a read may see an older write and barriers "
                    "decide which (docs/memory-model.md)")
        ->check(one_of("a memory model", {"sc", "lkmm"}))
        ->type_name("{sc,lkmm}")
        ->default_str("sc");
}

// --no-minimize and --minimize-time LIMIT (parsed by parse_minimize_time()).
void add_minimize_options(CLI::App* sub, bool& minimize, std::string& time,
                          const std::string& no_minimize_help, const std::string& time_help) {
    sub->add_flag("!--no-minimize", minimize, no_minimize_help);
    sub->add_option("--minimize-time", time, time_help)
        ->type_name("LIMIT")
        ->default_str(lc::cli::MinimizeTime{}.text);
}

void add_timing_flag(CLI::App* sub, bool& timing) {
    sub->add_flag("!--no-timing", timing,
                  "no elapsed times in the summary, table or report files (0 there), so that "
                  "reruns are byte-identical");
}

} // namespace

int lc::cli::lockcheck_command(int argc, char** argv, Stage stage) {
    // A binary built with a broken model (lockcheck_add_model) says so before anything else.
    if (const auto problems = lc::registration_problems(); !problems.empty())
        return usage_error(problems.front());

    // Replay lines name the command as it was run (build/lockcheck, or a user's model binary),
    // so that they can be pasted back as they are.
    const std::string program = argv[0];
    CLI::App app{"lockcheck: a deterministic model checker for kernel-style lock protocols",
                 program};
    app.set_version_flag("--version", std::string("lockcheck ") + lc::kLockcheckVersion);
    app.require_subcommand(1);
    app.failure_message([](const CLI::App*, const CLI::Error& e) { return std::string(e.what()); });

    bool list_json = false;
    app.add_subcommand("list", "list models, their variants and each variant's expected verdict")
        ->add_flag("--json", list_json,
                   "the same as JSON: every model with its variants, sizes and default depth");
    std::string help_topic;
    app.add_subcommand("compare", "compare two variants of a model (lockcheck help compare)")
        ->allow_extras();
    app.add_subcommand("help", "this help, a command's (help check-all), or a model's: its "
                               "options, sizes and variants")
        ->add_option("topic", help_topic, "a command or a model")
        ->type_name("COMMAND|MODEL");

    lc::cli::MergeRequest merge;
    std::string merge_colour = "auto";
    bool merge_no_pager = false;
    CLI::App* merge_cmd = app.add_subcommand(
        "merge", "merge the --json reports of every shard of one search (--shard I/N) into the "
                 "search's result and verdict");
    merge_cmd->add_option("files", merge.files, "each shard's report")
        ->type_name("FILE.json")
        ->required();
    merge_cmd->add_option("--json", merge.json, "write the merged report as JSON")
        ->type_name("FILE");
    add_colour_option(merge_cmd, merge_colour);
    add_pager_flag(merge_cmd, merge_no_pager);
    add_timing_flag(merge_cmd, merge.timing);

    const std::string command_line = lc::cli::command_line(argc, argv);
    std::string replay_path;
    unsigned replay_index = 1;
    bool replay_locations = false;
    bool replay_timing = true;
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
    add_timing_flag(replay_file, replay_timing);
    std::string replay_colour = "auto", check_all_colour = "auto";
    add_colour_option(replay_file, replay_colour);
    bool replay_no_pager = false;
    add_pager_flag(replay_file, replay_no_pager);

    lc::cli::CheckAllRequest check_all;
    CLI::App* check_all_cmd = app.add_subcommand(
        "check-all", "check every variant of every model (or of the MODELs named) against the "
                     "verdict it declares, at its default sizes or those given (--SIZE N); exit "
                     "0 only if all are as declared (for CI)");
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
    add_colour_option(check_all_cmd, check_all_colour);
    bool check_all_quiet = false;
    add_quiet_flag(check_all_cmd, check_all_quiet);
    bool check_all_no_pager = false;
    add_pager_flag(check_all_cmd, check_all_no_pager);
    add_timing_flag(check_all_cmd, check_all.timing);
    add_jobs_option(check_all_cmd, check_all.jobs,
                    "threads that run executions (default: one per core): up to N variants side "
                    "by side, each on N / that many threads, with the same table and reports as "
                    "one after the other");
    add_execution_flags(check_all_cmd, check_all.unwind_tasks, check_all.checkpoints);
    std::string check_all_memory_model = "sc";
    add_memory_model_option(check_all_cmd, check_all_memory_model);
    std::string check_all_minimize_time;
    add_minimize_options(check_all_cmd, check_all.minimize, check_all_minimize_time,
                         "a variant not as declared: its counterexample as found, not the one "
                         "with the fewest preemptions and then steps",
                         "how long minimizing a variant's counterexample may take: a multiple "
                         "of its search's time (at least 1 s) or a duration (30s, 5m); a "
                         "counterexample it stops is reported as not proven minimal");
    // --SIZE N: every size option of the registered models, each applied to the models checked
    // that have it; select_models() refuses one that none of them has, and a value outside a
    // model's range.
    std::vector<std::pair<std::string, const lc::Protocol*>> size_names; // and its first model
    std::map<std::string, std::string> size_help;
    for (const lc::Protocol& p : lc::registered_models())
        for (const lc::Parameter& param : p.parameters) {
            if (!size_help.contains(param.name)) size_names.emplace_back(param.name, &p);
            std::string& help = size_help[param.name];
            help += (help.empty() ? "" : "; ") + p.name + " (" + std::to_string(param.min) +
                    " to " + std::to_string(param.max) + ", default " +
                    std::to_string(param.default_value) + "): " + param.help;
        }
    std::map<std::string, int> check_all_sizes;
    for (const auto& [name, model] : size_names) {
        try {
            check_all_cmd->add_option("--" + name, check_all_sizes[name], size_help[name])
                ->type_name("N")
                ->check(integer());
        } catch (const CLI::OptionAlreadyAdded&) {
            return usage_error(size_clash(*model, name));
        }
    }

    const auto& protocols = lc::registered_models();
    std::vector<lc::cli::CheckRequest> requests(protocols.size());
    std::vector<std::string> variant_names(protocols.size()), depth_text(protocols.size()),
        replay_text(protocols.size()), strategy_text(protocols.size()),
        memory_model_text(protocols.size()), colour_text(protocols.size(), "auto");
    std::vector<unsigned> stack_kib(protocols.size(), 256);
    std::vector<std::string> minimize_time(protocols.size());
    std::vector<std::string> shard_text(protocols.size());
    std::deque<bool> quiet(protocols.size()); // a vector<bool> has no bool& to bind
    std::deque<bool> no_pager(protocols.size());
    std::vector<std::optional<unsigned>> preemptions(protocols.size());
    std::vector<std::vector<std::string>> max_waits(protocols.size()), max_ratios(protocols.size());
    for (std::size_t i = 0; i < protocols.size(); ++i) {
        const lc::Protocol& p = protocols[i];
        lc::cli::CheckRequest& r = requests[i];
        r.protocol = &p;
        r.program = program;
        r.command = command_line;
        r.values = p.default_values();
        variant_names[i] = p.variants[p.default_variant].name;
        std::vector<std::string> choices;
        for (const lc::Variant& v : p.variants)
            choices.push_back(v.name);

        CLI::App* sub = app.add_subcommand(p.name, p.summary);
        sub->add_option("--variant", variant_names[i], "protocol variant")
            ->type_name("{" + comma_separated(choices) + "}")
            ->check(one_of("a variant of " + p.name, choices))
            ->capture_default_str();
        sub->add_option("--depth", depth_text[i],
                        "scheduling choices one execution may make: steps at which more than "
                        "one task could run (default " +
                            std::to_string(p.default_depth) + ", or the variant's own)")
            ->type_name("N")
            ->check(positive_integer(kMaxDepth));
        sub->add_option("--max-steps", r.options.max_steps,
                        "steps one execution may take, choices or not: the backstop for a task "
                        "that runs alone without end")
            ->type_name("N")
            ->check(positive_integer(kMaxDepth))
            ->capture_default_str();
        sub->add_option("--replay", replay_text[i], "replay one schedule (as printed by a run)")
            ->type_name("SCHEDULE");
        sub->add_option("--evidence", r.evidence,
                        "with --replay under --memory-model lkmm: what the search's rounds told "
                        "the execution (as printed in the replay line; docs/memory-model.md, "
                        "\"Load buffering\")")
            ->type_name("ANSWERS");
        r.search.search = lc::kDefaultSearch;
        sub->add_option("--strategy", strategy_text[i],
                        "dfs: every interleaving; bfs: every state, level by level, each stored "
                        "and explored once, on every core (docs/scaling.md); dpor: one of each "
                        "class of interleavings that differ only in the order of independent "
                        "steps; optimal-dpor: dpor that runs no class twice; random: uniformly "
                        "random schedules; pct: probabilistic concurrency testing")
            ->check(one_of("a strategy", lc::search_names()))
            ->type_name("{" + comma_separated(lc::search_names()) + "}")
            ->default_str(lc::search_name(lc::kDefaultSearch));
        sub->add_option("--preemptions", preemptions[i],
                        "dfs, dpor: only schedules with at most K preemptions (iterative "
                        "context bounding)")
            ->type_name("K")
            ->check(CLI::Range(0u, 1000u));
        sub->add_flag("--state-cache", r.search.state_cache,
                      "dfs: store every state explored and never explore one twice (the model "
                      "must keep all shared state in primitives: docs/scaling.md)");
        sub->add_option("--iterations", r.search.iterations,
                        "random, pct: the number of executions to run")
            ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))
            ->capture_default_str();
        sub->add_option("--seed", r.search.seed, "random, pct: the seed of every random choice")
            ->check(unsigned_64())
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
        sub->add_option("--shard", shard_text[i],
                        "dfs: run shard I of N of the search (each shard alone, on any machine; "
                        "`lockcheck merge` their --json files for the search's verdict)")
            ->type_name("I/N");
        add_trace_options(sub, r.locations, r.files.full_trace);
        add_report_options(sub, r.files);
        add_colour_option(sub, colour_text[i]);
        add_minimize_options(sub, r.minimize, minimize_time[i],
                             "report the first counterexample found, not the one with the "
                             "fewest preemptions and then steps",
                             "how long minimizing the counterexamples may take in all: a "
                             "multiple of the search's time (at least 1 s) or a duration (30s, "
                             "5m); a counterexample it stops is reported as not proven minimal");
        add_quiet_flag(sub, quiet[i]);
        add_pager_flag(sub, no_pager[i]);
        add_timing_flag(sub, r.timing);
        add_jobs_option(sub, r.options.jobs);
        add_execution_flags(sub, r.options.unwind_tasks, r.options.checkpoints);
        sub->add_option("--worst-wait", r.worst_wait,
                        "after the search, show the execution in which the named operation OP "
                        "waited longest: its waited steps marked, whom it waited for at each "
                        "(with --trace, drawn into FILE)")
            ->type_name("OP");
        sub->add_flag("--keep-going", r.options.keep_going,
                      "collect every distinct violation instead of stopping at the first");
        sub->add_flag("!--no-lockdep", r.options.lockdep,
                      "no lockdep reports (circular or recursive lock-class dependencies), so "
                      "that the deadlock behind an inversion runs to its end");
        sub->add_flag("!--no-races", r.options.races, "no data-race reports");
        add_memory_model_option(sub, memory_model_text[i]);
        sub->add_flag("!--no-load-buffering", r.options.load_buffering,
                      "under --memory-model lkmm, leave out a read of a write its writer makes "
                      "later (load buffering), which a search otherwise explores in rounds where "
                      "it can find something (not litmus tests: their verdict is LKMM's only "
                      "with it; docs/memory-model.md, \"Load buffering\")");
        sub->add_option("--check", r.properties.only,
                        "check only this invariant or final check of the model (its name, or "
                        "the start of it; repeatable)")
            ->type_name("NAME")
            ->allow_extra_args(false);
        sub->add_option("--no-check", r.properties.off,
                        "do not check this invariant or final check of the model (repeatable)")
            ->type_name("NAME")
            ->allow_extra_args(false);
        sub->add_option("--max-wait", max_waits[i],
                        "a violation when an instance of the named operation OP waits more "
                        "than K steps (repeatable; the search is then dfs by default, never "
                        "dpor)")
            ->type_name("OP=K")
            ->allow_extra_args(false);
        sub->add_option("--max-wait-ratio", max_ratios[i],
                        "a violation when OP's worst wait is more than R times its mean wait "
                        "over the whole search (dbench's MaxLat/AvgLat; repeatable)")
            ->type_name("OP=R")
            ->allow_extra_args(false);
        sub->add_option("--stack-size", stack_kib[i], "stack of each task fiber, in KiB")
            ->check(CLI::Range(16u, 65536u))
            ->capture_default_str();
        sub->add_option("--step-timeout", r.options.step_timeout,
                        "seconds a task may run without a scheduling point (an endless loop)")
            ->check(CLI::Range(1u, 3600u))
            ->capture_default_str();
        sub->add_option("--spin-bound", r.options.spin_bound,
                        "turns a spin loop, or repeats a retry loop, may make with nothing "
                        "changed before it counts as endless (a hang, a livelock); --state-cache "
                        "judges loops as cycles first, and uses it only where it watches them")
            ->check(CLI::Range(1u, 100000u))
            ->capture_default_str();
        for (std::size_t k = 0; k < p.parameters.size(); ++k) {
            const lc::Parameter& param = p.parameters[k];
            try {
                sub->add_option("--" + param.name, r.values[k], param.help)
                    ->check(CLI::Range(param.min, param.max))
                    ->capture_default_str();
            } catch (const CLI::OptionAlreadyAdded&) {
                return usage_error(size_clash(p, param.name));
            }
        }
    }

    if (argc < 2) return usage_error("no model given (models: " + model_names() + "; or 'list')");
    // `compare MODEL ...` is parsed as `MODEL ...`, less what compare takes for itself.
    std::optional<lc::cli::CompareArguments> compare;
    std::vector<std::string> model_args;
    std::vector<char*> model_argv;
    if (std::string(argv[1]) == "compare") {
        if (argc < 3 || argv[2][0] == '-') {
            if (argc >= 3 && (std::string(argv[2]) == "-h" || std::string(argv[2]) == "--help")) {
                std::cout << compare_help();
                return lc::cli::kExitOk;
            }
            return usage_error("compare: no model given (models: " + model_names() + ")");
        }
        const std::string model = argv[2];
        if (!lc::find_registered_model(model))
            return usage_error(unknown_model("compare: ", model, model_name_list(), ""));
        compare.emplace();
        if (std::string error; !lc::cli::split_compare_arguments(
                std::vector<std::string>(argv + 3, argv + argc), *compare, error))
            return usage_error(error);
        model_args = {program, model};
        model_args.insert(model_args.end(), compare->rest.begin(), compare->rest.end());
        for (std::string& arg : model_args)
            model_argv.push_back(arg.data());
        argc = static_cast<int>(model_argv.size());
        argv = model_argv.data();
    }
    // An unknown model is the most common mistake: name the nearest and the valid ones.
    const std::string command = argv[1];
    std::vector<std::string> commands = model_name_list();
    commands.insert(commands.end(), lc::kCommandNames.begin(), lc::kCommandNames.end());
    if (command[0] != '-' && std::find(commands.begin(), commands.end(), command) == commands.end())
        return usage_error(unknown_model("", command, commands, "; or 'list'"));

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);
        // Two variants are what compare is for.
        if (command[0] != '-' && !compare && lc::find_registered_model(command) &&
            app.get_subcommand(command)->count("--variant") > 1)
            return usage_error("--variant given twice: lockcheck " + command +
                               " checks one variant; to run two side by side, lockcheck compare " +
                               command + " --variant A --variant B");
        if (dynamic_cast<const CLI::ExtrasError*>(&e) && command[0] != '-')
            if (const std::string unknown = unknown_option(app.get_subcommand(command), argc, argv);
                !unknown.empty())
                return usage_error(unknown);
        return usage_error(e.what());
    }

    if (app.got_subcommand("list")) {
        if (list_json)
            lc::cli::print_list_json(std::cout);
        else
            lc::cli::print_list(std::cout);
        return lc::cli::kExitOk;
    }
    if (app.got_subcommand("help")) {
        if (help_topic.empty()) {
            // app.help() would describe the subcommand just parsed, `help` itself.
            std::cout << app.get_formatter()->make_help(&app, program, CLI::AppFormatMode::Normal);
            return lc::cli::kExitOk;
        }
        if (help_topic == "compare") {
            std::cout << compare_help();
            return lc::cli::kExitOk;
        }
        // What `COMMAND --help` prints: the errors of every command point here.
        if (std::find(lc::kCommandNames.begin(), lc::kCommandNames.end(), help_topic) !=
            lc::kCommandNames.end()) {
            std::cout << app.get_subcommand(help_topic)->help(program);
            return lc::cli::kExitOk;
        }
        const lc::Protocol* p = lc::find_registered_model(help_topic);
        if (!p) return usage_error(unknown_model("help: ", help_topic, commands, "; or a command"));
        std::cout << app.get_subcommand(p->name)->help(program) << "\n";
        lc::cli::print_variants(std::cout, *p);
        return lc::cli::kExitOk;
    }
    if (app.got_subcommand("check-all")) {
        check_all.colour = use_colour(check_all_colour);
        check_all.memory_model = lc::memory_model_named(check_all_memory_model);
        check_all.program = program;
        check_all.command = command_line;
        for (const auto& [name, model] : size_names)
            if (check_all_cmd->count("--" + name))
                check_all.sizes.emplace_back(name, check_all_sizes[name]);
        if (const std::string both = minimize_both(check_all_cmd); !both.empty())
            return usage_error(both);
        if (std::string error;
            !check_all_minimize_time.empty() &&
            !lc::cli::parse_minimize_time(check_all_minimize_time, check_all.minimize_time, error))
            return usage_error(error);
        std::vector<const lc::Protocol*> models;
        std::string error;
        if (!lc::cli::select_models(check_all, models, error)) return usage_error(error);
        if (stage == Stage::validate) return lc::cli::kExitOk;
        check_all.stop = &g_stop;
        install_stop_handlers();
        const auto progress = progress_line(check_all_quiet);
        try {
            lc::cli::Pager pager(wants_pager(check_all_no_pager));
            return lc::cli::run_check_all(check_all, models, pager.out(), std::cerr,
                                          progress.get());
        } catch (const std::exception& e) {
            return set_up_error("check-all: cannot set up a model: ", e);
        }
    }
    if (app.got_subcommand("merge")) {
        merge.colour = use_colour(merge_colour);
        merge.command = command_line;
        if (stage == Stage::validate) return lc::cli::kExitOk;
        lc::cli::Pager pager(wants_pager(merge_no_pager));
        return lc::cli::run_merge(merge, pager.out(), std::cerr);
    }
    if (app.got_subcommand("replay")) {
        if (stage == Stage::validate) return lc::cli::kExitOk;
        try {
            lc::cli::CheckRequest shown;
            shown.files = replay_files;
            shown.colour = use_colour(replay_colour);
            shown.locations = replay_locations;
            shown.timing = replay_timing;
            shown.columns = lc::cli::output_columns();
            shown.program = program;
            shown.command = command_line;
            lc::cli::Pager pager(wants_pager(replay_no_pager));
            return lc::cli::run_replay_file(replay_path, replay_index, shown, pager.out(),
                                            std::cerr);
        } catch (const std::exception& e) {
            return set_up_error("replay: ", e);
        }
    }
    for (std::size_t i = 0; i < protocols.size(); ++i) {
        if (!app.got_subcommand(protocols[i].name)) continue;
        lc::cli::CheckRequest& r = requests[i];
        r.colour = use_colour(colour_text[i]);
        r.variant = *protocols[i].find_variant(variant_names[i]);
        if (!strategy_text[i].empty()) r.search.search = *lc::find_search(strategy_text[i]);
        r.options.memory_model = lc::memory_model_named(memory_model_text[i]);
        const CLI::App* sub = app.get_subcommand(protocols[i].name);
        if (sub->count("--no-load-buffering") && r.options.memory_model != lc::MemoryModel::lkmm)
            return usage_error("--no-load-buffering is a behaviour of --memory-model lkmm");
        // A litmus test's verdict is LKMM's only with every behaviour LKMM allows explored.
        if (sub->count("--no-load-buffering") && protocols[i].kind == lc::ModelKind::litmus)
            return usage_error("a litmus test always explores load buffering: its verdict is "
                               "LKMM's only with it");
        if (compare) {
            lc::cli::CompareRequest c;
            c.run = r;
            c.fail_if_worse = compare->fail_if_worse;
            c.json = compare->json;
            c.report = compare->report;
            if (!depth_text[i].empty())
                c.run.options.depth = static_cast<std::uint32_t>(std::stoul(depth_text[i]));
            c.run.options.stack_size = std::size_t{stack_kib[i]} * 1024;
            if (preemptions[i]) c.run.search.preemptions = *preemptions[i];
            if (std::string error; !lc::cli::choose_comparison(
                    c, compare->variants, !strategy_text[i].empty(), !depth_text[i].empty(),
                    sub->count("--iterations") > 0, error))
                return usage_error(error);
            if (const std::string ignored = ignored_option(sub, c.run.search.search, false);
                !ignored.empty())
                return usage_error(ignored);
            if (sub->count("--shard"))
                return usage_error("compare runs both searches whole; --shard runs a part of one");
            if (std::string error;
                !lc::cli::parse_wait_bounds(max_waits[i], max_ratios[i], c.run.options, error))
                return usage_error(error);
            if (!minimize_time[i].empty()) {
                std::string error;
                if (!lc::cli::parse_minimize_time(minimize_time[i], c.run.minimize_time, error))
                    return usage_error(error);
            }
            try {
                if (std::string error; !lc::cli::select_properties(c.run, error))
                    return usage_error(error);
                if (stage == Stage::validate) return lc::cli::kExitOk;
                c.run.options.stop = &g_stop;
                install_stop_handlers();
                const auto progress = progress_line(quiet[i]);
                c.run.progress = progress.get();
                lc::cli::Pager pager(wants_pager(no_pager[i]));
                return lc::cli::run_compare(c, pager.out(), std::cerr);
            } catch (const std::exception& e) {
                return set_up_error("cannot set up " + protocols[i].name + ": ", e);
            }
        }
        const bool replaying = !replay_text[i].empty() || sub->count("--replay");
        if (const std::string ignored = ignored_option(sub, r.search.search, replaying);
            !ignored.empty())
            return usage_error(ignored);
        if (replaying && sub->count("--worst-wait"))
            return usage_error("--worst-wait replays the worst wait a search found, and --replay "
                               "runs the one schedule it is given");
        r.options.depth = depth_text[i].empty()
                              ? protocols[i].depth_for(r.variant)
                              : static_cast<std::uint32_t>(std::stoul(depth_text[i]));
        r.options.stack_size = std::size_t{stack_kib[i]} * 1024;
        if (preemptions[i]) r.search.preemptions = *preemptions[i];
        if (!shard_text[i].empty()) {
            std::string error;
            if (!parse_shard(shard_text[i], r.search.shard, error)) return usage_error(error);
        }
        if (sub->count("--evidence")) {
            if (!replaying) return usage_error("--evidence goes with the --replay it came with");
            lc::memory::Tape tape;
            std::string error;
            if (!lc::memory::Tape::parse(r.evidence, tape, error))
                return usage_error("--evidence: " + error);
        }
        if (replaying) {
            lc::Schedule schedule;
            std::string error;
            if (!lc::parse_schedule(replay_text[i], schedule, error))
                return usage_error("--replay: " + error);
            r.replay = std::move(schedule);
        }
        if (!minimize_time[i].empty()) {
            std::string error;
            if (!lc::cli::parse_minimize_time(minimize_time[i], r.minimize_time, error))
                return usage_error(error);
        }
        if (std::string error;
            !lc::cli::parse_wait_bounds(max_waits[i], max_ratios[i], r.options, error))
            return usage_error(error);
        try {
            // The property names are checked against the model's set-up (no task runs).
            if (std::string error; !lc::cli::select_properties(r, error)) return usage_error(error);
            if (std::string error;
                !lc::cli::choose_wait_search(r, !strategy_text[i].empty(), error))
                return usage_error(error);
            if (stage == Stage::validate) return lc::cli::kExitOk;
            r.options.stop = &g_stop;
            install_stop_handlers();
            const auto progress = progress_line(quiet[i]);
            r.progress = progress.get();
            r.columns = lc::cli::output_columns();
            lc::cli::Pager pager(wants_pager(no_pager[i]));
            return lc::cli::run_check(r, pager.out(), std::cerr);
        } catch (const std::exception& e) {
            // The model's set-up itself failed (too many tasks, say): nothing was checked.
            return set_up_error("cannot set up " + protocols[i].name + ": ", e);
        }
    }
    return usage_error("no model given (models: " + model_names() + "; or 'list')");
}
