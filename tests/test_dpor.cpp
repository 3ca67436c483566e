// DPOR, source and optimal, against exhaustive DFS: it must run one execution per class of
// equivalent interleavings (exact counts on small models), never more executions than DFS, and
// reach the same final states and find the same kinds of violation on every shipped variant. Where
// DFS cannot go to the end (tree-lock), random walks check it: DPOR must reach every final
// state and violation they reach.
#include <string>

#include "checker/bounded_dfs.hpp"
#include "checker/dfs.hpp"
#include "checker/dpor.hpp"
#include "checker/random_walk.hpp"
#include "counted_models.hpp"
#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Vars {
    shared<int> x{"x"};
    shared<int> y{"y"};
    struct mutex m {
        "m"
    };
};

constexpr Dpor::Mode kModes[] = {Dpor::Mode::source, Dpor::Mode::optimal};

const char* mode_name(Dpor::Mode mode) {
    return mode == Dpor::Mode::optimal ? "optimal DPOR" : "DPOR";
}

// On these small models source DPOR is already optimal: both run the same executions.
std::uint64_t dpor_executions(const Setup& setup) {
    Dpor source;
    Dpor optimal(0, Dpor::Mode::optimal);
    const std::uint64_t executions = reach(setup, source, 200).executions;
    CHECK_EQUAL(executions, reach(setup, optimal, 200).executions);
    return executions;
}

} // namespace

TEST_GROUP(Dpor){};
// What every shipped variant reaches under other searches: minutes on a loaded machine, a
// CTest test of its own.
TEST_GROUP(DporVariants){};

TEST(Dpor, runs_one_execution_per_trace_of_every_hand_counted_model) {
    for (const CountedModel& m : counted_models())
        CHECK_EQUAL_TEXT(m.traces, dpor_executions(m.setup), m.what);
}

TEST(Dpor, finds_the_lost_update_of_an_unlocked_counter) {
    Dpor dpor(0, Dpor::Mode::optimal);
    const Reached r = reach(
        [] {
            auto& v = this_execution().make<Vars>();
            for (const char* name : {"a", "b"})
                spawn(name, [&v] { WRITE_ONCE(v.x, READ_ONCE(v.x) + 1); });
            final_check("both increments land", [&v] { return v.x.peek() == 2; });
        },
        dpor, 200);
    CHECK_EQUAL(1u, r.violations.size());
    CHECK_EQUAL(ViolationKind::final_check, r.violations.begin()->first);
}

TEST(Dpor, agrees_with_dfs_on_every_shipped_variant) {
    for (const Protocol& p : protocol_models()) {
        for (std::size_t i = 0; i < p.variants.size(); ++i) {
            const std::string what = p.name + " --variant " + p.variants[i].name;
            const Setup setup = default_setup(p, i);
            // DFS goes to the end of the models it can finish; elsewhere it is
            // compared within a bound it can exhaust (every execution is then cut, so only the
            // violations found before it count).
            const std::uint32_t depth = dfs_feasible_depth(p, i);
            Dfs dfs;
            const Reached all = reach(setup, dfs, depth);
            for (Dpor::Mode mode : kModes) {
                Dpor dpor(0, mode);
                const Reached reduced = reach(setup, dpor, depth);
                const std::string who = what + ": " + mode_name(mode);
                CHECK_TEXT(reduced.executions <= all.executions, who.c_str());
                expect_reached_what_dfs_reached(reduced, all, who);
            }
        }
    }
}

TEST(Dpor, agrees_with_dfs_within_a_depth_bound_that_cuts_on_every_variant_dfs_exhausts) {
    // The depth of a step is the trace's (scheduler/chain_depth.hpp): whichever order of
    // independent steps a search runs, it cuts the same executions (at depth 2 it cuts most of
    // rename-pin's: tests/test_cli.cpp).
    for (const Protocol& p : protocol_models()) {
        for (std::size_t i = 0; i < p.variants.size(); ++i) {
            if (!dfs_exhausts(p, i)) continue;
            const std::string what = p.name + " --variant " + p.variants[i].name + " --depth 2";
            const Setup setup = default_setup(p, i);
            Dfs dfs;
            const Reached all = reach(setup, dfs, 2, true, Execution::kDefaultMaxSteps);
            for (Dpor::Mode mode : kModes) {
                Dpor dpor(0, mode);
                const Reached reduced = reach(setup, dpor, 2, true, Execution::kDefaultMaxSteps);
                expect_reached_what_dfs_reached(reduced, all, what + ": " + mode_name(mode));
            }
        }
    }
}

TEST(DporVariants, reaches_whatever_random_walks_reach_on_every_shipped_variant_without_a_bound) {
    constexpr std::uint32_t kDepth = 200; // beyond every variant's longest execution
    for (const Protocol& p : protocol_models()) {
        for (std::size_t i = 0; i < p.variants.size(); ++i) {
            const std::string what = p.name + " --variant " + p.variants[i].name;
            const Setup setup = default_setup(p, i);
            RandomWalk walk(i + 1, 300);
            const Reached walked = reach(setup, walk, kDepth);
            for (Dpor::Mode mode : kModes) {
                Dpor dpor(0, mode);
                const Reached reduced = reach(setup, dpor, kDepth);
                const std::string who = what + ": " + mode_name(mode);
                for (const std::string& state : walked.final_states)
                    CHECK_TEXT(
                        reduced.final_states.count(state),
                        (who + " missed a final state a random walk reached: " + state).c_str());
                for (const auto& violation : walked.violations)
                    CHECK_TEXT(
                        reduced.violations.count(violation),
                        (who + " missed a violation a random walk found: " + violation.second)
                            .c_str());
            }
        }
    }
}

TEST(DporVariants,
     within_a_preemption_bound_reaches_what_bounded_dfs_reaches_on_every_shipped_variant) {
    for (const Protocol& p : protocol_models()) {
        for (std::size_t i = 0; i < p.variants.size(); ++i) {
            const Setup setup = default_setup(p, i);
            for (std::uint32_t bound : {0u, 1u, 2u}) {
                const std::string what = p.name + " --variant " + p.variants[i].name +
                                         " --preemptions " + std::to_string(bound);
                BoundedDfs dfs(bound);
                Dpor dpor(0, Dpor::Mode::source, bound);
                const Reached all = reach(setup, dfs, p.depth_for(i));
                const Reached reduced = reach(setup, dpor, p.depth_for(i));
                CHECK_TEXT(reduced.executions <= all.executions, what.c_str());
                expect_reached_what_dfs_reached(reduced, all, what);
            }
        }
    }
}
