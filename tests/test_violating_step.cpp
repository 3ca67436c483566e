// The violating step is the step that violates: a property checked before a scheduling point
// (lockdep, might_sleep(), recursive locking, smp_processor_id()) is broken by the operation
// the task was about to declare, so that attempt is the last step of the trace, numbered as
// the violation, though the schedule has no entry for it.
#include <string>

#include "harness.hpp"
#include "reports/text.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Locks {
    Locks() {
        lockdep_set_class(&left.dep_map, "eb");
        lockdep_set_class(&right.dep_map, "eb");
    }
    struct mutex A {
        "A"
    };
    struct mutex B {
        "B"
    };
    struct mutex left {
        "left"
    };
    struct mutex right {
        "right"
    };
    spinlock_t S{"S"};
    struct completion done {
        "done"
    };
};

// The first violation DFS finds in `setup`, replayed into its trace: the trace ends with
// `task`'s attempt `operation`, the violation's step, one step past the schedule.
void expect_attempt_is_last_step(const Setup& setup, ViolationKind kind, const std::string& task,
                                 const std::string& operation, const char* what) {
    const SearchResult r = check_model(setup);
    const Violation& v = only_violation(r, what);
    CHECK_EQUAL_TEXT(kind, v.kind, what);
    const Schedule& schedule = r.findings.front().schedule;
    const ReplayResult rr = replay(setup, schedule, CheckOptions{});
    CHECK_TEXT(rr.ok, (std::string(what) + ": " + rr.error).c_str());
    CHECK_TEXT(!rr.trace.steps.empty(), what);
    const TraceStep& last = rr.trace.steps.back();
    CHECK_EQUAL_TEXT(operation, operation_text(last), what);
    CHECK_EQUAL_TEXT(task, last.task, what);
    CHECK_EQUAL_TEXT(v.step, last.step, what);
    CHECK_EQUAL_TEXT(rr.trace.steps.size(), static_cast<std::size_t>(v.step), what);
    CHECK_EQUAL_TEXT(rr.outcome.steps, v.step, what);
    CHECK_EQUAL_TEXT(schedule.size() + 1, static_cast<std::size_t>(v.step), what);
}

} // namespace

TEST_GROUP(ViolatingStep){};

TEST(ViolatingStep, the_acquisition_that_closes_a_lockdep_cycle_is_the_last_step) {
    expect_attempt_is_last_step(
        [] {
            auto& s = this_execution().make<Locks>();
            spawn("first", [&s] {
                mutex_lock(&s.A);
                mutex_lock(&s.B);
                mutex_unlock(&s.B);
                mutex_unlock(&s.A);
                complete(&s.done);
            });
            spawn("second", [&s] {
                wait_for_completion(&s.done);
                mutex_lock(&s.B);
                mutex_lock(&s.A);
            });
        },
        ViolationKind::lock_order, "second", "mutex_lock(A)", "abba");
}

TEST(ViolatingStep, the_chain_names_the_step_that_took_each_lock_by_number) {
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<Locks>();
        spawn("first", [&s] {
            mutex_lock(&s.A);
            mutex_lock(&s.B); // step 2: the dependency A --> B
            mutex_unlock(&s.B);
            mutex_unlock(&s.A);
            complete(&s.done);
        });
        spawn("second", [&s] {
            wait_for_completion(&s.done);
            mutex_lock(&s.B);
            mutex_lock(&s.A);
        });
    });
    const Violation& v = only_violation(r);
    bool named = false;
    for (const std::string& d : v.details)
        named |= d.starts_with("  A --> B: first took it at step 2, ");
    CHECK_TEXT(named, describe(r).c_str());
}

TEST(ViolatingStep, a_dependency_whose_lock_is_not_taken_yet_says_so) {
    // first holds A and waits for B, which second holds while it asks for A.
    const Setup setup = [] {
        auto& s = this_execution().make<Locks>();
        spawn("first", [&s] {
            mutex_lock(&s.A);
            mutex_lock(&s.B);
        });
        spawn("second", [&s] {
            mutex_lock(&s.B);
            mutex_lock(&s.A);
        });
    };
    const ReplayResult rr = replay(setup, Schedule{0, 1}, CheckOptions{});
    CHECK_TEXT(rr.outcome.violation.has_value(), rr.error.c_str());
    bool waiting = false;
    for (const std::string& d : rr.outcome.violation->details)
        waiting |= d.starts_with("  A --> B: first asked for it after step 1 and has not got it "
                                 "yet, ");
    CHECK_TEXT(waiting, format_violation(*rr.outcome.violation).c_str());
    CHECK_EQUAL("mutex_lock(A)", operation_text(rr.trace.steps.back()));
    CHECK_EQUAL(3u, rr.trace.steps.back().step);
}

TEST(ViolatingStep, a_lock_of_the_same_class_without_nesting_is_the_last_step) {
    expect_attempt_is_last_step(
        [] {
            auto& s = this_execution().make<Locks>();
            spawn("t", [&s] {
                mutex_lock(&s.left);
                mutex_lock(&s.right);
            });
        },
        ViolationKind::lock_order, "t", "mutex_lock(right)", "same class");
}

TEST(ViolatingStep, a_recursive_mutex_lock_is_the_last_step) {
    expect_attempt_is_last_step(
        [] {
            auto& s = this_execution().make<Locks>();
            lockdep_off();
            spawn("t", [&s] {
                mutex_lock(&s.A);
                mutex_lock(&s.A);
            });
        },
        ViolationKind::lock_misuse, "t", "mutex_lock(A)", "recursive");
}

TEST(ViolatingStep, a_sleeping_lock_under_a_spinlock_is_the_last_step) {
    expect_attempt_is_last_step(
        [] {
            auto& s = this_execution().make<Locks>();
            spawn("t", [&s] {
                spin_lock(&s.S);
                mutex_lock(&s.A);
            });
        },
        ViolationKind::sleep_in_atomic, "t", "mutex_lock(A)", "mutex under spinlock");
}

TEST(ViolatingStep, might_sleep_under_a_spinlock_is_the_last_step) {
    expect_attempt_is_last_step(
        [] {
            auto& s = this_execution().make<Locks>();
            spawn("t", [&s] {
                spin_lock(&s.S);
                might_sleep();
            });
        },
        ViolationKind::sleep_in_atomic, "t", "might_sleep()", "might_sleep");
}

TEST(ViolatingStep, schedule_while_atomic_is_the_last_step) {
    expect_attempt_is_last_step(
        [] {
            auto& s = this_execution().make<Locks>();
            spawn("t", [&s] {
                spin_lock(&s.S);
                schedule();
            });
        },
        ViolationKind::sleep_in_atomic, "t", "schedule()", "schedule");
}

TEST(ViolatingStep, smp_processor_id_in_preemptible_code_is_the_last_step) {
    expect_attempt_is_last_step(
        [] {
            auto& s = this_execution().make<Locks>();
            spawn("t", [&s] {
                mutex_lock(&s.A);
                (void)smp_processor_id();
            });
        },
        ViolationKind::preempt, "t", "smp_processor_id()", "smp_processor_id");
}

TEST(ViolatingStep, a_failed_lockdep_assert_held_is_the_last_step) {
    expect_attempt_is_last_step(
        [] {
            auto& s = this_execution().make<Locks>();
            spawn("t", [&s] {
                mutex_lock(&s.B);
                lockdep_assert_held(&s.A);
            });
        },
        ViolationKind::lock_misuse, "t", "lockdep_assert_held(A)", "lockdep_assert_held");
}

TEST(ViolatingStep, a_violation_during_a_step_stays_at_that_step) {
    // An unlock by a task that does not hold the lock breaks the rule in its own step.
    const Setup setup = [] {
        auto& s = this_execution().make<Locks>();
        spawn("t", [&s] { mutex_unlock(&s.A); });
    };
    const SearchResult r = check_model(setup);
    const Violation& v = only_violation(r);
    const ReplayResult rr = replay(setup, r.findings.front().schedule, CheckOptions{});
    CHECK_EQUAL(1u, v.step);
    CHECK_EQUAL(1u, rr.trace.steps.size());
    CHECK_EQUAL("mutex_unlock(A)", operation_text(rr.trace.steps.back()));
}
