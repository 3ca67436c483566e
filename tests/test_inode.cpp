// The inode helpers: inode_dio_wait() returns at once when no direct I/O is in flight and
// otherwise sleeps until the last inode_dio_end(), with no lost wake-up in any interleaving;
// i_size_read()/i_size_write() are scheduling points; inode_lock is i_rwsem taken for write.
#include <map>
#include <set>
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct File {
    struct inode ino {
        "ino"
    };
    struct completion started {
        "started"
    };
};

// `dios` tasks each run one direct I/O; the waiter waits for all of them to have started,
// then for them to end.
Setup dio_and_waiter(int dios) {
    return [dios] {
        auto& f = this_execution().make<File>();
        for (int i = 0; i < dios; ++i)
            spawn("dio" + std::to_string(i), [&f] {
                inode_dio_begin(&f.ino);
                complete(&f.started);
                inode_dio_end(&f.ino);
            });
        spawn("truncate", [&f, dios] {
            for (int i = 0; i < dios; ++i)
                wait_for_completion(&f.started);
            inode_dio_wait(&f.ino);
            check(f.ino.i_dio_count.peek() == 0, "no direct I/O after inode_dio_wait");
        });
    };
}

} // namespace

TEST_GROUP(Inode){};

TEST(Inode, inode_dio_wait_with_no_direct_io_returns_at_once) {
    const SearchResult r = check_model([] {
        auto& f = this_execution().make<File>();
        spawn("truncate", [&f] { inode_dio_wait(&f.ino); });
    });
    expect_verified(r);
    CHECK_EQUAL(1ul, r.stats.executions);
    CHECK_EQUAL(1ul, r.stats.steps); // the one atomic_read of i_dio_count
    CHECK_EQUAL(0ul, r.stats.total.sleeps);
}

TEST(Inode, inode_dio_wait_sleeps_until_inode_dio_end_with_no_lost_wake_up) {
    const SearchResult r = check_model(dio_and_waiter(1));
    expect_verified(r);
    CHECK_EQUAL(0ul, r.stats.cut);
    // In some interleaving the waiter really slept in inode_dio_wait and was woken (and the
    // completion that orders the tasks handed off once: a wake-up too).
    CHECK_EQUAL(2ul, r.stats.most.wakeups);
}

TEST(Inode, inode_dio_wait_waits_for_the_last_of_two_direct_ios) {
    const SearchResult r = check_model(dio_and_waiter(2));
    expect_verified(r);
    CHECK_EQUAL(0ul, r.stats.cut);
    // dio0 ends (the count reaches 0) and dio1 begins before dio0 looks for waiters: its late
    // wake_up finds the waiter queued behind dio1. The waiter re-reads the count and sleeps
    // again until dio1's wake_up: 2 wake-ups in that execution, harmless (plus the two
    // completion hand-offs that order the tasks).
    CHECK_EQUAL(4ul, r.stats.most.wakeups);

    // That execution: dio0 = 0, dio1 = 1, truncate = 2.
    const Schedule late_wake_up{0, 0, 0,       // begin, complete, the count reaches 0
                                1, 1,          // dio1 begins
                                2, 2, 2, 2, 2, // waits, reads 1, queues, reads 1
                                0, 0,          // waitqueue_active, wake_up
                                2, 2, 2, 2,    // schedule, reads 1, queues, reads 1
                                1, 1, 1,       // the count reaches 0, wake_up
                                2, 2, 2};      // schedule, reads 0, finish_wait
    const ReplayResult rr = replay(dio_and_waiter(2), late_wake_up, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    CHECK(!rr.outcome.violation.has_value());
    // The two wake_up()s, and the completion hand-off that let the waiter start.
    CHECK_EQUAL(3ul, rr.stats.total.wakeups);
    // One wait for the dios to start, and each schedule() was blocked for some steps.
    CHECK_EQUAL(3ul, rr.stats.total.sleeps);
}

TEST(Inode, inode_dio_end_without_a_waiter_wakes_nobody) {
    const SearchResult r = check_model([] {
        auto& f = this_execution().make<File>();
        spawn("dio", [&f] {
            inode_dio_begin(&f.ino);
            inode_dio_end(&f.ino);
        });
    });
    expect_verified(r);
    CHECK_EQUAL(0ul, r.stats.total.wakeups);
    // atomic_inc, atomic_dec_and_test, waitqueue_active
    CHECK_EQUAL(3ul, r.stats.steps);
}

TEST(Inode, i_size_read_and_i_size_write_are_scheduling_points) {
    std::map<long long, int> seen;
    const Setup setup = [&seen] {
        auto& f = this_execution().make<File>();
        spawn("writer", [&f] { i_size_write(&f.ino, 4096); });
        spawn("reader", [&f, &seen] { ++seen[i_size_read(&f.ino)]; });
    };
    const SearchResult r = check_model(setup);
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
    CHECK_EQUAL(1, seen[0]);
    CHECK_EQUAL(1, seen[4096]);

    const ReplayResult rr = replay(setup, Schedule{0, 1}, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    CHECK_EQUAL(2u, rr.trace.steps.size());
    CHECK_EQUAL("i_size_write", rr.trace.steps[0].operation);
    CHECK_EQUAL("ino.i_size", rr.trace.steps[0].object);
    CHECK_EQUAL("i_size_read", rr.trace.steps[1].operation);
    CHECK_TEXT(rr.trace.steps[1].value == 4096, "the read did not see the write");
}

TEST(Inode, inode_lock_excludes_shared_holders_and_shared_holders_coexist) {
    const auto count = [](bool first_exclusive) {
        return check_model([first_exclusive] {
                   auto& f = this_execution().make<File>();
                   spawn("a", [&f, first_exclusive] {
                       if (first_exclusive) {
                           inode_lock(&f.ino);
                           inode_unlock(&f.ino);
                       } else {
                           inode_lock_shared(&f.ino);
                           inode_unlock_shared(&f.ino);
                       }
                   });
                   spawn("b", [&f] {
                       inode_lock_shared(&f.ino);
                       inode_unlock_shared(&f.ino);
                   });
               })
            .stats.executions;
    };
    CHECK_EQUAL(2ul, count(true));  // one after the other
    CHECK_EQUAL(6ul, count(false)); // every interleaving of 2 + 2 steps
}

TEST(Inode, inode_dio_wait_under_the_inode_lock_against_a_dio_that_needs_it_is_a_deadlock) {
    // The waiter sleeps for the task with direct I/O in flight, which waits for the inode
    // lock the sleeper holds: the wait-for graph goes through the dio wait queue.
    const SearchResult r = check_model([] {
        auto& f = this_execution().make<File>();
        spawn("dio", [&f] {
            inode_dio_begin(&f.ino);
            complete(&f.started);
            inode_lock(&f.ino);
            inode_unlock(&f.ino);
            inode_dio_end(&f.ino);
        });
        spawn("truncate", [&f] {
            wait_for_completion(&f.started);
            inode_lock(&f.ino);
            inode_dio_wait(&f.ino);
            inode_unlock(&f.ino);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::deadlock, v.kind);
    CHECK_TEXT(contains(v.message, "truncate -> dio -> truncate") ||
                   contains(v.message, "dio -> truncate -> dio"),
               v.message.c_str());
}
