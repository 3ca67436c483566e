// Source and optimal DPOR against exhaustive DFS on generated models: 240 small random
// programs (60 under the sanitizers; 2-4 tasks, shared variables whose writes depend on what the
// task read, atomics, mutex-protected sections, a completion one task may wait for and another
// may signal) must reach the same final states and the same kinds of violation under both, and
// DPOR must never run more executions. The generator is seeded: a failure names the model's seed
// to rerun it. Its racy programs also make plain accesses and take one lock inside the other in
// either order: with keep_going, DFS and both DPORs must find the same distinct data races and
// lockdep reports.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "checker/dfs.hpp"
#include "checker/dpor.hpp"
#include "checker/random_source.hpp"
#include "checker/search.hpp"
#include "generated_programs.hpp"
#include "harness.hpp"
#include "split_schedules.hpp"
#include "trace_classes.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;
using namespace lockcheck::generated;

namespace {

// How many programs each test generates (seeds 1 to kPrograms). Under the sanitizers, where a
// search runs 10-30 times slower and what they add (memory and undefined-behaviour errors)
// does not depend on which program runs, the first quarter: the full population takes two
// minutes of CPU there, and the normal build checks all of it.
#ifdef LOCKCHECK_SANITIZED
constexpr std::uint64_t kPrograms = 60;
#else
constexpr std::uint64_t kPrograms = 240;
#endif

// The generated program's set-up: its objects, and a task per list of operations.
Setup setup_of(const Program& program) {
    return [&program] { spawn_program(program); };
}

// Source and optimal DPOR against DFS on the same generated models.
void check_against_dfs(Dpor::Mode mode) {
    std::uint64_t dfs_total = 0, dpor_total = 0;
    for (std::uint64_t seed = 1; seed <= kPrograms; ++seed) {
        const Program program = generate(seed);
        Dfs dfs;
        Dpor dpor(0, mode);
        const Reached all = reach(setup_of(program), dfs, 200);
        const Reached reduced = reach(setup_of(program), dpor, 200);
        const std::string what = std::string(mode == Dpor::Mode::optimal ? "optimal " : "") +
                                 "DPOR, generated model, seed " + std::to_string(seed);
        CHECK_TEXT(reduced.executions <= all.executions, what.c_str());
        expect_reached_what_dfs_reached(reduced, all, what);
        dfs_total += all.executions;
        dpor_total += reduced.executions;
    }
    // The reduction is real on this population, not only sound.
    CHECK_TEXT(dpor_total * 2 < dfs_total, (std::to_string(dpor_total) + " DPOR executions, " +
                                            std::to_string(dfs_total) + " DFS")
                                               .c_str());
}

} // namespace

TEST_GROUP(DporGenerated){};

TEST(DporGenerated, dpor_reaches_what_dfs_reaches_on_generated_models) {
    check_against_dfs(Dpor::Mode::source);
}

TEST(DporGenerated, optimal_dpor_reaches_what_dfs_reaches_on_generated_models) {
    check_against_dfs(Dpor::Mode::optimal);
}

TEST(DporGenerated, keep_going_finds_the_same_violations_under_every_search_on_racy_models) {
    std::uint64_t with_race = 0, with_lockdep = 0, with_several = 0;
    for (std::uint64_t seed = 1; seed <= kPrograms; ++seed) {
        const Program program = generate(seed, true);
        const std::set<std::string> keys = expect_every_search_finds_the_same(
            setup_of(program), 200, "racy generated model, seed " + std::to_string(seed));
        with_race += std::any_of(keys.begin(), keys.end(),
                                 [](const std::string& k) { return k.starts_with("data-race"); });
        with_lockdep += std::any_of(keys.begin(), keys.end(), [](const std::string& k) {
            return k.starts_with("lock-order");
        });
        with_several += keys.size() > 1;
    }
    // The population exercises what it is for: races, inversions, several in one model.
    const std::string counts = std::to_string(with_race) + " with a race, " +
                               std::to_string(with_lockdep) + " with a lockdep report, " +
                               std::to_string(with_several) + " with several violations";
    CHECK_TEXT(with_race >= kPrograms / 4 && with_lockdep >= kPrograms / 24 &&
                   with_several >= kPrograms / 12,
               counts.c_str());
}

TEST(DporGenerated, both_dpors_reach_every_trace_of_generated_models_and_optimal_runs_each_once) {
    std::uint64_t traces_total = 0;
    for (std::uint64_t seed = 1; seed <= kPrograms; ++seed) {
        const Program program = generate(seed);
        const std::string what = "generated model, seed " + std::to_string(seed);
        const TraceClasses all = count_traces(setup_of(program), Search::dfs, 200);
        const TraceClasses source = count_traces(setup_of(program), Search::dpor, 200);
        const TraceClasses optimal = count_traces(setup_of(program), Search::optimal_dpor, 200);
        CHECK_EQUAL_TEXT(all.traces, source.traces, (what + ": DPOR").c_str());
        CHECK_EQUAL_TEXT(all.traces, optimal.traces, (what + ": optimal DPOR").c_str());
        // Not one execution more than there are traces: none twice, none sleep-set blocked,
        // even with locks and completions (a step that waits is never scheduled before the
        // step it waits for).
        CHECK_EQUAL_TEXT(optimal.traces, optimal.finished, what.c_str());
        CHECK_EQUAL_TEXT(0u, optimal.sleep_blocked, what.c_str());
        traces_total += all.traces;
    }
    CHECK(traces_total > kPrograms); // the models race: most have more than one trace
}

#include "checker/bounded_dfs.hpp"
TEST(DporGenerated, bounded_dpor_reaches_what_bounded_dfs_reaches_on_generated_models) {
    std::uint64_t dfs_total = 0, dpor_total = 0;
    for (std::uint32_t bound : {0u, 1u, 2u}) {
        for (std::uint64_t seed = 1; seed <= kPrograms; ++seed) {
            const Program program = generate(seed);
            BoundedDfs dfs(bound);
            Dpor dpor(0, Dpor::Mode::source, bound);
            const Reached all = reach(setup_of(program), dfs, 200);
            const Reached reduced = reach(setup_of(program), dpor, 200);
            const std::string what = "DPOR within " + std::to_string(bound) +
                                     " preemptions, generated model, seed " + std::to_string(seed);
            expect_reached_what_dfs_reached(reduced, all, what);
            dfs_total += all.executions;
            dpor_total += reduced.executions;
        }
    }
    CHECK_TEXT(dpor_total < dfs_total, (std::to_string(dpor_total) + " DPOR executions, " +
                                        std::to_string(dfs_total) + " DFS")
                                           .c_str());
}

#include "checker/bfs.hpp"
#include "checker/stateful_dfs.hpp"

TEST_GROUP(StateCacheGenerated){};

// The stateful searches against DFS, on the programs whose writes depend on what their task
// read (so that a task's history decides its next writes), then on the racy ones with
// keep_going.
TEST(StateCacheGenerated, the_stateful_searches_reach_what_dfs_reaches_on_generated_models) {
    std::uint64_t dfs_steps = 0, cached_steps = 0;
    for (std::uint64_t seed = 1; seed <= kPrograms; ++seed) {
        const Program program = generate(seed);
        Dfs dfs;
        const Reached all = reach(setup_of(program), dfs, 200);
        StatefulDfs cached;
        const Reached reduced = reach(setup_of(program), cached, 200);
        const std::string what = "generated model, seed " + std::to_string(seed);
        CHECK_TEXT(reduced.executions <= all.executions, ("state cache, " + what).c_str());
        expect_reached_what_dfs_reached(reduced, all, "state cache, " + what);
        dfs_steps += all.executions;
        cached_steps += reduced.executions - cached.states().matched;
        // Breadth-first runs one execution per state it expands: no fewer than DFS on
        // programs with few interleavings, so only what it reaches is compared.
        Bfs bfs;
        expect_reached_what_dfs_reached(reach(setup_of(program), bfs, 200), all, "bfs, " + what);
    }
    // Executions that run to their end: far fewer than DFS's, not only as many.
    CHECK_TEXT(
        cached_steps * 2 < dfs_steps,
        (std::to_string(cached_steps) + " to the end, DFS " + std::to_string(dfs_steps)).c_str());
}

TEST(StateCacheGenerated, keep_going_finds_what_dfs_finds_on_racy_models) {
    for (std::uint64_t seed = 1; seed <= kPrograms; ++seed) {
        const Program program = generate(seed, true);
        const Distinct all = distinct_violations(setup_of(program), Search::dfs, 200);
        StatefulDfs cached;
        Bfs bfs;
        for (Strategy* stateful : {static_cast<Strategy*>(&cached), static_cast<Strategy*>(&bfs)}) {
            const std::string what = std::string(stateful == &bfs ? "bfs" : "state cache") +
                                     ", racy generated model, seed " + std::to_string(seed);
            CheckOptions options;
            options.keep_going = true;
            const SearchResult r = explore(setup_of(program), *stateful, options);
            std::set<std::string> keys;
            for (const Finding& f : r.findings)
                keys.insert(f.violation.key());
            CHECK_TEXT(keys == all.keys,
                       (what + ": " + std::to_string(keys.size()) + " distinct violations, DFS " +
                        std::to_string(all.keys.size()))
                           .c_str());
        }
    }
}

// --jobs on generated models: the same findings and figures on two threads as on one.
TEST_GROUP(JobsGenerated){};

TEST(JobsGenerated, dfs_and_dpor_on_two_threads_find_and_measure_what_they_do_on_one) {
    for (std::uint64_t seed = 1; seed <= kPrograms / 2; ++seed) {
        const Program program = generate(seed, true);
        CheckOptions options;
        options.keep_going = seed % 2 == 0;
        for (Search search : {Search::dfs, Search::dpor, Search::optimal_dpor}) {
            std::string one, two;
            for (unsigned jobs : {1u, 2u}) {
                options.jobs = jobs;
                const std::unique_ptr<Strategy> strategy = make_search(search, 200);
                (jobs == 1 ? one : two) = report_of(explore(setup_of(program), *strategy, options));
            }
            CHECK_TEXT(one == two, ("racy generated model, seed " + std::to_string(seed) + ", " +
                                    search_name(search))
                                       .c_str());
        }
    }
}

TEST(JobsGenerated, dpor_split_after_every_execution_runs_the_schedules_of_the_whole_search) {
    unsigned splits[2] = {0, 0};
    for (std::uint64_t seed = 1; seed <= kPrograms / 2; ++seed) {
        const Program program = generate(seed, seed % 2 == 0);
        for (Dpor::Mode mode : {Dpor::Mode::source, Dpor::Mode::optimal}) {
            const auto whole =
                split_schedules(setup_of(program), std::make_unique<Dpor>(0, mode), 0);
            const auto split =
                split_schedules(setup_of(program), std::make_unique<Dpor>(0, mode), 1);
            CHECK_TEXT(split.first == whole.first,
                       ("generated model, seed " + std::to_string(seed) +
                        (mode == Dpor::Mode::source ? ", dpor" : ", optimal-dpor"))
                           .c_str());
            splits[mode == Dpor::Mode::optimal] += split.second;
        }
    }
    CHECK_TEXT(splits[0] > kPrograms / 8 && splits[1] > kPrograms / 16,
               (std::to_string(splits[0]) + " and " + std::to_string(splits[1])).c_str());
}
