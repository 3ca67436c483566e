// The classic DPOR benchmarks (examples/: Flanagan and Godefroid's indexer and filesystem,
// POPL'14's lastzero) against their published counts. The Mazurkiewicz-trace counter
// (trace_classes.hpp), an oracle independent of checker/dpor.*, counts the traces: under DFS
// where DFS can finish, and among DPOR's executions at the published sizes, where it checks
// that DPOR reaches every published trace. Source-DPOR's executions, and the sleep-blocked
// ones among them, are pinned, so a change to the search that explores more fails here.
// Larger sizes: bench/classic_benchmarks.sh. Sources of every published number: the header
// comment of each example and docs/dpor.md, "Classic benchmarks".
#include <string>

#include "checker/dfs.hpp"
#include "checker/dpor.hpp"
#include "checker/random_walk.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "trace_classes.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// One benchmark at one size: the example, its variant and the value of its one parameter
// (lastzero: writers; indexer, filesystem: threads).
struct Instance {
    const char* model;
    const char* variant;
    int size;

    std::string name() const {
        return std::string(model) + "(" + std::to_string(size) + ") " + variant;
    }
    Setup setup() const {
        const Protocol* p = find_registered_model(model);
        const std::size_t v = *p->find_variant(variant);
        return [p, v, values = ParameterValues{size}] { p->setup(v, values); };
    }
    std::uint32_t depth() const { return find_registered_model(model)->default_depth; }
};

struct Counts {
    Instance instance;
    std::uint64_t traces;        // published: what optimal DPOR runs
    std::uint64_t executions;    // lockcheck's source-DPOR, sleep-blocked ones included
    std::uint64_t sleep_blocked; // among them
};

// Published trace counts (Nidhugg, benchmarks/SWSC_experiment/summary.txt; lastzero(5):
// Concuerror, tests/suites/dpor_tests/results/last_zero-test-inf-*.txt), and what lockcheck's
// source-DPOR runs on them.
const Counts kPublished[] = {
    {{"lastzero", "original", 2}, 5, 5, 0},
    {{"lastzero", "original", 4}, 28, 35, 7},
    {{"lastzero", "original", 5}, 64, 97, 33},
    {{"lastzero", "original", 6}, 144, 275, 131},
    {{"lastzero", "original", 8}, 704, 2315, 1611},
    {{"lastzero", "original", 10}, 3328, 20195, 16867},
    {{"filesystem", "original", 12}, 1, 1, 0},
    {{"filesystem", "original", 14}, 2, 2, 0},
    {{"filesystem", "original", 16}, 8, 8, 0},
    {{"filesystem", "original", 18}, 32, 32, 0},
    {{"indexer", "cas", 11}, 1, 1, 0},
    {{"indexer", "cas", 12}, 8, 8, 0},
    {{"indexer", "cas", 13}, 64, 64, 0},
    {{"indexer", "cas", 14}, 512, 512, 0},
    {{"indexer", "cas", 15}, 4096, 4096, 0},
    {{"indexer", "mutex-cas", 12}, 8, 8, 0},
    {{"indexer", "mutex-cas", 13}, 64, 64, 0},
    {{"indexer", "mutex-cas", 14}, 512, 512, 0},
};

// Published source-DPOR executions: Concuerror's source-DPOR on lastzero(5) runs 97, 33 of
// them sleep-set blocked (tests/suites/dpor_tests/results/last_zero-test-inf-source.txt).
constexpr std::uint64_t kLastzero5SourceDpor = 97;

} // namespace

TEST_GROUP(ClassicBenchmarks){};

TEST(ClassicBenchmarks, every_execution_dfs_runs_falls_into_the_published_number_of_traces) {
    // Where DFS can finish: lastzero(2) and (4) are published, lastzero(3) follows their
    // (N + 3) 2^(N - 2); indexer and filesystem have one trace below their first collision
    // (see each example's header).
    const struct {
        Instance instance;
        std::uint64_t traces;
    } small[] = {
        {{"lastzero", "original", 2}, 5},   {{"lastzero", "original", 3}, 12},
        {{"lastzero", "original", 4}, 28},  {{"indexer", "cas", 3}, 1},
        {{"filesystem", "original", 2}, 1},
    };
    for (const auto& c : small) {
        const TraceClasses all = count_traces(c.instance.setup(), Search::dfs, c.instance.depth());
        const std::string what = c.instance.name() + ": DFS ran " + std::to_string(all.executions) +
                                 " executions, " + std::to_string(all.traces) + " traces";
        CHECK_TEXT(all.finished == all.executions, what.c_str());
        CHECK_EQUAL_TEXT(c.traces, all.traces, what.c_str());
    }
}

TEST(ClassicBenchmarks, source_dpor_reaches_every_published_trace_once_in_the_pinned_executions) {
    for (const Counts& c : kPublished) {
        const TraceClasses dpor =
            count_traces(c.instance.setup(), Search::dpor, c.instance.depth());
        const std::string what = c.instance.name() + ": DPOR ran " +
                                 std::to_string(dpor.executions) + " executions (" +
                                 std::to_string(dpor.sleep_blocked) + " sleep-blocked), " +
                                 std::to_string(dpor.traces) + " traces";
        // Every trace reached, and no finished execution of the same trace twice: only the
        // sleep-blocked executions are redundant.
        CHECK_EQUAL_TEXT(c.traces, dpor.traces, what.c_str());
        CHECK_EQUAL_TEXT(dpor.traces, dpor.finished, what.c_str());
        CHECK_EQUAL_TEXT(0u, dpor.other, what.c_str());
        CHECK_EQUAL_TEXT(c.executions, dpor.executions, what.c_str());
        CHECK_EQUAL_TEXT(c.sleep_blocked, dpor.sleep_blocked, what.c_str());
    }
}

TEST(ClassicBenchmarks, optimal_dpor_runs_exactly_the_published_traces) {
    for (const Counts& c : kPublished) {
        const TraceClasses optimal =
            count_traces(c.instance.setup(), Search::optimal_dpor, c.instance.depth());
        const std::string what = c.instance.name() + ": optimal DPOR ran " +
                                 std::to_string(optimal.executions) + " executions, " +
                                 std::to_string(optimal.traces) + " traces";
        CHECK_EQUAL_TEXT(c.traces, optimal.executions, what.c_str());
        CHECK_EQUAL_TEXT(c.traces, optimal.traces, what.c_str());
        CHECK_EQUAL_TEXT(c.traces, optimal.finished, what.c_str());
        CHECK_EQUAL_TEXT(0u, optimal.sleep_blocked, what.c_str());
    }
}

TEST(ClassicBenchmarks, source_dpor_runs_no_more_than_published_source_dpor) {
    const TraceClasses dpor =
        count_traces(Instance{"lastzero", "original", 5}.setup(), Search::dpor, 200);
    CHECK(dpor.executions <= kLastzero5SourceDpor);
}

TEST(ClassicBenchmarks, dpor_reaches_the_final_states_dfs_reaches) {
    const Instance small[] = {
        {"lastzero", "original", 3},
        {"indexer", "cas", 3},
        {"filesystem", "original", 2},
    };
    for (const Instance& i : small) {
        Dfs dfs;
        Dpor dpor;
        const Reached all = reach(i.setup(), dfs, i.depth());
        const Reached reduced = reach(i.setup(), dpor, i.depth());
        CHECK_TEXT(reduced.final_states == all.final_states, i.name().c_str());
        CHECK_TEXT(reduced.violations.empty() && all.violations.empty(), i.name().c_str());
    }
}

TEST(ClassicBenchmarks, dpor_reaches_whatever_random_walks_reach_at_published_sizes) {
    const Instance sizes[] = {
        {"lastzero", "original", 6},
        {"filesystem", "original", 16},
        {"indexer", "mutex-cas", 12},
    };
    for (const Instance& i : sizes) {
        Dpor dpor;
        RandomWalk walk(1, 200);
        const Reached reduced = reach(i.setup(), dpor, i.depth());
        const Reached walked = reach(i.setup(), walk, i.depth());
        for (const std::string& state : walked.final_states)
            CHECK_TEXT(reduced.final_states.count(state),
                       (i.name() + ": a random walk reached a final state DPOR did not").c_str());
        CHECK_TEXT(walked.violations.empty() && reduced.violations.empty(), i.name().c_str());
    }
}

TEST(ClassicBenchmarks, examples_are_listed_and_run_from_the_command_line) {
    const Run list = run_lockcheck({"list"});
    CHECK_EQUAL(0, list.exit_code);
    const std::string examples = list.out.substr(list.out.find("examples:"));
    for (const Protocol& p : benchmark_models())
        for (const Variant& v : p.variants)
            CHECK_TEXT(contains(examples, p.name) && contains(examples, v.name),
                       (p.name + " " + v.name + " not in the examples section").c_str());
    const Run run = run_lockcheck({"indexer", "--threads", "13", "--strategy", "dpor"});
    CHECK_EQUAL_TEXT(0, run.exit_code, run.out.c_str());
    CHECK_TEXT(contains(run.out, "executions    64\n"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "verdict       verified"), run.out.c_str());
    // Every variant gives its declared verdict: lastzero's plain C accesses are a data race.
    for (const Protocol& p : benchmark_models())
        for (const Variant& v : p.variants) {
            const Run r = run_lockcheck({p.name, "--variant", v.name});
            const std::string what = p.name + " --variant " + v.name + ": " + r.out;
            CHECK_EQUAL_TEXT(v.expect.expects_violation ? 1 : 0, r.exit_code, what.c_str());
            if (!v.expect.expects_violation) continue;
            const std::string kind(kind_name(v.expect.kind));
            CHECK_TEXT(contains(r.out, "VIOLATION (" + kind + ") at step "), what.c_str());
            CHECK_TEXT(contains(r.out, v.expect.property + ": "), what.c_str());
        }
}
