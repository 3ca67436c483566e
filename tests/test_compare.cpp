// `lockcheck compare`: two variants side by side at the same sizes and bounds, on the shipped
// models whose figures the other tests pin (rename-pin under dfs: fsync waits 19 steps at worst
// with log_mutex around the pin, 17 with the bare atomic), its marks, its files and its exit
// codes.
#include <csignal>
#include <regex>
#include <string>
#include <vector>

#include "cli/compare_command.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// The row of `figure` under `subject` in a printed table (its subject, or an indented row
// after it), as "19 17 better": its cells after the figure, one space apart.
std::string row_of(const std::string& table, const std::string& subject,
                   const std::string& figure) {
    const std::size_t start = table.find("\n" + subject + " ");
    if (start == std::string::npos) return "no " + subject;
    std::size_t at = table.find(" " + figure + "  ", start);
    if (at == std::string::npos) return "no " + figure;
    at += figure.size() + 1;
    const std::string line = table.substr(at, table.find('\n', at) - at);
    return std::regex_replace(std::regex_replace(line, std::regex("^ +"), ""), std::regex(" {2,}"),
                              " ");
}

} // namespace

TEST_GROUP(Compare){};

TEST(Compare, runs_the_declared_pair_with_its_strategy_and_marks_a_better_worst_wait) {
    const Run run = run_lockcheck({"compare", "rename-pin", "--no-timing"});
    CHECK_EQUAL(0, run.exit_code);
    CHECK_TEXT(contains(run.out, "== lockcheck compare: rename-pin, log-mutex -> atomic =="),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "strategy    dfs\n"), run.out.c_str());
    CHECK_EQUAL(std::string("verified verified"), row_of(run.out, "verdict", ""));
    CHECK_EQUAL(std::string("6542 6650"), row_of(run.out, "executions", ""));
    CHECK_EQUAL(std::string("19 17 better"), row_of(run.out, "fsync", "worst wait"));
    CHECK_EQUAL(std::string("5.94 3.90"), row_of(run.out, "fsync", "mean wait"));
    CHECK_EQUAL(std::string("1.19 1.18"), row_of(run.out, "log_mutex", "sleeps"));
}

TEST(Compare, an_unsafe_after_exits_1_with_the_verdict_marked_and_its_replay_line) {
    const Run run = run_lockcheck({"compare", "buffered-write"});
    CHECK_EQUAL(1, run.exit_code);
    CHECK_EQUAL(std::string("verified violation changed"), row_of(run.out, "verdict", ""));
    CHECK_TEXT(contains(run.out, "unlocked is unsafe: VIOLATION (check-failed)"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "replay: lockcheck buffered-write --variant unlocked"),
               run.out.c_str());
}

TEST(Compare, fail_if_worse_exits_1_only_when_that_operation_waits_longer_after) {
    const std::vector<std::string> reversed = {"compare", "rename-pin", "--variant",
                                               "atomic",  "--variant",  "log-mutex"};
    std::vector<std::string> failing = reversed;
    failing.insert(failing.end(), {"--fail-if-worse", "fsync"});
    const Run worse = run_lockcheck(failing);
    CHECK_EQUAL(1, worse.exit_code);
    CHECK_EQUAL(std::string("17 19 worse"), row_of(worse.out, "fsync", "worst wait"));
    CHECK_TEXT(contains(worse.out, "fsync waits longer in log-mutex (--fail-if-worse fsync)"),
               worse.out.c_str());
    CHECK_EQUAL(0, run_lockcheck(reversed).exit_code);
    // rename's worst wait is 5 before and 4 after: not worse.
    CHECK_EQUAL(0, run_lockcheck({"compare", "rename-pin", "--fail-if-worse", "rename"}).exit_code);
}

TEST(Compare, a_lock_contended_only_after_the_change_is_new_contention) {
    // One CPU: both commits go on its lists, and the search is short.
    const Run run = run_lockcheck({"compare", "cil-push", "--variant", "percpu", "--variant",
                                   "global", "--cpus", "1", "--no-timing"});
    CHECK_EQUAL(0, run.exit_code);
    CHECK_EQUAL(std::string("- 2.00 only after"), row_of(run.out, "xc_cil_lock", "acquisitions"));
    CHECK_EQUAL(std::string("- 32.9 % new contention"),
                row_of(run.out, "xc_cil_lock", "contended"));
}

TEST(Compare, log_during_commit_shows_the_patch_cutting_fsyncs_wait) {
    const Run run = run_lockcheck({"compare", "log-during-commit", "--no-timing"});
    CHECK_EQUAL(0, run.exit_code);
    CHECK_TEXT(contains(run.out, "strategy    random, seed 1\n"), run.out.c_str());
    CHECK_EQUAL(std::string("27 18 better"), row_of(run.out, "fsync", "worst wait"));
    CHECK_EQUAL(std::string("6.32 4.25"), row_of(run.out, "fsync", "mean wait"));
    CHECK_EQUAL(std::string("0.38 0.02"), row_of(run.out, "tree_log_mutex", "sleeps"));
}

TEST(Compare, the_json_document_and_the_report_directory_hold_both_runs) {
    const TempDir dir;
    const std::string json = dir / "compare.json";
    const Run run = run_lockcheck({"compare", "rename-pin", "--no-timing", "--json", json,
                                   "--report", dir / "report", "--fail-if-worse", "fsync"});
    CHECK_EQUAL(0, run.exit_code);
    const std::string text = read_file(json);
    CHECK_TEXT(contains(text, "\"schema\": \"lockcheck-compare\""), text.c_str());
    CHECK_TEXT(contains(text, "\"figure\": \"worst wait\",\n      \"before\": \"19\",\n      "
                              "\"after\": \"17\",\n      \"before_value\": 19.0,\n      "
                              "\"after_value\": 17.0,\n      \"mark\": \"better\""),
               text.c_str());
    CHECK_TEXT(contains(text, "\"worse\": []"), text.c_str());
    keep_for_schema_check(json);
    CHECK_EQUAL(std::string("atomic index.html log-mutex "), dir.listing("report"));
    CHECK_EQUAL(std::string("index.html worst-wait.svg "), dir.listing("report/atomic"));
    const std::string index = read_file(dir / "report/index.html");
    CHECK_TEXT(contains(index, "<img src=\"log-mutex/worst-wait.svg\""), index.c_str());
    CHECK_TEXT(contains(index, "<img src=\"atomic/worst-wait.svg\""), index.c_str());
    CHECK_TEXT(contains(index, "where fsync waited longest"), index.c_str());
}

TEST(Compare, bad_input_exits_2_with_one_line) {
    const std::vector<std::vector<std::string>> bad = {
        {"compare"},
        {"compare", "no-such-model"},
        {"compare", "rename-pin", "--variant", "atomic"},
        {"compare", "rename-pin", "--variant", "atomic", "--variant", "atomic"},
        {"compare", "rename-pin", "--variant", "atomic", "--variant", "nope"},
        {"compare", "rename-pin", "--strategy", "dpor"},
        {"compare", "rename-pin", "--trace", "x.svg"},
        {"compare", "rename-pin", "--replay", "0.1"},
        {"compare", "rename-pin", "--fail-if-worse", "fsinc"},
        {"compare", "rename-pin", "--fail-if-worse"},
        {"compare", "rename-pin", "--renames", "99"},
    };
    for (const auto& args : bad) {
        const Run run = run_lockcheck(args);
        CHECK_EQUAL_TEXT(2, run.exit_code, args.back().c_str());
        CHECK_TEXT(is_one_line(run.err), run.err.c_str());
    }
}

TEST(Compare, every_shipped_protocol_compares_its_declared_pair) {
    for (const Protocol& p : protocol_models()) {
        std::vector<std::string> args = {"compare", p.name, "-q", "--no-timing"};
        if (p.name == "cil-push") args.insert(args.end(), {"--cpus", "1"}); // 0.7 s else
        const Run run = run_lockcheck(args);
        const bool unsafe_after =
            p.variants[*p.find_variant(p.comparison->after)].expect.expects_violation;
        CHECK_EQUAL_TEXT(unsafe_after ? 1 : 0, run.exit_code, (p.name + "\n" + run.out).c_str());
        CHECK_TEXT(contains(run.out, "== lockcheck compare: " + p.name + ", " +
                                         p.comparison->before + " -> " + p.comparison->after),
                   run.out.c_str());
        CHECK_TEXT(contains(run.out, " worst wait "), run.out.c_str());
    }
}

// A pair dfs cannot finish at its sizes (cil-push's percpu-rwsem handshake: 4 million
// executions at 18 steps) ends all the same: compare's own dfs stops at its bound and both
// sides are sampled instead, which the table says. Before, compare ran dfs without end.
TEST(Compare, a_pair_beyond_dfs_ends_with_both_sides_sampled_and_says_why) {
    const Run run = run_lockcheck({"compare", "cil-push", "--variant", "percpu-rwsem", "--variant",
                                   "percpu", "-q", "--no-timing"});
    CHECK_EQUAL_TEXT(0, run.exit_code, (run.out + run.err).c_str());
    CHECK_TEXT(contains(run.out, "== lockcheck compare: cil-push, percpu-rwsem -> percpu ==\n"),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "strategy    random, seed 1\n"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "chosen      a random sample: dfs did not end percpu-rwsem "
                                 "within " +
                                     std::to_string(cli::kCompareDfsBudget) + " executions"),
               run.out.c_str());
    CHECK_EQUAL(std::string("no-violation-in-sample no-violation-in-sample"),
                row_of(run.out, "verdict", ""));
    CHECK_EQUAL(std::string("1000 1000"), row_of(run.out, "executions", ""));
}

TEST(Compare, a_pair_dfs_finishes_is_run_whole_and_the_table_says_so) {
    const Run run = run_lockcheck({"compare", "rename-pin", "--no-timing"});
    CHECK_TEXT(contains(run.out, "chosen      dfs: each side's search ended within " +
                                     std::to_string(cli::kCompareDfsBudget) + " executions"),
               run.out.c_str());
    // A sample the model declares is its own choice.
    const Run declared = run_lockcheck({"compare", "tree-lock", "-q", "--no-timing"});
    CHECK_TEXT(
        contains(declared.out, "chosen      the sample tree-lock declares for its comparison"),
        declared.out.c_str());
    // --strategy is the user's choice, run as given.
    const Run given = run_lockcheck({"compare", "rename-pin", "--strategy", "dfs", "--no-timing"});
    CHECK_FALSE(contains(given.out, "chosen "));
}

// An unsafe side's search stops at its first violation: its figures weigh other executions
// than the whole search of the other side, so no wait, lock or operation of it is marked.
// Before, buffered-write's truncate was 'worse' from 745 of unlocked's executions, and under
// random sampling one execution's waits were 'better'.
TEST(Compare, a_side_stopped_at_its_violation_is_not_compared_on_waits) {
    const Run run = run_lockcheck({"compare", "buffered-write", "--no-timing"});
    CHECK_EQUAL(1, run.exit_code);
    CHECK_EQUAL(std::string("verified violation changed"), row_of(run.out, "verdict", ""));
    CHECK_EQUAL(std::string("5 7"), row_of(run.out, "truncate", "worst wait"));
    CHECK_EQUAL(std::string("- 0.29"), row_of(run.out, "io_tree", "sleeps"));
    CHECK_TEXT(contains(run.out, "partial     unlocked: its search stopped at its first violation; "
                                 "figures from those 745 executions, waits not compared\n"),
               run.out.c_str());
    for (const std::string strategy : {"random", "pct"}) {
        const Run sampled =
            run_lockcheck({"compare", "buffered-write", "--strategy", strategy, "--no-timing"});
        CHECK_EQUAL(1, sampled.exit_code);
        CHECK_TEXT(contains(sampled.out, "partial     unlocked: its search stopped at its first "),
                   sampled.out.c_str());
        for (const char* mark : {"better", "worse", "only ", "new contention"})
            CHECK_TEXT(!contains(text_before(sampled.out, "unlocked is unsafe"), mark),
                       sampled.out.c_str());
    }
    // Nor is an operation --fail-if-worse names: the exit code is the violation's.
    const Run worse =
        run_lockcheck({"compare", "buffered-write", "--fail-if-worse", "truncate", "--no-timing"});
    CHECK_FALSE(contains(worse.out, "waits longer in"));
}

// SIGINT during the first side: the table names both variants, says what stopped the first
// and that the second never ran (before: 'verified' with 0 executions, its name missing from
// the header), and the JSON has no report for it.
TEST(Compare, interrupted_in_the_first_side_the_second_is_not_run_and_both_are_named) {
    const TempDir dir;
    const std::string json = dir / "compare.json";
    const Run run =
        run_lockcheck_interrupted({"compare", "cil-push", "--variant", "percpu-rwsem", "--variant",
                                   "percpu", "--strategy", "dfs", "--no-timing", "--json", json},
                                  SIGINT, "\rcompare cil-push --variant percpu-rwsem: ");
    CHECK_EQUAL_TEXT(130, run.exit_code, (run.out + run.err).c_str());
    CHECK_TEXT(contains(run.out, "== lockcheck compare: cil-push, percpu-rwsem -> percpu ==\n"),
               run.out.c_str());
    CHECK_EQUAL(std::string("incomplete not run"), row_of(run.out, "verdict", ""));
    CHECK_TEXT(contains(run.out, "partial     percpu-rwsem: SIGINT stopped its search; figures "
                                 "from those "),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "not run     percpu: compare stopped before it (SIGINT)\n"),
               run.out.c_str());
    const std::string text = read_file(json);
    CHECK_TEXT(contains(text, "\"run\": \"not-run\""), text.c_str());
    CHECK_TEXT(contains(text, "\"after\": null"), text.c_str());
    keep_for_schema_check(json);
}

TEST(Compare, interrupted_in_the_second_side_the_first_is_whole_and_nothing_is_compared) {
    const Run run =
        run_lockcheck_interrupted({"compare", "cil-push", "--variant", "percpu", "--variant",
                                   "percpu-rwsem", "--strategy", "dfs", "--no-timing"},
                                  SIGTERM, "\rcompare cil-push --variant percpu-rwsem: ");
    CHECK_EQUAL_TEXT(143, run.exit_code, (run.out + run.err).c_str());
    CHECK_TEXT(contains(run.out, "== lockcheck compare: cil-push, percpu -> percpu-rwsem ==\n"),
               run.out.c_str());
    CHECK_EQUAL(std::string("verified incomplete"), row_of(run.out, "verdict", ""));
    // commit waits 12 steps at worst with percpu, and the partial side's figure depends on when
    // the signal came: never marked.
    CHECK_TEXT(row_of(run.out, "commit", "worst wait").starts_with("12 "), run.out.c_str());
    CHECK_TEXT(!contains(run.out, "better") && !contains(run.out, "worse"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "partial     percpu-rwsem: SIGTERM stopped its search; "),
               run.out.c_str());
}
