// Latency bounds as a property: --max-wait OP=K and the model's own max_wait(), on a model
// whose waits are counted by hand (a waits 3 steps at worst: b holds m over two writes and
// its unlock), and on rename-pin from the command line (fsync waits 15 steps at worst under
// dfs with log_mutex around the pin).
#include <algorithm>
#include <string>
#include <vector>

#include <sstream>

#include "cli/check_command.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct State {
    mutex m{"m"};
    shared<int> x{"x"};
};

// a: its whole life is the operation "a"; b holds m over two writes.
void a_and_b(int declared_bound) {
    auto& s = this_execution().make<State>();
    if (declared_bound >= 0) max_wait("a", static_cast<unsigned>(declared_bound));
    spawn("a", [&s] {
        op a("a");
        mutex_lock(&s.m);
        mutex_unlock(&s.m);
    });
    spawn("b", [&s] {
        mutex_lock(&s.m);
        WRITE_ONCE(s.x, 1);
        WRITE_ONCE(s.x, 2);
        mutex_unlock(&s.m);
    });
}

CheckOptions bounded(unsigned steps) {
    CheckOptions options;
    options.wait_bounds = {WaitBound{"a", steps, false}};
    return options;
}

const PropertyStats& bound_property(const SearchResult& r) {
    const auto it = std::find_if(
        r.stats.properties.begin(), r.stats.properties.end(),
        [](const PropertyStats& p) { return p.kind == PropertyKind::wait_bound && p.name == "a"; });
    CHECK_TEXT(it != r.stats.properties.end(), "no wait-bound property for a");
    return *it;
}

// A model that bounds a's wait itself, with a verdict per variant: b holds m over `writes`
// writes, so that a waits writes + 1 steps at worst.
Protocol bounded_model() {
    return Protocol{
        .name = "bounded",
        .summary = "a waits for b's writes under m, within max_wait(\"a\", 3)",
        .variants = {{"two-writes", "a waits 3 steps at worst", Expectation::verified()},
                     {"three-writes", "a waits 4 steps at worst",
                      Expectation::violation(ViolationKind::wait_bound, "a")}},
        .setup = [](std::size_t variant, const ParameterValues&) {
            auto& s = this_execution().make<State>();
            max_wait("a", 3);
            spawn("a", [&s] {
                op a("a");
                mutex_lock(&s.m);
                mutex_unlock(&s.m);
            });
            spawn("b", [&s, variant] {
                mutex_lock(&s.m);
                for (std::size_t i = 0; i < variant + 2; ++i)
                    WRITE_ONCE(s.x, static_cast<int>(i));
                mutex_unlock(&s.m);
            });
        }};
}

} // namespace

TEST_GROUP(WaitBounds){};

TEST(WaitBounds, a_model_that_declares_a_bound_is_searched_by_dfs_and_judged_per_variant) {
    const Protocol model = bounded_model();
    for (std::size_t variant = 0; variant < model.variants.size(); ++variant) {
        cli::CheckRequest r;
        r.protocol = &model;
        r.variant = variant;
        r.search.search = kDefaultSearch;
        std::string error;
        CHECK_TRUE(cli::choose_wait_search(r, false, error));
        CHECK_TRUE(r.search.search == Search::dfs);
        std::ostringstream out;
        const RunReport report = cli::search(r, out);
        CHECK_TEXT(report.summary.judgement->agreement == Agreement::as_declared,
                   report.summary.judgement->text.c_str());
        CHECK_TRUE(report.summary.stats.wait_bounds.front().declared);
    }
    cli::CheckRequest r;
    r.protocol = &model;
    r.search.search = Search::dpor;
    std::string error;
    CHECK_FALSE(cli::choose_wait_search(r, true, error));
    CHECK_TEXT(contains(error, "--strategy dpor cannot check a wait bound"), error.c_str());
}

TEST(WaitBounds, a_wait_over_the_bound_is_a_violation_naming_the_operation_and_its_wait) {
    const SearchResult r = check_model([] { a_and_b(-1); }, Search::dfs, bounded(2));
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::wait_bound, v.kind);
    CHECK_EQUAL(std::string("a"), v.property);
    CHECK_EQUAL(std::string("a waited more than 2 steps"), v.message);
    CHECK_EQUAL(1u, v.details.size());
    CHECK_EQUAL(std::string("a's a waited 3 steps (--max-wait a=2)"), v.details.front());
}

TEST(WaitBounds, a_bound_the_worst_wait_meets_holds_and_is_evaluated_once_per_instance) {
    const SearchResult r = check_model([] { a_and_b(-1); }, Search::dfs, bounded(3));
    expect_verified(r);
    CHECK_EQUAL(2u, r.stats.executions);
    CHECK_EQUAL(2u, bound_property(r).evaluations);
    CHECK_EQUAL(1u, r.stats.wait_bounds.size());
    CHECK_FALSE(r.stats.wait_bounds.front().declared);
}

TEST(WaitBounds, the_models_own_bound_is_checked_and_the_command_lines_replaces_it) {
    const SearchResult declared = check_model([] { a_and_b(2); }, Search::dfs, {});
    const Violation& v = only_violation(declared);
    CHECK_EQUAL(ViolationKind::wait_bound, v.kind);
    CHECK_EQUAL(std::string("a's a waited 3 steps (max_wait(\"a\", 2) in the model)"),
                v.details.front());
    CHECK_TRUE(declared.stats.wait_bounds.front().declared);

    const SearchResult replaced = check_model([] { a_and_b(2); }, Search::dfs, bounded(3));
    expect_verified(replaced);
    CHECK_FALSE(replaced.stats.wait_bounds.front().declared);
}

TEST(WaitBounds, keep_going_reports_one_finding_for_every_wait_over_the_same_bound) {
    CheckOptions options = bounded(0); // a waits in both executions: 1 and 3 steps
    options.keep_going = true;
    const SearchResult r = check_model([] { a_and_b(-1); }, Search::dfs, options);
    CHECK_EQUAL(2u, r.stats.executions);
    const Violation& v = only_violation(r);
    CHECK_EQUAL(std::string("a waited more than 0 steps"), v.message);
}

TEST(WaitBounds, a_bound_on_an_operation_no_execution_finished_is_refused_naming_the_models) {
    // It would never be evaluated, and the run would say verified.
    for (const char* option : {"--max-wait", "--max-wait-ratio"}) {
        const Run run = run_lockcheck({"rename-pin", option, "fsinc=3", "-q"});
        CHECK_EQUAL(2, run.exit_code);
        STRCMP_EQUAL("", run.out.c_str());
        CHECK_TEXT(is_one_line(run.err), run.err.c_str());
        CHECK_TEXT(contains(run.err, std::string(option) +
                                         ": no operation 'fsinc' finished in rename-pin --variant "
                                         "atomic (did you mean 'fsync'?) (its operations: "
                                         "rename, fsync)"),
                   run.err.c_str());
    }
}

TEST(WaitBounds, max_wait_finds_fsyncs_worst_wait_under_dfs_and_its_replay_line_repeats_it) {
    const Run over = run_lockcheck(
        {"rename-pin", "--variant", "log-mutex", "--max-wait", "fsync=18", "--no-minimize"});
    CHECK_EQUAL(1, over.exit_code);
    CHECK_TEXT(contains(over.out, "VIOLATION (wait-bound) at step "), over.out.c_str());
    CHECK_TEXT(contains(over.out, "fsync0's fsync waited 19 steps (--max-wait fsync=18)"),
               over.out.c_str());
    CHECK_TEXT(contains(over.out, "strategy      dfs\n"), over.out.c_str());
    const std::vector<std::string> again = replay_arguments(over.out);
    CHECK_TEXT(std::find(again.begin(), again.end(), "fsync=18") != again.end(), over.out.c_str());
    const Run replayed = run_lockcheck(again);
    CHECK_EQUAL(1, replayed.exit_code);
    CHECK_TEXT(contains(replayed.out, "fsync0's fsync waited 19 steps"), replayed.out.c_str());

    const Run holds =
        run_lockcheck({"rename-pin", "--variant", "log-mutex", "--max-wait", "fsync=19", "-q"});
    CHECK_EQUAL(0, holds.exit_code);
    CHECK_TEXT(contains(holds.out, "fsync waits at most 19 steps (--max-wait)"), holds.out.c_str());
    CHECK_TEXT(contains(holds.out, "wait bound \"fsync\": 6542 evaluations"), holds.out.c_str());
}

TEST(WaitBounds, max_wait_refuses_dpor_and_malformed_bounds_with_one_line_and_exit_2) {
    const std::vector<std::vector<std::string>> bad = {
        {"rename-pin", "--max-wait", "fsync=13", "--strategy", "dpor"},
        {"rename-pin", "--max-wait", "fsync=13", "--strategy", "optimal-dpor"},
        {"rename-pin", "--max-wait", "fsync"},
        {"rename-pin", "--max-wait", "=3"},
        {"rename-pin", "--max-wait", "fsync=-1"},
        {"rename-pin", "--max-wait", "fsync=3", "--max-wait", "fsync=4"},
    };
    for (const auto& args : bad) {
        const Run run = run_lockcheck(args);
        CHECK_EQUAL(2, run.exit_code);
        CHECK_TEXT(is_one_line(run.err), run.err.c_str());
    }
}

TEST(WaitBounds, the_json_report_carries_the_bounds_and_the_violation_kind) {
    const TempDir dir;
    const std::string json = dir / "wait-bound.json";
    const Run run = run_lockcheck({"rename-pin", "--variant", "log-mutex", "--max-wait", "fsync=18",
                                   "--no-minimize", "-q", "--json", json});
    CHECK_EQUAL(1, run.exit_code);
    const std::string text = read_file(json);
    CHECK_TEXT(contains(text, "\"kind\": \"wait-bound\""), text.c_str());
    CHECK_TEXT(contains(text, "\"wait_bounds\": [\n      {\n        \"op\": \"fsync\",\n        "
                              "\"steps\": 18,\n        \"declared\": false"),
               text.c_str());
    keep_for_schema_check(json);
}

TEST(WaitBounds, a_saved_wait_bound_counterexample_replays_with_its_bound) {
    const TempDir dir;
    const std::string json = dir / "wait-bound.json";
    CHECK_EQUAL(1, run_lockcheck({"rename-pin", "--variant", "log-mutex", "--max-wait", "fsync=18",
                                  "-q", "--json", json})
                       .exit_code);
    const Run replayed = run_lockcheck({"replay", json});
    CHECK_EQUAL(1, replayed.exit_code);
    CHECK_TEXT(contains(replayed.out, "VIOLATION (wait-bound)"), replayed.out.c_str());
}

TEST(WaitBounds, a_worst_wait_over_its_ratio_to_the_mean_is_a_finding_of_the_whole_search) {
    // a waits 0 steps when it locks first and 3 when b does: mean 1.5, worst/mean 2.
    CheckOptions options;
    options.wait_ratios = {WaitRatio{"a", 1.9}};
    const SearchResult over = check_model([] { a_and_b(-1); }, Search::dfs, options);
    CHECK_EQUAL(1u, over.findings.size());
    const Finding& f = over.findings.front();
    CHECK_TRUE(f.of_search);
    CHECK_EQUAL(ViolationKind::wait_bound, f.violation.kind);
    CHECK_EQUAL(std::string("a waited more than 1.9 times its mean at worst"), f.violation.message);
    CHECK_EQUAL(std::string("worst 3 steps, mean 1.50 steps: 2.00 times (--max-wait-ratio a=1.9)"),
                f.violation.details.front());
    CHECK_EQUAL(format_schedule(over.stats.ops.front().worst_schedule),
                format_schedule(f.schedule));

    options.wait_ratios = {WaitRatio{"a", 2}};
    expect_verified(check_model([] { a_and_b(-1); }, Search::dfs, options));
}

TEST(WaitBounds, max_wait_ratio_from_the_command_line_shows_the_worst_wait_that_breaks_it) {
    const Run over = run_lockcheck(
        {"rename-pin", "--variant", "log-mutex", "--max-wait-ratio", "fsync=2.5", "-q"});
    CHECK_EQUAL(1, over.exit_code);
    CHECK_TEXT(contains(over.out, "VIOLATION (wait-bound) at step 34: fsync waited more than 2.5 "
                                  "times its mean at worst\n  worst 19 steps, mean 5.94 steps: "
                                  "3.20 times (--max-wait-ratio fsync=2.5)\n"),
               over.out.c_str());
    CHECK_TEXT(contains(over.out, "fsync0 waited 19 steps, marked ~"), over.out.c_str());
    const Run holds = run_lockcheck(
        {"rename-pin", "--variant", "log-mutex", "--max-wait-ratio", "fsync=3.3", "-q"});
    CHECK_EQUAL(0, holds.exit_code);
    CHECK_TEXT(contains(holds.out, "fsync's worst wait at most 3.3 times its mean"),
               holds.out.c_str());
    for (const char* bad : {"fsync=0.5", "fsync=x", "=2"}) {
        const Run run = run_lockcheck({"rename-pin", "--max-wait-ratio", bad});
        CHECK_EQUAL(2, run.exit_code);
        CHECK_TEXT(is_one_line(run.err), run.err.c_str());
    }
    CHECK_EQUAL(2,
                run_lockcheck({"rename-pin", "--max-wait-ratio", "fsync=2", "--strategy", "dpor"})
                    .exit_code);
}
