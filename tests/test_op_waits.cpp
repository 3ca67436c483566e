// Named operations (lockcheck::op) and how long each waited, on models small enough to count
// every interleaving by hand, and the contention of each lock: exact values, not ranges.
#include <optional>
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct State {
    mutex m{"m"};
    shared<int> x{"x"};
    shared<int> y{"y"};
};

const OpWaits& waits_of(const SearchResult& r, const std::string& op) {
    for (const OpWaits& w : r.stats.ops)
        if (w.op == op) return w;
    FAIL(("no operation " + op).c_str());
    return r.stats.ops.front();
}

const LockStats& lock_of(const SearchResult& r, const std::string& lock) {
    for (const LockHolds& h : r.stats.holds)
        if (h.lock == lock) return h.stats;
    FAIL(("no lock " + lock).c_str());
    return r.stats.holds.front().stats;
}

// "a" locks and unlocks m; b holds it over two writes. Every interleaving (DFS): a first, and b
// waits a's unlock (1 step); b first, and a waits b's two writes and its unlock (3 steps).
void a_and_b(bool named) {
    auto& s = this_execution().make<State>();
    spawn("a", [&s, named] {
        if (named) op_begin("a");
        mutex_lock(&s.m);
        mutex_unlock(&s.m);
        if (named) op_end("a");
    });
    spawn("b", [&s, named] {
        std::optional<op> b; // the scoped form
        if (named) b.emplace("b");
        mutex_lock(&s.m);
        WRITE_ONCE(s.x, 1);
        WRITE_ONCE(s.x, 2);
        mutex_unlock(&s.m);
    });
}

} // namespace

TEST_GROUP(OpWaits){};

TEST(OpWaits, a_blocked_operation_waits_the_steps_the_holder_runs_until_it_can_go_on) {
    const SearchResult r = check_model([] { a_and_b(true); }, Search::dfs, {});
    expect_verified(r);
    CHECK_EQUAL(2u, r.stats.executions);
    const OpWaits& a = waits_of(r, "a");
    CHECK_EQUAL(2u, a.count);
    CHECK_EQUAL(3u, a.total);
    CHECK_EQUAL(3u, a.worst);
    const OpWaits& b = waits_of(r, "b");
    CHECK_EQUAL(2u, b.count);
    CHECK_EQUAL(1u, b.total);
    CHECK_EQUAL(1u, b.worst);
    // The execution where a waited longest: b took the lock first.
    CHECK_EQUAL(std::string("1.1.1.1.0.0"), format_schedule(a.worst_schedule));
    CHECK_EQUAL(std::string("0.0.1.1.1.1"), format_schedule(b.worst_schedule));
}

TEST(OpWaits, naming_operations_changes_no_interleaving) {
    const SearchResult named = check_model([] { a_and_b(true); }, Search::dfs, {});
    const SearchResult plain = check_model([] { a_and_b(false); }, Search::dfs, {});
    CHECK_EQUAL(plain.stats.executions, named.stats.executions);
    CHECK_EQUAL(plain.stats.steps, named.stats.steps);
    CHECK(plain.stats.ops.empty());
}

TEST(OpWaits, each_lock_counts_its_acquisitions_contentions_sleeps_and_holds) {
    const SearchResult r = check_model([] { a_and_b(true); }, Search::dfs, {});
    const LockStats& m = lock_of(r, "m");
    CHECK_EQUAL(4u, m.acquisitions); // both tasks, in both executions
    CHECK_EQUAL(2u, m.contended);    // whoever came second
    CHECK_EQUAL(2u, m.sleeps);
    CHECK_EQUAL(4u, m.holds);
    CHECK_EQUAL(1u + 3 + 3 + 1, m.steps);
    CHECK_EQUAL(3u, m.longest);
}

TEST(OpWaits, after_a_failed_trylock_the_operation_waits_until_it_next_changes_something) {
    // a tries m once and, if b holds it, writes y instead. By hand, over the 7 interleavings:
    // a's trylock first, or after b's unlock: it takes m, no wait (2 executions); a fails right
    // after b's lock and writes y 0, 1 or 2 of b's steps later (3); a fails after b's first
    // write and writes y 0 or 1 step later (2).
    const SearchResult r = check_model(
        [] {
            auto& s = this_execution().make<State>();
            spawn("a", [&s] {
                op a("a");
                if (mutex_trylock(&s.m))
                    mutex_unlock(&s.m);
                else
                    WRITE_ONCE(s.y, 1);
            });
            spawn("b", [&s] {
                mutex_lock(&s.m);
                WRITE_ONCE(s.x, 1);
                mutex_unlock(&s.m);
            });
        },
        Search::dfs, {});
    expect_verified(r);
    CHECK_EQUAL(7u, r.stats.executions);
    const OpWaits& a = waits_of(r, "a");
    CHECK_EQUAL(7u, a.count);
    CHECK_EQUAL(0u + 0 + 0 + 1 + 2 + 0 + 1, a.total);
    CHECK_EQUAL(2u, a.worst);
    // One contended acquisition: b's, blocked while a's trylock held m. A failed trylock
    // takes nothing, so it is no acquisition.
    CHECK_EQUAL(1u, lock_of(r, "m").contended);
    CHECK_EQUAL(7u + 2, lock_of(r, "m").acquisitions);
}

TEST(OpWaits, nested_operations_each_count_the_waits_inside_them) {
    const SearchResult r = check_model(
        [] {
            auto& s = this_execution().make<State>();
            spawn("a", [&s] {
                op outer("outer");
                WRITE_ONCE(s.y, 1);
                op inner("inner");
                mutex_lock(&s.m);
                mutex_unlock(&s.m);
            });
            spawn("b", [&s] {
                mutex_lock(&s.m);
                WRITE_ONCE(s.x, 1);
                mutex_unlock(&s.m);
            });
        },
        Search::dfs, {});
    const OpWaits& outer = waits_of(r, "outer");
    const OpWaits& inner = waits_of(r, "inner");
    CHECK_EQUAL(outer.count, inner.count);
    CHECK_EQUAL(outer.total, inner.total); // a waits only on m, inside both
    CHECK_EQUAL(2u, outer.worst);          // b's write and unlock
    CHECK(outer.total > 0);
}

TEST(OpWaits, ending_an_operation_that_is_not_the_open_one_is_the_models_error) {
    const SearchResult r = check_model([] {
        spawn("a", [] {
            op_begin("fsync");
            op_end("rename");
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::exception, v.kind);
    CHECK_TEXT(contains(v.message, "op_end(\"rename\") in a: the open operation is \"fsync\""),
               v.message.c_str());
}
