// Sleeps a timeout may end (issue 40): schedule_timeout(), wait_event_timeout() and
// wait_var_event_timeout(). Time is not modelled: the timer may expire at any step at which the
// waiter sleeps, so a waiter nobody wakes times out (returns 0) rather than hanging, every
// search reaches both the wake-up and the expiry, and a return other than 0 means the
// condition held (1 if it came true only after the expiry, as ___wait_cond_timeout() says).
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

constexpr long kTimeout = 10;

struct var_wait {
    atomic_t users{"users", 1};
    wait_queue_head_t wq{"wq"};
    shared<int> done{"done"};
};

enum class Wait { var, queue };
enum class Expect { woken, condition_held };

// A waiter for users to drop to 0 (wait_var_event_timeout()) or for done (wait_event_timeout());
// a task that makes it so and, if `wakes`, wakes the waiter. The waiter checks `expect` of
// what it got back.
Setup waiter_and_waker(Wait how, bool wakes, Expect expect) {
    return [how, wakes, expect] {
        var_wait& s = model_state<var_wait>();
        spawn("waiter", [&s, how, expect] {
            const long ret =
                how == Wait::var
                    ? wait_var_event_timeout(&s.users, atomic_read(&s.users) == 0, kTimeout)
                    : wait_event_timeout(s.wq, READ_ONCE(s.done) == 1, kTimeout);
            const bool held =
                how == Wait::var ? atomic_read(&s.users) == 0 : READ_ONCE(s.done) == 1;
            if (expect == Expect::woken)
                check(ret == kTimeout, "the waiter was woken before its timeout");
            else
                check(ret == 0 || (held && (ret == 1 || ret == kTimeout)),
                      "a return other than 0 means the condition held");
        });
        spawn("waker", [&s, how, wakes] {
            if (how == Wait::var) {
                if (atomic_dec_and_test(&s.users) && wakes) wake_up_var(&s.users);
            } else {
                WRITE_ONCE(s.done, 1);
                if (wakes) wake_up(&s.wq);
            }
        });
    };
}

} // namespace

TEST_GROUP(WaitTimeout){};

TEST(WaitTimeout, a_waiter_nobody_wakes_times_out_instead_of_hanging) {
    for (Wait how : {Wait::var, Wait::queue})
        expect_verified_by_every_search(waiter_and_waker(how, false, Expect::condition_held),
                                        how == Wait::var ? "wait_var_event_timeout, no wake-up"
                                                         : "wait_event_timeout, no wake-up");
}

TEST(WaitTimeout, every_search_reaches_the_expiry_before_the_wake_up) {
    for (Wait how : {Wait::var, Wait::queue})
        expect_found_by_every_search(
            waiter_and_waker(how, true, Expect::woken), ViolationKind::check_failed,
            "the waiter was woken before its timeout",
            how == Wait::var ? "wait_var_event_timeout" : "wait_event_timeout");
}

TEST(WaitTimeout, a_return_other_than_zero_means_the_condition_held) {
    for (Wait how : {Wait::var, Wait::queue})
        expect_verified_by_every_search(waiter_and_waker(how, true, Expect::condition_held),
                                        how == Wait::var ? "wait_var_event_timeout"
                                                         : "wait_event_timeout");
}

// MAX_SCHEDULE_TIMEOUT is no timeout: schedule_timeout() sleeps as schedule() does, and a
// waiter nobody wakes hangs.
TEST(WaitTimeout, schedule_timeout_with_max_schedule_timeout_is_schedule) {
    const SearchResult r = check_model([] {
        var_wait& s = model_state<var_wait>();
        spawn("waiter", [&s] {
            DEFINE_WAIT(wait);
            prepare_to_wait(&s.wq, &wait, TASK_UNINTERRUPTIBLE);
            check(schedule_timeout(MAX_SCHEDULE_TIMEOUT) == MAX_SCHEDULE_TIMEOUT,
                  "no timeout returns it");
            finish_wait(&s.wq, &wait);
        });
    });
    const Violation& v = only_violation(r, "schedule_timeout(MAX_SCHEDULE_TIMEOUT)");
    CHECK_EQUAL(ViolationKind::hang, v.kind);
}
