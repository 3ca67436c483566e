// The Mazurkiewicz-trace counter (trace_classes.hpp) on models small enough to count their
// traces by hand: it is the oracle the classic benchmarks' counts are checked against, so it
// must be right on its own, and must count the same traces whichever search feeds it.
#include <string>

#include "counted_models.hpp"
#include "harness.hpp"
#include "trace_classes.hpp"

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

constexpr std::uint32_t kDepth = 200;

// Counted under DFS, which runs every interleaving; DPOR, fed to the counter, must reach every
// one of them too.
std::uint64_t traces(const Setup& setup) {
    const TraceClasses all = count_traces(setup, Search::dfs, kDepth);
    const TraceClasses reduced = count_traces(setup, Search::dpor, kDepth);
    CHECK_EQUAL(all.executions, all.finished);
    CHECK_EQUAL(all.traces, reduced.traces);
    return all.traces;
}

} // namespace

TEST_GROUP(TraceClasses){};

TEST(TraceClasses, counts_the_traces_of_every_hand_counted_model) {
    std::uint64_t executions = 0, counted = 0;
    for (const CountedModel& m : counted_models()) {
        CHECK_EQUAL_TEXT(m.traces, traces(m.setup), m.what);
        executions += count_traces(m.setup, Search::dfs, kDepth).executions;
        counted += m.traces;
    }
    // DFS ran more interleavings than that: the counter does not count executions.
    CHECK(executions > counted);
}

TEST(TraceClasses, executions_that_do_not_finish_are_not_traces) {
    const TraceClasses c = count_traces(
        [] {
            auto& v = this_execution().make<Vars>();
            spawn("a", [&v] {
                WRITE_ONCE(v.x, 1);
                WRITE_ONCE(v.x, 2);
            });
            spawn("b", [&v] { WRITE_ONCE(v.x, 3); });
        },
        Search::dfs, 2); // every execution is cut before its third step
    CHECK_EQUAL(3u, c.executions);
    CHECK_EQUAL(0u, c.finished);
    CHECK_EQUAL(0u, c.traces);
    CHECK_EQUAL(3u, c.other);
}
