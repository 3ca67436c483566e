// The command line as a user who mistypes, asks for help or scripts it meets it: the nearest
// name suggested for a typo, options the chosen search would ignore refused with the reason,
// numbers that would wrap refused, `help MODEL`, `list --json`, --color and NO_COLOR, replay
// lines naming the binary as it was run, the installed man page and bash completion.
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "checker/model_registry.hpp"
#include "checker/protocol.hpp"
#include "cli/did_you_mean.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Refused {
    std::vector<std::string> args;
    const char* says; // what the one-line error must say
};

// Each is refused with exit 2 and one line on stderr saying this.
const Refused kRefused[] = {
    {{"renam-pin"}, "unknown model 'renam-pin' (did you mean 'rename-pin'?)"},
    {{"rename-pin", "--varient", "no-pin"},
     "unknown option '--varient' for rename-pin (did you "
     "mean '--variant'?)"},
    // A short option the command has is not the unknown one.
    {{"rename-pin", "-q", "--no-color"},
     "unknown option '--no-color' for rename-pin (did you mean '--color'?)"},
    {{"rename-pin", "--max-steps", "0"}, "--max-steps: '0' is not an integer from 1 to 1000000"},
    {{"rename-pin", "--variant", "no-pn"},
     "'no-pn' is not a variant of rename-pin (did you mean "
     "'no-pin'?)"},
    {{"rename-pin", "--strategy", "dpr"}, "'dpr' is not a strategy (did you mean 'dpor'?)"},
    {{"rename-pin", "--color", "sometimes"}, "'sometimes' is not a --color choice"},
    {{"rename-pin", "--time-limit", "0"}, "'0' seconds is not a duration above 0"},
    {{"rename-pin", "--time-limit", "1e400"}, "--time-limit"},
    {{"rename-pin", "--strategy", "random", "--seed", "-1"}, "'-1' is not an integer from 0"},
    {{"rename-pin", "--strategy", "random", "--seed", "99999999999999999999"},
     "'99999999999999999999' is not an integer from 0 to 18446744073709551615"},
    {{"rename-pin", "--seed", "7"},
     "--seed is for --strategy random and pct; dpor makes no "
     "random choice"},
    {{"rename-pin", "--strategy", "dfs", "--iterations", "7"},
     "--iterations is for --strategy "
     "random and pct"},
    {{"rename-pin", "--strategy", "random", "--pct-depth", "2"},
     "--pct-depth is for --strategy "
     "pct, not random"},
    {{"rename-pin", "--variant", "no-pin", "--replay", "0.0", "--depth", "5"},
     "--depth shapes a search, and --replay runs the one schedule it is given"},
    {{"rename-pin", "--replay", "0.0", "--keep-going"}, "--keep-going shapes a search"},
    {{"help", "tree-lok"}, "help: unknown model 'tree-lok' (did you mean 'tree-lock'?)"},
    // What the user typed is quoted with its control characters escaped, so that the error
    // stays one line (found by fuzz/fuzz_command_line).
    {{"rename\rpin"}, "unknown model 'rename\\rpin' (did you mean 'rename-pin'?)"},
    {{"rename-pin", "--variant", "no\npin"}, "'no\\npin' is not a variant of rename-pin"},
    {{"rename-pin", "--replay", "0.1\n2"}, "--replay: step 2: '1\\n2' is not a task id"},
};

// A saved report with its "depth" replaced by `depth`.
std::string report_with_depth(const std::string& json, const std::string& depth) {
    return std::regex_replace(json, std::regex("\"depth\": [0-9]+"), "\"depth\": " + depth);
}

} // namespace

TEST_GROUP(CommandLine){};

TEST(CommandLine, the_nearest_choice_is_suggested_only_when_it_is_near_and_unique) {
    const std::vector<std::string> models = {"rename-pin", "tree-lock", "cil-push"};
    CHECK_EQUAL(std::string("rename-pin"), cli::nearest_choice("renam-pin", models));
    CHECK_EQUAL(std::string("rename-pin"), cli::nearest_choice("rnaeme-pin", models));
    CHECK_EQUAL(std::string(""), cli::nearest_choice("btrfs", models));
    CHECK_EQUAL(std::string(""), cli::nearest_choice("rename-pin", models)); // no typo
    // Two choices as near: no guess.
    CHECK_EQUAL(std::string(""), cli::nearest_choice("ab", {"ac", "bb"}));
}

TEST(CommandLine, mistakes_are_refused_with_one_line_that_says_what_to_type) {
    for (const Refused& r : kRefused) {
        const Run run = run_lockcheck(r.args);
        std::string what;
        for (const std::string& a : r.args)
            what += a + " ";
        what += "printed: " + run.err;
        CHECK_EQUAL_TEXT(2, run.exit_code, what.c_str());
        CHECK_TEXT(is_one_line(run.err), what.c_str());
        CHECK_TEXT(contains(run.err, r.says), what.c_str());
        // One line a terminal shows whole: an unknown model with no near name lists every
        // shipped model, which grows with each (17 of them, under 300 characters); one with a
        // near name says only that.
        CHECK_TEXT(run.err.size() < 400, what.c_str());
        CHECK_TEXT(run.out.empty(), what.c_str());
    }
}

TEST(CommandLine, a_saved_report_with_a_depth_outside_the_range_is_refused) {
    const std::string json = "/tmp/lockcheck-test-depth.json";
    const Run saved = run_lockcheck({"rename-pin", "--variant", "no-pin", "--json", json});
    CHECK_EQUAL(1, saved.exit_code);
    const std::string text = read_file(json);
    for (const char* depth : {"0", "4294967295"}) {
        std::ofstream(json) << report_with_depth(text, depth);
        const Run run = run_lockcheck({"replay", json});
        CHECK_EQUAL_TEXT(2, run.exit_code, run.err.c_str());
        CHECK_TEXT(is_one_line(run.err), run.err.c_str());
        CHECK_TEXT(contains(run.err, "depth " + std::string(depth) + " is outside 1..1000000"),
                   run.err.c_str());
    }
    std::remove(json.c_str());
}

TEST(CommandLine, a_saved_report_naming_what_this_lockcheck_lacks_is_refused_in_one_line) {
    const std::string json = "/tmp/lockcheck-test-lacks.json";
    const Run saved = run_lockcheck({"rename-pin", "--variant", "no-pin", "--json", json});
    CHECK_EQUAL(1, saved.exit_code);
    const std::string text = read_file(json);
    // The report's strings are quoted with their control characters escaped
    // (fuzz/fuzz_replay_json aborted on them): `from` in the report replaced by `to` is
    // refused, saying `says`.
    struct Edit {
        const char *from, *to, *says;
    };
    const Edit edits[] = {
        {"\"model\": \"rename-pin\"", "\"model\": \"rename\\npin\"", "no model 'rename\\npin'"},
        {"\"variant\": \"no-pin\"", "\"variant\": \"no\\u001b[31mpin\"",
         "rename-pin has no variant 'no\\x1b[31mpin'"},
        {"\"name\": \"renames\"", "\"name\": \"re\\rnames\"",
         "rename-pin has no parameter --re\\rnames"},
    };
    for (const Edit& e : edits) {
        std::ofstream(json) << std::regex_replace(text, std::regex(e.from), e.to);
        const Run run = run_lockcheck({"replay", json});
        CHECK_EQUAL_TEXT(2, run.exit_code, run.err.c_str());
        CHECK_TEXT(is_one_line(run.err), run.err.c_str());
        CHECK_TEXT(contains(run.err, e.says), run.err.c_str());
    }
    std::remove(json.c_str());
}

TEST(CommandLine, help_for_a_model_lists_its_options_sizes_and_variants) {
    const Run run = run_lockcheck({"help", "rename-pin"});
    CHECK_EQUAL_TEXT(0, run.exit_code, run.err.c_str());
    for (const char* part : {"--variant", "--renames", "--fsyncs", "--strategy", "variants:\n"})
        CHECK_TEXT(contains(run.out, part), run.out.c_str());
    for (const Protocol& p : protocol_models()) {
        if (p.name != "rename-pin") continue;
        for (const Variant& v : p.variants)
            CHECK_TEXT(contains(run.out, v.name + " "), v.name.c_str());
    }
    const Run general = run_lockcheck({"help"});
    CHECK_EQUAL(0, general.exit_code);
    CHECK_TEXT(contains(general.out, "check-all"), general.out.c_str());
}

// Every command's unknown-option error ends "(see: lockcheck help COMMAND)": that command, and
// `COMMAND --help`, print the command's help.
TEST(CommandLine, help_describes_every_command_that_an_error_points_to) {
    for (const std::string_view name : kCommandNames) {
        const std::string command(name);
        // replay and merge want a file before they look at options.
        std::vector<std::string> args = {command, "report.json", "--no-such-option"};
        if (command != "replay" && command != "merge") args.erase(args.begin() + 1);
        if (command == "compare") args.insert(args.begin() + 1, "rename-pin");
        const Run wrong = run_lockcheck(args);
        CHECK_EQUAL_TEXT(2, wrong.exit_code, (command + ": " + wrong.err).c_str());
        const std::size_t see = wrong.err.find("(see: lockcheck help ");
        CHECK_TEXT(see != std::string::npos, (command + ": " + wrong.err).c_str());
        const std::size_t topic = see + std::string("(see: lockcheck help ").size();
        const std::string pointed = wrong.err.substr(topic, wrong.err.find(')', topic) - topic);
        const Run help = run_lockcheck({"help", pointed});
        CHECK_EQUAL_TEXT(0, help.exit_code, ("help " + pointed + ": " + help.err).c_str());
        CHECK_TEXT(contains(help.out, "Usage: lockcheck " + pointed + " [OPTIONS]"),
                   help.out.c_str());

        const Run asked = run_lockcheck({"help", command});
        CHECK_EQUAL_TEXT(0, asked.exit_code, ("help " + command + ": " + asked.err).c_str());
        CHECK_TEXT(contains(asked.out, "lockcheck " + command), asked.out.c_str());
        const Run flag = run_lockcheck({command, "--help"});
        CHECK_EQUAL_TEXT(0, flag.exit_code, (command + " --help: " + flag.err).c_str());
        CHECK_EQUAL(asked.out, flag.out);
    }
}

namespace {
// A variant's declared verdict under `model` as list --json writes it.
void check_expectation_json(const Variant& v, MemoryModel model, const nlohmann::json& json) {
    const Expectation& e = v.expected(model);
    const std::string what = v.name + " under " + std::string(memory_model_name(model));
    CHECK_TEXT(json.is_object(), (what + ": no expected verdict").c_str());
    CHECK_EQUAL_TEXT(std::string(e.expects_violation ? "violation" : "verified"),
                     json["verdict"].get<std::string>(), what.c_str());
    if (e.expects_violation) {
        CHECK_EQUAL_TEXT(std::string(kind_name(e.kind)), json["kind"].get<std::string>(),
                         what.c_str());
        CHECK_EQUAL_TEXT(e.property, json["property"].get<std::string>(), what.c_str());
    }
}
} // namespace

TEST(CommandLine, list_json_has_every_model_with_its_variants_sizes_and_both_verdicts) {
    const Run run = run_lockcheck({"list", "--json"});
    CHECK_EQUAL_TEXT(0, run.exit_code, run.err.c_str());
    const nlohmann::json list = nlohmann::json::parse(run.out);
    CHECK_EQUAL(std::string("lockcheck-list"), list["schema"].get<std::string>());
    std::size_t found = 0;
    std::vector<Protocol> models = protocol_models();
    models.insert(models.end(), litmus_models().begin(), litmus_models().end());
    for (const Protocol& p : models)
        for (const nlohmann::json& m : list["models"]) {
            if (m["name"] != p.name) continue;
            ++found;
            CHECK_EQUAL(p.variants.size(), m["variants"].size());
            CHECK_EQUAL(p.parameters.size(), m["sizes"].size());
            for (std::size_t i = 0; i < p.variants.size(); ++i) {
                const nlohmann::json& v = m["variants"][i];
                CHECK_EQUAL(p.variants[i].name, v["name"].get<std::string>());
                CHECK_EQUAL(i == p.default_variant, v["default"].get<bool>());
                check_expectation_json(p.variants[i], MemoryModel::sc, v["expected"]);
                check_expectation_json(p.variants[i], MemoryModel::lkmm, v["expected_lkmm"]);
            }
        }
    CHECK_EQUAL(models.size(), found);
    // The document is what docs/lockcheck-list.schema.json says.
    const TempDir dir;
    std::ofstream(dir / "list.json") << run.out;
    const std::string errors = schema_errors({dir / "list.json"});
    CHECK_TEXT(errors.empty(), errors.c_str());
}

TEST(CommandLine, colour_follows_the_color_option_and_no_color) {
    const std::vector<std::string> broken = {"rename-pin", "--variant", "no-pin", "--depth", "16"};
    std::vector<std::string> always = broken, never = broken;
    always.insert(always.end(), {"--color", "always"});
    never.insert(never.end(), {"--color", "never"});
    CHECK_TEXT(contains(run_lockcheck(always).out, "\x1b["), "--color always colours");
    CHECK_TEXT(!contains(run_lockcheck(never).out, "\x1b["), "--color never does not");
    // Not a terminal: auto is off.
    CHECK_TEXT(!contains(run_lockcheck(broken).out, "\x1b["), "auto off a terminal");
    setenv("NO_COLOR", "1", 1);
    const Run with_no_colour = run_lockcheck(always);
    unsetenv("NO_COLOR");
    CHECK_TEXT(contains(with_no_colour.out, "\x1b["), "--color always wins over NO_COLOR");
}

TEST(CommandLine, replay_lines_name_the_binary_as_it_was_run) {
    const Run run =
        run_lockcheck_as("build/lockcheck", {"rename-pin", "--variant", "no-pin", "--depth", "16"});
    CHECK_EQUAL(1, run.exit_code);
    CHECK_TEXT(contains(run.out, "\nreplay: build/lockcheck rename-pin --variant no-pin "),
               run.out.c_str());
}

TEST(CommandLine, the_man_page_has_the_commands_exit_codes_and_examples) {
    const std::string man = read_file(LOCKCHECK_MAN_PAGE);
    for (const char* part :
         {".TH LOCKCHECK \"1\"", "check-all", ".SH \"EXIT STATUS\"", ".SH EXAMPLES", "NO_COLOR"})
        CHECK_TEXT(contains(man, part), part);
}
