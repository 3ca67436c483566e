// The sampling searches and the limits: a seed fixes every random choice (the same seed, the
// same executions), PCT with depth 1 never preempts, preemption-bounded DFS explores exactly
// the schedules within its bound (DPOR takes the bound too), and a search a limit stops says so
// and exits 3.
#include <string>
#include <vector>

#include "checker/bounded_dfs.hpp"
#include "checker/pct.hpp"
#include "checker/random_walk.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Vars {
    shared<int> x{"x"};
};

// Two tasks of two writes each to one variable: 6 interleavings.
void two_writers() {
    auto& v = this_execution().make<Vars>();
    for (const char* name : {"a", "b"})
        spawn(name, [&v] {
            WRITE_ONCE(v.x, 1);
            WRITE_ONCE(v.x, 2);
        });
}

// The schedules a strategy runs, one per execution.
std::vector<Schedule> schedules(Strategy& strategy) {
    StackPool stacks(CheckOptions{}.stack_size);
    std::vector<Schedule> out;
    do {
        Execution ex(stacks, strategy, Execution::Limits{100, 10});
        two_writers();
        ex.run();
        out.push_back(ex.schedule());
    } while (strategy.next_execution());
    return out;
}

std::string summary_without_timing(const std::string& out) {
    std::string s = before_timing(out);
    return s + text_before(out.substr(out.find("verdict")), "\n");
}

} // namespace

TEST_GROUP(Strategies){};

TEST(Strategies, the_same_seed_gives_the_same_executions_and_another_seed_others) {
    RandomWalk a(5, 20), b(5, 20), c(6, 20);
    const std::vector<Schedule> first = schedules(a);
    CHECK_EQUAL(20u, first.size());
    CHECK(first == schedules(b));
    CHECK(first != schedules(c));
    Pct p(5, 20, 3, 4), q(5, 20, 3, 4);
    CHECK(schedules(p) == schedules(q));
}

TEST(Strategies, pct_of_depth_1_runs_each_task_to_its_end_in_priority_order) {
    Pct pct(9, 50, 1, 4);
    for (const Schedule& s : schedules(pct)) {
        CHECK_EQUAL(4u, s.size());
        CHECK_EQUAL(s[0], s[1]); // no change point: no preemption
        CHECK_EQUAL(s[2], s[3]);
        CHECK(s[1] != s[2]);
    }
}

TEST(Strategies, preemption_bounded_dfs_runs_exactly_the_schedules_within_its_bound) {
    BoundedDfs none(0), one(1), two(2);
    CHECK_EQUAL(2u, schedules(none).size()); // aabb, bbaa
    CHECK_EQUAL(4u, schedules(one).size());  // and abba, baab
    CHECK_EQUAL(6u, schedules(two).size());  // every interleaving: abab, baba too
}

TEST(Strategies, dpor_takes_a_preemption_bound_from_the_command_line_and_says_so) {
    const Run run = run_lockcheck({"rename-pin", "--strategy", "dpor", "--preemptions", "1"});
    CHECK_EQUAL_TEXT(0, run.exit_code, run.err.c_str());
    CHECK_TEXT(contains(run.out, "strategy      dpor, at most 1 preemption\n"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "verdict       no violation within 1 preemption\n"),
               run.out.c_str());
    const Run broken = run_lockcheck(
        {"rename-pin", "--variant", "no-pin", "--strategy", "dpor", "--preemptions", "1"});
    CHECK_EQUAL_TEXT(1, broken.exit_code, broken.out.c_str());
}

TEST(Strategies, a_search_a_limit_stops_says_so_and_exits_3) {
    const Run stopped = run_lockcheck({"rename-pin", "--fsyncs", "2", "--max-executions", "50"});
    CHECK_EQUAL_TEXT(3, stopped.exit_code, stopped.out.c_str());
    CHECK_TEXT(contains(stopped.out, "verdict       incomplete: --max-executions 50 stopped the "
                                     "search after 50 executions, none with a violation\n"),
               stopped.out.c_str());
    // A violation found before the limit is still a violation.
    const Run found =
        run_lockcheck({"rename-pin", "--variant", "no-pin", "--max-executions", "1000"});
    CHECK_EQUAL(1, found.exit_code);
}

TEST(Strategies, sampling_runs_are_repeatable_and_do_not_claim_a_proof) {
    const std::vector<std::string> args = {"rename-pin", "--strategy", "pct", "--iterations",
                                           "300",        "--seed",     "3"};
    const Run first = run_lockcheck(args), second = run_lockcheck(args);
    CHECK_EQUAL(0, first.exit_code);
    CHECK_EQUAL(summary_without_timing(first.out), summary_without_timing(second.out));
    CHECK_TEXT(contains(first.out, "verdict       no violation in 300 executions sampled (a "
                                   "sample, not a proof)\n"),
               first.out.c_str());
    CHECK_TEXT(contains(first.out, "pct bound     a bug of depth 3 is found"), first.out.c_str());
}

TEST(Strategies, bad_strategy_options_exit_2_with_one_line) {
    const std::vector<std::vector<std::string>> cases = {
        {"rename-pin", "--strategy", "optimal-dpor", "--preemptions", "1"},
        {"rename-pin", "--strategy", "bogus"},
        {"rename-pin", "--time-limit", "5x"},
        {"rename-pin", "--max-executions", "0"},
        {"rename-pin", "--strategy", "pct", "--pct-depth", "0"},
    };
    for (const auto& args : cases) {
        const Run run = run_lockcheck(args);
        CHECK_EQUAL_TEXT(2, run.exit_code, run.err.c_str());
        CHECK_TEXT(is_one_line(run.err), run.err.c_str());
    }
}
