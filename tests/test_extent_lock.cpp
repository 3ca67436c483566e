// Extent range locks: lock_extent() excludes exactly the overlapping ranges (btrfs ranges are
// inclusive), a cycle of tasks each waiting for the other's range is a deadlock named through
// the range holders, and misuse (unlocking a range not locked, locking over one's own range,
// sleeping under a spinlock) is reported. Ranges have no owner: exiting with one is allowed.
#include <cstdint>
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Range {
    std::uint64_t start;
    std::uint64_t end;
};

struct Tree {
    extent_io_tree io_tree{"io_tree"};
    atomic_t inside{"inside"}; // tasks between lock_extent and unlock_extent
};

// Two tasks each lock one range, step inside it, and unlock it; the invariant says whether
// both were ever inside at once.
SearchResult lock_two_ranges(Range first, Range second) {
    return check_model([first, second] {
        auto& t = this_execution().make<Tree>();
        int i = 0;
        for (Range r : {first, second})
            spawn("t" + std::to_string(i++), [&t, r] {
                lock_extent(&t.io_tree, r.start, r.end);
                atomic_inc(&t.inside);
                atomic_dec(&t.inside);
                unlock_extent(&t.io_tree, r.start, r.end);
            });
        invariant("one task inside", [&t] { return t.inside.peek() <= 1; });
    });
}

} // namespace

TEST_GROUP(ExtentLock){};

TEST(ExtentLock, overlapping_ranges_exclude_each_other) {
    const SearchResult r = lock_two_ranges({0, 4095}, {4000, 8191});
    expect_verified(r);
    // Whoever locks first runs its 4 steps before the other starts: 2 executions.
    CHECK_EQUAL(2ul, r.stats.executions);
}

TEST(ExtentLock, ranges_sharing_one_byte_overlap_because_the_end_is_inclusive) {
    const SearchResult r = lock_two_ranges({0, 4096}, {4096, 8191});
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
}

TEST(ExtentLock, disjoint_ranges_do_not_exclude_each_other) {
    // Adjacent but disjoint: every interleaving of 4 + 4 steps, so both are inside at once
    // in some of them (the invariant fails).
    const SearchResult r = lock_two_ranges({0, 4095}, {4096, 8191});
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::invariant, v.kind);
    CHECK_EQUAL("one task inside", v.property);
}

TEST(ExtentLock, disjoint_ranges_give_every_interleaving) {
    const SearchResult r = check_model([] {
        auto& t = this_execution().make<Tree>();
        spawn("low", [&t] {
            lock_extent(&t.io_tree, 0, 4095);
            unlock_extent(&t.io_tree, 0, 4095);
        });
        spawn("high", [&t] {
            lock_extent(&t.io_tree, 8192, 12287);
            unlock_extent(&t.io_tree, 8192, 12287);
        });
    });
    expect_verified(r);
    CHECK_EQUAL(6ul, r.stats.executions); // (2 + 2)! / (2! 2!)
    CHECK_EQUAL(0ul, r.stats.total.sleeps);
}

TEST(ExtentLock, a_task_waiting_for_an_overlapping_range_counts_one_sleep) {
    const SearchResult r = check_model([] {
        auto& t = this_execution().make<Tree>();
        spawn("a", [&t] {
            lock_extent(&t.io_tree, 0, 4095);
            unlock_extent(&t.io_tree, 0, 4095);
        });
        spawn("b", [&t] {
            lock_extent(&t.io_tree, 0, 4095);
            unlock_extent(&t.io_tree, 0, 4095);
        });
    });
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
    CHECK_EQUAL(2ul, r.stats.total.sleeps);
    CHECK_EQUAL(1ul, r.stats.most.sleeps);
}

TEST(ExtentLock, each_task_holding_one_range_and_waiting_for_the_others_is_a_deadlock) {
    const SearchResult r = check_model([] {
        auto& t = this_execution().make<Tree>();
        spawn("a", [&t] {
            lock_extent(&t.io_tree, 0, 4095);
            lock_extent(&t.io_tree, 4096, 8191);
            unlock_extent(&t.io_tree, 4096, 8191);
            unlock_extent(&t.io_tree, 0, 4095);
        });
        spawn("b", [&t] {
            lock_extent(&t.io_tree, 4096, 8191);
            lock_extent(&t.io_tree, 0, 4095);
            unlock_extent(&t.io_tree, 0, 4095);
            unlock_extent(&t.io_tree, 4096, 8191);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::deadlock, v.kind);
    CHECK_EQUAL("deadlock", v.property);
    // Both wait on the same tree: only the holder of the overlapping range closes the cycle.
    CHECK_EQUAL("deadlock: wait-for cycle a -> b -> a", v.message);
    CHECK_EQUAL(2u, v.details.size());
    // Each names the model's line of the lock_extent() it is blocked in.
    CHECK_TEXT(
        v.details[0].starts_with("a: blocked in lock_extent(io_tree) (test_extent_lock.cpp:"),
        v.details[0].c_str());
    CHECK_TEXT(
        v.details[1].starts_with("b: blocked in lock_extent(io_tree) (test_extent_lock.cpp:"),
        v.details[1].c_str());
    for (const std::string& d : v.details)
        CHECK_TEXT(d.ends_with("), locked: 0-4095 by a 4096-8191 by b"), d.c_str());
}

TEST(ExtentLock, a_waiter_on_a_range_whose_locker_exited_is_a_hang_not_a_deadlock) {
    const SearchResult r = check_model([] {
        auto& t = this_execution().make<Tree>();
        spawn("leaker", [&t] { lock_extent(&t.io_tree, 0, 4095); });
        spawn("waiter", [&t] {
            lock_extent(&t.io_tree, 100, 200);
            unlock_extent(&t.io_tree, 100, 200);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::hang, v.kind);
    CHECK_TEXT(contains(v.message, "waiter in lock_extent(io_tree)"), v.message.c_str());
}

TEST(ExtentLock, another_task_may_unlock_a_range_as_io_completion_does) {
    const SearchResult r = check_model([] {
        struct Io {
            Tree t;
            struct completion submitted {
                "submitted"
            };
        };
        auto& io = this_execution().make<Io>();
        spawn("submitter", [&io] {
            lock_extent(&io.t.io_tree, 0, 4095);
            complete(&io.submitted);
        });
        spawn("end_io", [&io] {
            wait_for_completion(&io.submitted);
            unlock_extent(&io.t.io_tree, 0, 4095);
        });
        final_check("no range left locked", [&io] { return io.t.io_tree.nr == 0; });
    });
    expect_verified(r);
}

TEST(ExtentLock, unlocking_a_range_that_is_not_locked_is_lock_misuse) {
    const SearchResult r = check_model([] {
        auto& t = this_execution().make<Tree>();
        spawn("t", [&t] { unlock_extent(&t.io_tree, 0, 4095); });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::lock_misuse, v.kind);
    CHECK_EQUAL("bad-unlock", v.property);
    CHECK_EQUAL("bad unlock balance detected: t calls unlock_extent(0-4095, io_tree) but that "
                "range is not locked",
                v.message);
}

TEST(ExtentLock, unlocking_a_different_range_than_the_one_locked_is_lock_misuse) {
    const SearchResult r = check_model([] {
        auto& t = this_execution().make<Tree>();
        spawn("t", [&t] {
            lock_extent(&t.io_tree, 0, 8191);
            unlock_extent(&t.io_tree, 0, 4095);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::lock_misuse, v.kind);
    CHECK_EQUAL("bad-unlock", v.property);
}

TEST(ExtentLock, locking_a_range_that_overlaps_one_the_task_holds_is_reported) {
    const SearchResult r = check_model([] {
        auto& t = this_execution().make<Tree>();
        spawn("t", [&t] {
            lock_extent(&t.io_tree, 0, 4095);
            lock_extent(&t.io_tree, 2048, 6143);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::lock_misuse, v.kind);
    CHECK_EQUAL("recursive-locking", v.property);
    CHECK_EQUAL("possible recursive locking detected: t calls lock_extent(io_tree) while holding "
                "it",
                v.message);
}

TEST(ExtentLock, a_task_may_hold_two_disjoint_ranges_of_one_tree) {
    const SearchResult r = check_model([] {
        auto& t = this_execution().make<Tree>();
        spawn("t", [&t] {
            lock_extent(&t.io_tree, 0, 4095);
            lock_extent(&t.io_tree, 4096, 8191);
            unlock_extent(&t.io_tree, 0, 4095);
            unlock_extent(&t.io_tree, 4096, 8191);
        });
    });
    expect_verified(r);
}

TEST(ExtentLock, lock_extent_under_a_spinlock_is_sleeping_in_atomic) {
    const SearchResult r = check_model([] {
        struct Locked {
            spinlock_t lock{"lock"};
            Tree t;
        };
        auto& s = this_execution().make<Locked>();
        spawn("t", [&s] {
            spin_lock(&s.lock);
            lock_extent(&s.t.io_tree, 0, 4095);
            unlock_extent(&s.t.io_tree, 0, 4095);
            spin_unlock(&s.lock);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::sleep_in_atomic, v.kind);
    CHECK_TEXT(contains(v.message, "lock_extent(io_tree)"), v.message.c_str());
}
