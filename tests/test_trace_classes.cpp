// The Mazurkiewicz-trace counter (trace_classes.hpp) on models small enough to count their
// traces by hand: it is the oracle the classic benchmarks' counts are checked against, so it
// must be right on its own, and must count the same traces whichever search feeds it.
#include <string>

#include "harness.hpp"
#include "trace_classes.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::testing;

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

TEST(TraceClasses, independent_writes_are_one_trace) {
    CHECK_EQUAL(1u, traces([] {
                    auto& v = this_execution().make<Vars>();
                    spawn("a", [&v] { WRITE_ONCE(v.x, 1); });
                    spawn("b", [&v] { WRITE_ONCE(v.y, 1); });
                }));
}

TEST(TraceClasses, two_writes_each_to_one_variable_are_six_traces) {
    // Every order of a's two writes among b's two: C(4, 2).
    CHECK_EQUAL(6u, traces([] {
                    auto& v = this_execution().make<Vars>();
                    spawn("a", [&v] {
                        WRITE_ONCE(v.x, 1);
                        WRITE_ONCE(v.x, 2);
                    });
                    spawn("b", [&v] {
                        WRITE_ONCE(v.x, 3);
                        WRITE_ONCE(v.x, 4);
                    });
                }));
}

TEST(TraceClasses, a_write_and_a_read_are_two_traces_and_reads_commute) {
    CHECK_EQUAL(2u, traces([] {
                    auto& v = this_execution().make<Vars>();
                    spawn("writer", [&v] { WRITE_ONCE(v.x, 1); });
                    spawn("reader", [&v] { (void)READ_ONCE(v.x); });
                }));
    CHECK_EQUAL(1u, traces([] {
                    auto& v = this_execution().make<Vars>();
                    for (const char* name : {"a", "b", "c"})
                        spawn(name, [&v] { (void)READ_ONCE(v.x); });
                }));
}

TEST(TraceClasses, each_reader_before_or_after_one_write_is_two_to_the_readers) {
    // POPL'14's readers(3): each reader reads before or after the write, independently.
    CHECK_EQUAL(8u, traces([] {
                    auto& v = this_execution().make<Vars>();
                    spawn("writer", [&v] { WRITE_ONCE(v.x, 42); });
                    for (const char* name : {"r1", "r2", "r3"})
                        spawn(name, [&v] { (void)READ_ONCE(v.x); });
                }));
}

TEST(TraceClasses, two_critical_sections_are_two_traces_whatever_runs_outside_them) {
    const Setup setup = [] {
        auto& v = this_execution().make<Vars>();
        spawn("a", [&v] {
            WRITE_ONCE(v.y, 1); // independent of everything b does
            mutex_lock(&v.m);
            WRITE_ONCE(v.x, 1);
            mutex_unlock(&v.m);
        });
        spawn("b", [&v] {
            mutex_lock(&v.m);
            WRITE_ONCE(v.x, 2);
            mutex_unlock(&v.m);
        });
    };
    CHECK_EQUAL(2u, traces(setup));
    CHECK(count_traces(setup, Search::dfs, kDepth).executions > 2);
}

TEST(TraceClasses, an_invariant_orders_writes_to_different_variables) {
    CHECK_EQUAL(2u, traces([] {
                    auto& v = this_execution().make<Vars>();
                    spawn("a", [&v] { WRITE_ONCE(v.x, 1); });
                    spawn("b", [&v] { WRITE_ONCE(v.y, 1); });
                    invariant("x and y are small", [&v] { return v.x.peek() + v.y.peek() < 3; });
                }));
}

TEST(TraceClasses, a_step_that_checks_depends_on_every_other_step) {
    // check() peeks at y, so the write before it is ordered against b's write to y.
    CHECK_EQUAL(2u, traces([] {
                    auto& v = this_execution().make<Vars>();
                    spawn("a", [&v] {
                        WRITE_ONCE(v.x, 1);
                        check(v.y.peek() < 2, "y stays small");
                    });
                    spawn("b", [&v] { WRITE_ONCE(v.y, 1); });
                }));
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
