// Deadlocks: a cycle of tasks waiting for each other's locks must be reported as
// ViolationKind::deadlock with the cycle spelled out (and only the cycle), for every lock
// type; a trylock that fails backs off instead, so it must not be taken for one. Lockdep is
// switched off here: it would report these lock orders before they deadlock (test_lockdep).
#include <string>

#include "harness.hpp"
#include "lock_types.hpp"
#include "reports/text.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

template <class Lock> struct Locks {
    Lock A{"A"};
    Lock B{"B"};
    Lock C{"C"};
};

// Takes `first`, then `second`, and releases both: the shape of every lock-order bug.
template <class Lock> void lock_in_order(Lock* first, Lock* second) {
    using L = lock_type<Lock>;
    L::lock(first);
    L::lock(second);
    L::unlock(second);
    L::unlock(first);
}

} // namespace

TEST_GROUP(Deadlock){};

TEST(Deadlock, abba_lock_order_deadlocks_and_names_the_wait_for_cycle) {
    for_each_lock_type([]<class Lock>() {
        const SearchResult r = check_model([] {
            auto& l = this_execution().make<Locks<Lock>>();
            lockdep_off();
            spawn("a", [&l] { lock_in_order(&l.A, &l.B); });
            spawn("b", [&l] { lock_in_order(&l.B, &l.A); });
        });
        const char* type = lock_type<Lock>::name;
        const Violation& v = only_violation(r, type);
        CHECK_EQUAL_TEXT(ViolationKind::deadlock, v.kind, type);
        CHECK_EQUAL_TEXT("deadlock", v.property, type);
        CHECK_EQUAL_TEXT("deadlock: wait-for cycle a -> b -> a", v.message, type);
    });
}

TEST(Deadlock, three_task_lock_cycle_names_every_task_on_it) {
    const SearchResult r = check_model([] {
        auto& l = this_execution().make<Locks<mutex>>();
        lockdep_off();
        spawn("a", [&l] { lock_in_order(&l.A, &l.B); });
        spawn("b", [&l] { lock_in_order(&l.B, &l.C); });
        spawn("c", [&l] { lock_in_order(&l.C, &l.A); });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::deadlock, v.kind);
    CHECK_EQUAL("deadlock: wait-for cycle a -> b -> c -> a", v.message);
}

TEST(Deadlock, a_task_blocked_behind_the_cycle_is_listed_but_not_put_on_it) {
    const Setup setup = [] {
        auto& l = this_execution().make<Locks<mutex>>();
        lockdep_off();
        spawn("bystander", [&l] { lock_in_order(&l.A, &l.C); });
        spawn("a", [&l] { lock_in_order(&l.A, &l.B); });
        spawn("b", [&l] { lock_in_order(&l.B, &l.A); });
    };
    // a takes A, b takes B: the bystander, first in task order, waits on A behind the cycle.
    const ReplayResult rr = replay(setup, Schedule{1, 2}, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    CHECK_TEXT(rr.outcome.violation.has_value(), "the replay ended without a violation");
    const Violation& v = *rr.outcome.violation;
    CHECK_EQUAL(ViolationKind::deadlock, v.kind);
    CHECK_EQUAL("deadlock: wait-for cycle a -> b -> a", v.message);
    bool listed = false;
    // The line of the model's call it is blocked in follows the operation (here the line of
    // lock_types.hpp that calls mutex_lock for every test).
    for (const std::string& d : v.details)
        listed |= d.starts_with("bystander: blocked in mutex_lock(A) (lock_types.hpp:") &&
                  d.ends_with("), held by a");
    CHECK_TEXT(listed, "the report does not list the bystander as blocked on A");
}

TEST(Deadlock, trylock_in_reverse_order_backs_off_instead_of_deadlocking) {
    for_each_lock_type([]<class Lock>() {
        using L = lock_type<Lock>;
        int failed_trylocks = 0;
        const SearchResult r = check_model([&failed_trylocks] {
            auto& l = this_execution().make<Locks<Lock>>();
            lockdep_off();
            spawn("a", [&l] { lock_in_order(&l.A, &l.B); });
            spawn("b", [&l, &failed_trylocks] {
                L::lock(&l.B);
                if (L::trylock(&l.A))
                    L::unlock(&l.A);
                else
                    ++failed_trylocks;
                L::unlock(&l.B);
            });
        });
        const char* type = L::name;
        expect_verified(r, type);
        CHECK_EQUAL_TEXT(0ul, r.stats.cut, type);
        // Otherwise the test would pass without ever taking the path it is about.
        CHECK_TEXT(failed_trylocks > 0, type);
    });
}

TEST(Deadlock, the_summary_says_lockdep_was_off_when_the_model_turned_it_off) {
    const Setup setup = [] {
        auto& l = this_execution().make<Locks<mutex>>();
        lockdep_off();
        spawn("a", [&l] { lock_in_order(&l.A, &l.B); });
    };
    const SearchResult r = check_model(setup);
    CHECK(r.stats.lockdep_off);
    Summary s;
    s.stats = r.stats;
    const std::string text = format_summary(s);
    CHECK_TEXT(contains(text, "checks        lockdep off (the model calls lockdep_off()), data "
                              "races on\n"),
               text.c_str());
    CHECK_TEXT(contains(text, "(not checked: lockdep (the model calls lockdep_off()))"),
               text.c_str());
}
