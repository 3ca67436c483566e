// The breadth-first search over states (--strategy bfs): on every shipped variant it reports a
// counterexample no longer than DFS's or DPOR's; its table counts the states a hand count gives
// and stays exact when full, and the command line takes it where it means something.
// test_state_cache.cpp compares what it reaches with DFS, test_jobs.cpp its result on three
// threads with one.
#include <memory>
#include <regex>
#include <string>

#include "checker/bfs.hpp"
#include "checker/dfs.hpp"
#include "checker/dpor.hpp"
#include "checker/model_registry.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "reports/json_report.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

SearchResult bfs_on(const Setup& setup, unsigned jobs, bool keep_going, std::uint32_t depth = 200) {
    CheckOptions options;
    options.jobs = jobs;
    options.keep_going = keep_going;
    options.depth = depth;
    Bfs bfs;
    return explore(setup, bfs, options);
}

struct Counter {
    atomic_t v{"v"};
    atomic_t w{"w"};
};

// Three tasks, each adding what it got back from one increment of v to w, twice: more states
// than a small table holds.
void three_counting_tasks() {
    auto& c = this_execution().make<Counter>();
    for (const char* name : {"a", "b", "c"})
        spawn(name, [&c] {
            for (int i = 0; i < 2; ++i)
                atomic_add(atomic_inc_return(&c.v), &c.w);
        });
}

} // namespace

// Breadth first against DFS and DPOR on every shipped variant.
TEST_GROUP(BfsVariants){};

// Level by level, the first violation met is reached in as few steps as any this search
// reaches: never more than DFS's or DPOR's first.
TEST(BfsVariants, its_counterexample_is_no_longer_than_dfs_or_dpor_finds) {
    int violating = 0;
    for (const Protocol& p : protocol_models()) {
        for (std::size_t v = 0; v < p.variants.size(); ++v) {
            const Setup setup = default_setup(p, v);
            const SearchResult breadth = bfs_on(setup, 1, false, p.depth_for(v));
            if (breadth.findings.empty()) continue;
            ++violating;
            const std::string what = p.name + " --variant " + p.variants[v].name;
            const std::size_t steps = breadth.findings.front().schedule.size();
            CheckOptions options;
            options.depth = p.depth_for(v);
            for (Search s : {Search::dfs, Search::dpor}) {
                if (s == Search::dfs && !dfs_exhausts(p, v)) continue;
                const SearchResult other = explore(setup, *make_search(s, options.depth), options);
                CHECK_TEXT(!other.findings.empty(), what.c_str());
                if (other.findings.empty()) continue;
                CHECK_TEXT(steps <= other.findings.front().schedule.size(),
                           (what + ": " + std::to_string(steps) + " steps, " + search_name(s) +
                            " " + std::to_string(other.findings.front().schedule.size()))
                               .c_str());
            }
        }
    }
    CHECK(violating > 10);
}

TEST(BfsVariants, a_search_that_runs_long_enough_is_shared) {
    const Protocol& p = *find_registered_model("rename-pin");
    ParameterValues values = p.default_values();
    values[0] = 2; // renames
    const Setup setup = [&p, values] { p.setup(p.default_variant, values); };
    const SearchResult two = bfs_on(setup, 2, false);
    CHECK_EQUAL(2u, two.stats.threads);
    const SearchResult one = bfs_on(setup, 1, false);
    CHECK(one.stats.executions > 1000);
    CHECK_EQUAL(report_of(one), report_of(two));
}

TEST_GROUP(Bfs){};

// a, b, c each increment v once, all dependent: the states are the subsets of tasks done.
// One execution records the initial state; level 1 runs 3 and stores 3; level 2 runs 6 and
// meets each state of two done twice (3 stored, 3 met again); level 3 runs 3 to the end,
// which has no task to run and is not stored.
TEST(Bfs, counts_what_a_hand_count_gives) {
    const Setup setup = [] {
        auto& c = this_execution().make<Counter>();
        for (const char* name : {"a", "b", "c"})
            spawn(name, [&c] { atomic_inc(&c.v); });
    };
    Bfs bfs;
    const Reached r = reach(setup, bfs, 100);
    CHECK_EQUAL(13u, r.executions);
    CHECK_EQUAL(7u, bfs.states().stored);
    CHECK_EQUAL(3u, bfs.states().matched);
    CHECK(bfs.states().breadth_first);
    CHECK_EQUAL(1u, r.final_states.size());
}

// A table at its cap stores nothing more, and says so; the search goes on without it and still
// reaches what DFS reaches.
TEST(Bfs, a_full_table_is_reported_and_the_search_stays_exact) {
    Dfs dfs;
    Bfs capped(64 * sizeof(StateTable::Entry));
    const Reached all = reach(three_counting_tasks, dfs, 100);
    const Reached reduced = reach(three_counting_tasks, capped, 100);
    CHECK(capped.states().full);
    CHECK_EQUAL(48u, capped.states().stored);
    CHECK(same_final_states(reduced, all));
}

TEST(Bfs, the_command_prints_the_same_bytes_whatever_the_jobs) {
    for (const char* variant : {"atomic", "no-pin"}) {
        const std::vector<std::string> args = {"rename-pin", "--variant", variant,
                                               "--strategy", "bfs",       "--no-timing",
                                               "--renames",  "2",         "--keep-going"};
        const Run a = expect_same_output_on_one_and_two_threads(args);
        CHECK_TEXT(contains(a.out, "strategy      bfs\n"), a.out.c_str());
        CHECK_TEXT(contains(a.out, "\nstates        "), a.out.c_str());
    }
}

// The summary and the JSON report say the states were explored level by level, and that the
// figures per execution come from one path to each state.
TEST(Bfs, the_reports_say_it_went_breadth_first) {
    const TempDir dir;
    const std::string json = dir / "run.json";
    const Run run = run_lockcheck(
        {"rename-pin", "--strategy", "bfs", "--no-timing", "--renames", "2", "--json", json});
    CHECK_EQUAL(0, run.exit_code);
    CHECK_TEXT(std::regex_search(run.out, std::regex(" stored \\([0-9.]+ MB\\), breadth-first: ")),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "figures       per execution run to its end, one per state"),
               run.out.c_str());
    RunReport read;
    std::string error;
    CHECK_TEXT(from_json(read_file(json), read, error), error.c_str());
    CHECK(read.summary.stats.states.breadth_first);
    CHECK(read.summary.stats.states.stored > 1000);
}

TEST(Bfs, the_command_line_refuses_it_where_it_means_nothing) {
    const std::pair<std::vector<std::string>, const char*> refused[] = {
        {{"--state-cache"}, "--state-cache is for --strategy dfs: bfs stores every state anyway"},
        {{"--max-wait", "fsync=3"}, "--strategy bfs cannot check a wait bound"},
        {{"--shard", "1/2"}, "--shard splits --strategy dfs"},
        {{"--preemptions", "1"}, "--preemptions bounds --strategy dfs and dpor only, not bfs"},
    };
    for (const auto& [options, message] : refused) {
        std::vector<std::string> args = {"rename-pin", "--strategy", "bfs"};
        args.insert(args.end(), options.begin(), options.end());
        const Run run = run_lockcheck(args);
        CHECK_EQUAL_TEXT(2, run.exit_code, message);
        CHECK_TEXT(contains(run.err, message), run.err.c_str());
    }
    const Run compare = run_lockcheck({"compare", "rename-pin", "--strategy", "bfs"});
    CHECK_EQUAL(2, compare.exit_code);
}
