// The lockcheck command line as a user meets it: exit code 0 for a verified run and 1 for a
// violation, as each variant declares; every input error exits 2 with one line on stderr
// naming what was wrong; a depth bound shows in the summary as executions cut; a run names
// its sizes and judges itself against its declared verdict, a replay does not; --locations
// adds the model's line of each step and changes nothing else.
#include <regex>
#include <string>
#include <vector>

#include "checker/protocol.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct BadInput {
    std::vector<std::string> args;
    const char* names; // the part of the message that names the bad input
};

const BadInput kBadInputs[] = {
    {{"no-such-model"}, "unknown model 'no-such-model'"},
    {{"rename-pin", "--variant", "no-such-variant"}, "no-such-variant"},
    {{"rename-pin", "--depth", "0"}, "--depth: '0'"},
    {{"rename-pin", "--depth", "abc"}, "--depth: 'abc'"},
    {{"rename-pin", "--depth", "-3"}, "--depth"},
    {{"rename-pin", "--renames", "99"}, "--renames"},
    {{"rename-pin", "--no-such-option"}, "--no-such-option"},
    {{"rename-pin", "--strategy", "bds"}, "--strategy"},
    {{}, "no model given"},
    {{"rename-pin", "--minimize-time", "0x"}, "--minimize-time: '0x'"},
    {{"rename-pin", "--minimize-time", "10"}, "--minimize-time: '10'"},
    {{"rename-pin", "--minimize-time", "5d"}, "--minimize-time: '5d'"},
    {{"rename-pin", "--variant", "atomic", "--variant", "log-mutex"},
     "to run two side by side, lockcheck compare rename-pin"},
};

std::string joined(const std::vector<std::string>& args) {
    std::string s = "lockcheck";
    for (const std::string& a : args)
        s += " " + a;
    return s;
}

} // namespace

TEST_GROUP(Cli){};

TEST(Cli, bad_input_exits_2_with_one_line_on_stderr_naming_it) {
    for (const BadInput& b : kBadInputs) {
        const Run run = run_lockcheck(b.args);
        const std::string what = joined(b.args) + " printed: " + run.err;
        CHECK_EQUAL_TEXT(2, run.exit_code, what.c_str());
        CHECK_TEXT(is_one_line(run.err), what.c_str());
        CHECK_TEXT(contains(run.err, b.names), what.c_str());
        CHECK_TEXT(run.out.empty(), what.c_str());
    }
}

TEST(Cli, exit_code_follows_each_variants_declared_verdict) {
    for (const Protocol& p : protocol_models()) {
        for (const Variant& v : p.variants) {
            const Run run = run_lockcheck({p.name, "--variant", v.name});
            const std::string what = p.name + " --variant " + v.name;
            CHECK_EQUAL_TEXT(v.expect.expects_violation ? 1 : 0, run.exit_code, what.c_str());
            CHECK_TEXT(run.err.empty(), (what + ": " + run.err).c_str());
            CHECK_TEXT(contains(run.out, "== lockcheck summary =="), what.c_str());
        }
    }
}

namespace {
std::string verdict_text(const Expectation& e) {
    return e.expects_violation ? "violation (" + std::string(kind_name(e.kind)) + ")" : "verified";
}

// `text` matched literally by a regular expression (litmus variants have '+' and '.').
std::string literally(const std::string& text) {
    return std::regex_replace(text, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
}
} // namespace

TEST(Cli, list_shows_every_variant_with_its_declared_verdicts_under_sc_and_lkmm) {
    const Run run = run_lockcheck({"list"});
    CHECK_EQUAL(0, run.exit_code);
    CHECK_TEXT(run.out.starts_with("model "), run.out.c_str());
    std::vector<Protocol> models = protocol_models();
    models.insert(models.end(), litmus_models().begin(), litmus_models().end());
    for (const Protocol& p : models) {
        for (const Variant& v : p.variants) {
            // The sc column, then the lkmm column.
            const std::regex row("\n" + literally(p.name) + " +" + literally(v.name) +
                                 "( \\(default\\))? +" +
                                 literally(verdict_text(v.expected(MemoryModel::sc))) + " +" +
                                 literally(verdict_text(v.expected(MemoryModel::lkmm))) + "  ");
            CHECK_TEXT(std::regex_search(run.out, row),
                       (p.name + " " + v.name + " not listed with both verdicts").c_str());
        }
    }
}

TEST(Cli, dpor_the_default_search_finds_the_verdict_dfs_finds_and_says_so) {
    const Run dfs = run_lockcheck({"rename-pin", "--variant", "no-pin", "--strategy", "dfs"});
    const Run dpor = run_lockcheck({"rename-pin", "--variant", "no-pin"});
    CHECK_EQUAL(1, dfs.exit_code);
    CHECK_EQUAL(1, dpor.exit_code);
    CHECK_TEXT(contains(dfs.out, "strategy      dfs\n"), dfs.out.c_str());
    CHECK_TEXT(!contains(dfs.out, "sleep-blocked"), dfs.out.c_str());
    CHECK_TEXT(contains(dpor.out, "strategy      dpor\n"), dpor.out.c_str());
    CHECK_TEXT(contains(dpor.out, "sleep-blocked "), dpor.out.c_str());
    // The counterexample DPOR prints replays like any other.
    const Run replayed = run_lockcheck(replay_arguments(dpor.out));
    CHECK_EQUAL_TEXT(1, replayed.exit_code, replayed.out.c_str());
}

TEST(Cli, tree_lock_verifies_the_custom_lock_to_the_end_by_default) {
    const Run run = run_lockcheck({"tree-lock"});
    CHECK_EQUAL(0, run.exit_code);
    CHECK_TEXT(contains(run.out, "strategy      dpor\n"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "cut by bound  0\n"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "verdict       verified"), run.out.c_str());
}

TEST(Cli, the_reported_counterexample_is_minimized_unless_asked_not_to) {
    const Run minimized = run_lockcheck({"rename-pin", "--variant", "no-pin"});
    const Run first = run_lockcheck({"rename-pin", "--variant", "no-pin", "--no-minimize"});
    CHECK_TEXT(contains(minimized.out, "reported      1 preemption, 14 steps (minimized from 2 "
                                       "preemptions, 23 steps)\n"),
               minimized.out.c_str());
    CHECK_TEXT(contains(first.out, "reported      2 preemptions, 23 steps (not minimized)\n"),
               first.out.c_str());
    CHECK_TEXT(contains(first.out, "trace (23 steps, 2 preemptions, marked *)"), first.out.c_str());
}

TEST(Cli, a_depth_bound_that_cuts_executions_says_so_in_the_summary) {
    const Run run = run_lockcheck({"rename-pin", "--depth", "2"});
    CHECK_EQUAL(0, run.exit_code);
    CHECK_TEXT(contains(run.out, "bound         depth 2\n"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "cut by bound  12\n"), run.out.c_str());
    // Most of them: the verdict line says so, not only the counter.
    CHECK_TEXT(contains(run.out, "verdict       no violation within the bound, but most executions "
                                 "were cut by the depth bound (12 of 23): raise --depth\n"),
               run.out.c_str());
}

TEST(Cli, the_missions_depth_verifies_rename_pin_and_finds_every_broken_variant) {
    // --depth counts how often a chain of dependent steps passes between tasks: every
    // rename-pin execution is 5 deep at most, however many steps it takes.
    const Run run = run_lockcheck({"rename-pin", "--depth", "12"});
    CHECK_EQUAL_TEXT(0, run.exit_code, run.out.c_str());
    CHECK_TEXT(contains(run.out, "cut by bound  0\n"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "verdict       verified: no violation in any execution"),
               run.out.c_str());
    for (const char* variant : {"no-pin", "pin-after-unlink", "unsynced-log-edits"}) {
        const Run broken = run_lockcheck({"rename-pin", "--depth", "12", "--variant", variant});
        CHECK_EQUAL_TEXT(1, broken.exit_code, broken.out.c_str());
        CHECK_TEXT(contains(broken.out, "expected      violation (invariant): as declared\n"),
                   broken.out.c_str());
    }
}

TEST(Cli, a_run_says_its_sizes_and_judges_itself_against_the_declared_verdict) {
    const Run run = run_lockcheck({"rename-pin", "--fsyncs", "2"});
    CHECK_EQUAL(0, run.exit_code);
    CHECK_TEXT(
        contains(run.out, "variant       atomic\nsizes         renames=1 fsyncs=2 rounds=1\n"),
        run.out.c_str());
    CHECK_TEXT(contains(run.out, "\nexpected      verified: as declared\nverdict       verified"),
               run.out.c_str());
    const Run broken = run_lockcheck({"rename-pin", "--variant", "no-pin"});
    CHECK_TEXT(contains(broken.out, "\nexpected      violation (invariant): as declared\n"),
               broken.out.c_str());
    CHECK_TEXT(contains(broken.out, "\nproperties    invariant \"committed log never holds the "
                                    "unlink of an old name witho...\": "),
               broken.out.c_str());
}

TEST(Cli, a_bound_that_cuts_every_execution_is_incomplete_exits_3_and_flags_the_final_check) {
    // It checked nothing to the end: never a pass.
    const Run run = run_lockcheck({"rename-pin", "--max-steps", "12"});
    CHECK_EQUAL_TEXT(3, run.exit_code, run.out.c_str());
    CHECK_TEXT(contains(run.out, "\nexpected      verified: incomplete: no violation found, but "),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "every execution was cut by --max-steps (11 of 11, none run to "
                                 "its end)\n"),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "\nverdict       incomplete: every execution was cut by "
                                 "--max-steps ("),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "none run to its end): raise --max-steps\n"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "              final check \"log_writers is back to zero\": 0 "
                                 "evaluations: NEVER EVALUATED (no execution finished)\n"),
               run.out.c_str());
}

TEST(Cli, a_replay_has_sizes_but_no_expected_or_properties_rows) {
    const Run check = run_lockcheck({"rename-pin", "--variant", "no-pin"});
    const Run replayed = run_lockcheck(replay_arguments(check.out));
    CHECK_EQUAL(1, replayed.exit_code);
    CHECK_TEXT(contains(replayed.out, "\nsizes         renames=1 fsyncs=1 rounds=1\n"),
               replayed.out.c_str());
    CHECK_TEXT(!contains(replayed.out, "\nexpected "), replayed.out.c_str());
    CHECK_TEXT(!contains(replayed.out, "\nproperties "), replayed.out.c_str());
}

namespace {
std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    for (std::size_t at = 0, end; at < text.size(); at = end + 1) {
        end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(at, end - at));
    }
    return lines;
}
} // namespace

// --locations adds, at the right of the trace, the model's line of each step; every other
// line, and every column before it, is as without it.
TEST(Cli, locations_add_the_models_line_of_each_step_and_change_nothing_else) {
    const std::vector<std::string> args = {"rename-pin", "--variant", "no-pin", "--depth", "16"};
    std::vector<std::string> with_locations = args;
    with_locations.push_back("--locations");
    const Run plain = run_lockcheck(args);
    const Run located = run_lockcheck(with_locations);
    CHECK_EQUAL(1, located.exit_code);
    // The summary block is the same, but for the time it took and its checkpoints.
    const auto summary = [](const std::string& out) {
        return before_timing(out.substr(out.find("== lockcheck summary ==")));
    };
    CHECK_EQUAL(summary(plain.out), summary(located.out));
    const std::vector<std::string> a = lines_of(text_before(plain.out, "replay: "));
    const std::vector<std::string> b = lines_of(text_before(located.out, "replay: "));
    CHECK_EQUAL(a.size(), b.size());
    const std::regex step_row("^ +[0-9]+\\*? .*");
    const std::regex location(" +rename_pin\\.cpp:[0-9]+ [a-z_]+");
    int steps = 0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        CHECK_TEXT(b[i].starts_with(a[i]), b[i].c_str());
        const std::string added = b[i].substr(std::min(a[i].size(), b[i].size()));
        if (a[i].starts_with("  step  "))
            CHECK_TEXT(std::regex_match(added, std::regex(" +location")), b[i].c_str());
        else if (std::regex_match(a[i], step_row))
            steps += std::regex_match(added, location);
        else
            CHECK_EQUAL(a[i], b[i]);
    }
    CHECK_EQUAL(10, steps);
}

TEST(Cli, minimizing_is_counted_in_elapsed_and_a_limit_that_stops_it_says_so) {
    const Run run = run_lockcheck({"rename-pin", "--variant", "no-pin"});
    CHECK_TEXT(std::regex_search(
                   run.out, std::regex("\nelapsed       [0-9.]+ s \\(search "
                                       "[0-9.]+ s, minimizing [0-9.]+ s\\)(, [0-9]+ threads)?\n")),
               run.out.c_str());
    // The first of BoundedDfs(0)'s executions cannot be the minimum, which has a preemption.
    const Run stopped =
        run_lockcheck({"rename-pin", "--variant", "no-pin", "--minimize-time", "0.000001s"});
    CHECK_EQUAL(1, stopped.exit_code);
    CHECK_TEXT(contains(stopped.out, "reported      2 preemptions, 23 steps (not proven minimal: "
                                     "--minimize-time 0.000001s stopped the search for a smaller "
                                     "one)\n"),
               stopped.out.c_str());
    const Run unminimized = run_lockcheck({"rename-pin", "--variant", "no-pin", "--no-minimize"});
    CHECK_TEXT(std::regex_search(unminimized.out,
                                 std::regex("\nelapsed       [0-9.]+ s(, [0-9]+ threads)?\n")),
               unminimized.out.c_str());
}

TEST(Cli, a_spin_bound_other_than_the_default_is_part_of_the_replay_command) {
    // The bound decides when a loop counts as endless, so a replay must run with the same.
    const Run run = run_lockcheck({"tree-lock", "--variant", "sibling-order", "--spin-bound", "5"});
    CHECK_EQUAL(1, run.exit_code);
    const std::size_t at = run.out.find("replay: ");
    CHECK_TEXT(at != std::string::npos, run.out.c_str());
    const std::string line = run.out.substr(at, run.out.find('\n', at) - at);
    CHECK_TEXT(contains(line, " --spin-bound 5 --replay "), line.c_str());
    CHECK_TEXT(
        !contains(run_lockcheck({"tree-lock", "--variant", "sibling-order"}).out, "--spin-bound"),
        "the default is left out");
}
