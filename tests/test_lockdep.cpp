// Lockdep: a lock order that closes a cycle of lock classes is reported at the acquisition
// that closes it, even when the execution never deadlocks; nesting subclasses make distinct
// classes; trylocks add no dependency; rw_semaphore readers count like writers.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// `done` orders the tasks, so no interleaving can deadlock: only lockdep can object.
struct Ordered {
    struct mutex A {
        "A"
    };
    struct mutex B {
        "B"
    };
    struct mutex C {
        "C"
    };
    struct completion done {
        "done"
    };
};

void take_two(struct mutex* first, struct mutex* second) {
    mutex_lock(first);
    mutex_lock(second);
    mutex_unlock(second);
    mutex_unlock(first);
}

// Two locks of one class, as two extent buffers of one tree level are.
struct Siblings {
    Siblings() {
        lockdep_set_class(&left.dep_map, "eb");
        lockdep_set_class(&right.dep_map, "eb");
    }
    struct mutex left {
        "left"
    };
    struct mutex right {
        "right"
    };
};

// Takes `first` as subclass `first_sub`, then `second` as `second_sub`, and releases both.
void lock_nested(struct mutex* first, int first_sub, struct mutex* second, int second_sub) {
    mutex_lock_nested(first, first_sub);
    mutex_lock_nested(second, second_sub);
    mutex_unlock(second);
    mutex_unlock(first);
}

bool has_line(const Violation& v, const std::string& line) {
    for (const std::string& d : v.details)
        if (d == line) return true;
    return false;
}

// A line that begins with `start` (and goes on with the model's line, say).
bool has_line_starting(const Violation& v, const std::string& start) {
    for (const std::string& d : v.details)
        if (d.starts_with(start)) return true;
    return false;
}

} // namespace

TEST_GROUP(Lockdep){};

TEST(Lockdep, an_abba_order_that_never_deadlocks_is_still_a_circular_dependency) {
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<Ordered>();
        spawn("first", [&s] {
            take_two(&s.A, &s.B);
            complete(&s.done);
        });
        spawn("second", [&s] {
            wait_for_completion(&s.done);
            take_two(&s.B, &s.A);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::lock_order, v.kind);
    CHECK_EQUAL("circular-locking-dependency", v.property);
    CHECK_EQUAL("possible circular locking dependency detected: B --> A closes A --> B", v.message);
    CHECK_TEXT(has_line(v, "second is trying to acquire A while holding B"), describe(r).c_str());
    CHECK_TEXT(has_line_starting(v, "  A --> B: first took it at step 2, test_lockdep.cpp:"),
               describe(r).c_str());
    CHECK_TEXT(has_line(v, " *** DEADLOCK ***"), describe(r).c_str());
}

TEST(Lockdep, a_three_class_cycle_names_the_whole_chain) {
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<Ordered>();
        spawn("ab", [&s] { take_two(&s.A, &s.B); });
        spawn("bc", [&s] { take_two(&s.B, &s.C); });
        spawn("ca", [&s] { take_two(&s.C, &s.A); });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::lock_order, v.kind);
    CHECK_TEXT(contains(v.message, "A --> B --> C"), v.message.c_str());
}

TEST(Lockdep, two_locks_of_one_class_need_a_nesting_annotation) {
    const SearchResult plain = check_model([] {
        auto& s = this_execution().make<Siblings>();
        spawn("t", [&s] { take_two(&s.left, &s.right); });
    });
    const Violation& v = only_violation(plain);
    CHECK_EQUAL(ViolationKind::lock_order, v.kind);
    CHECK_EQUAL("recursive-locking", v.property);

    const SearchResult nested = check_model([] {
        auto& s = this_execution().make<Siblings>();
        spawn("t", [&s] { lock_nested(&s.left, 1, &s.right, 2); });
    });
    expect_verified(nested);
}

TEST(Lockdep, siblings_locked_in_both_orders_by_subclass_are_a_cycle) {
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<Siblings>();
        spawn("left-first", [&s] { lock_nested(&s.left, 1, &s.right, 2); });
        spawn("right-first", [&s] { lock_nested(&s.right, 2, &s.left, 1); });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::lock_order, v.kind);
    CHECK_TEXT(contains(v.message, "eb/2 --> eb/1"), v.message.c_str());
}

TEST(Lockdep, a_trylock_in_the_reverse_order_adds_no_dependency) {
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<Ordered>();
        spawn("lock", [&s] { take_two(&s.A, &s.B); });
        spawn("trylock", [&s] {
            mutex_lock(&s.B);
            if (mutex_trylock(&s.A)) mutex_unlock(&s.A);
            mutex_unlock(&s.B);
        });
    });
    expect_verified(r);
}

TEST(Lockdep, rwsem_readers_are_not_recursive_so_a_read_abba_is_a_cycle) {
    struct Sems {
        rw_semaphore A{"A"};
        rw_semaphore B{"B"};
    };
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<Sems>();
        spawn("ab", [&s] {
            down_read(&s.A);
            down_read(&s.B);
            up_read(&s.B);
            up_read(&s.A);
        });
        spawn("ba", [&s] {
            down_read(&s.B);
            down_read(&s.A);
            up_read(&s.A);
            up_read(&s.B);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::lock_order, v.kind);
}

TEST(Lockdep, lockdep_off_leaves_the_real_deadlock_to_the_wait_for_check) {
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<Ordered>();
        lockdep_off();
        spawn("ab", [&s] { take_two(&s.A, &s.B); });
        spawn("ba", [&s] { take_two(&s.B, &s.A); });
    });
    CHECK_EQUAL(ViolationKind::deadlock, only_violation(r).kind);
}

TEST(Lockdep, lockdep_assert_held_passes_under_the_lock_and_fails_without_it) {
    expect_verified(check_model([] {
        auto& s = this_execution().make<Ordered>();
        spawn("holder", [&s] {
            mutex_lock(&s.A);
            lockdep_assert_held(&s.A);
            mutex_unlock(&s.A);
        });
    }));
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<Ordered>();
        spawn("careless", [&s] { lockdep_assert_held(&s.A); });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::lock_misuse, v.kind);
    CHECK_EQUAL("lockdep-assert-held", v.property);
}
