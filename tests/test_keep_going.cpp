// keep_going: without it the search stops at the first violation; with it, it runs every
// execution and collects each distinct violation once, in the order found.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::testing;

namespace {

struct Vars {
    shared<int> x{"x"};
    int seen = -1; // what the reader read: plain task-local bookkeeping, not shared state
};

// writer stores 1 then 2; the reader must never see 1 (a check) and must run before the
// writer (a final check). In DFS order: writer-writer-reader breaks the final check,
// writer-reader-writer the check, reader-writer-writer nothing.
void two_different_violations() {
    auto& v = this_execution().make<Vars>();
    spawn("writer", [&v] {
        WRITE_ONCE(v.x, 1);
        WRITE_ONCE(v.x, 2);
    });
    spawn("reader", [&v] {
        v.seen = READ_ONCE(v.x);
        check(v.seen != 1, "reader never sees x half-updated");
    });
    final_check("reader ran first", [&v] { return v.seen == 0; });
}

} // namespace

TEST_GROUP(KeepGoing){};

TEST(KeepGoing, without_keep_going_the_search_stops_at_the_first_violation) {
    const SearchResult r = check_model(&two_different_violations);
    CHECK_EQUAL(1ul, r.stats.executions);
    CHECK_EQUAL(ViolationKind::final_check, only_violation(r).kind);
}

TEST(KeepGoing, keep_going_collects_every_distinct_violation_in_order) {
    const SearchResult r = check_keep_going(&two_different_violations);
    CHECK_EQUAL(3ul, r.stats.executions);
    CHECK_EQUAL(2ul, r.findings.size());
    CHECK_EQUAL(ViolationKind::final_check, r.findings[0].violation.kind);
    CHECK_EQUAL("reader ran first", r.findings[0].violation.property);
    CHECK_EQUAL(ViolationKind::check_failed, r.findings[1].violation.kind);
    CHECK_EQUAL("reader never sees x half-updated", r.findings[1].violation.property);
}

TEST(KeepGoing, the_same_violation_in_many_executions_is_one_finding) {
    // Two unlocked increments: 6 interleavings, 4 of which lose an update. Marked accesses,
    // so that it is a lost update and not a data race (tests/test_data_race.cpp).
    const SearchResult r = check_keep_going([] {
        auto& v = this_execution().make<Vars>();
        for (const char* name : {"inc0", "inc1"})
            spawn(name, [&v] { WRITE_ONCE(v.x, READ_ONCE(v.x) + 1); });
        final_check("no lost update", [&v] { return v.x.peek() == 2; });
    });
    CHECK_EQUAL(6ul, r.stats.executions);
    CHECK_EQUAL(ViolationKind::final_check, only_violation(r).kind);
}
