// Sleeping and waking: a lost wake-up (the condition tested before the sleeper is on the
// queue, or before it sets its sleep state) must be reported as a hang, and the correct
// patterns, prepare_to_wait-then-recheck, wait_event and set_current_state-then-test, must
// be verified, with no false hang in any interleaving.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Event {
    shared<int> done{"done"};
    wait_queue_head_t wq{"wq"};
    task_struct* sleeper = nullptr; // for wake_up_process
};

using Sleep = void (*)(Event& e);
using Wake = void (*)(Event& e);

// Broken: a wake_up between the test and prepare_to_wait finds no one on the queue.
void test_then_prepare_to_wait(Event& e) {
    if (READ_ONCE(e.done)) return;
    DEFINE_WAIT(wait);
    prepare_to_wait(&e.wq, &wait, TASK_UNINTERRUPTIBLE);
    schedule();
    finish_wait(&e.wq, &wait);
}

// The kernel's wait loop: on the queue and asleep first, then test.
void prepare_to_wait_then_test(Event& e) {
    DEFINE_WAIT(wait);
    for (;;) {
        prepare_to_wait(&e.wq, &wait, TASK_UNINTERRUPTIBLE);
        if (READ_ONCE(e.done)) break;
        schedule();
    }
    finish_wait(&e.wq, &wait);
}

void wait_event_done(Event& e) {
    wait_event(e.wq, READ_ONCE(e.done));
}

// Broken: a wake_up_process between the test and set_current_state finds the task running.
void test_then_set_current_state(Event& e) {
    if (READ_ONCE(e.done)) return;
    set_current_state(TASK_UNINTERRUPTIBLE);
    schedule();
}

void set_current_state_then_test(Event& e) {
    set_current_state(TASK_UNINTERRUPTIBLE);
    if (!READ_ONCE(e.done)) schedule();
    __set_current_state(TASK_RUNNING);
}

void wake_up_queue(Event& e) {
    WRITE_ONCE(e.done, 1);
    wake_up(&e.wq);
}

// The usual shortcut: skip the wake-up when no one is queued (the barrier it needs is
// implied here, where every step is sequentially consistent).
void wake_up_if_active(Event& e) {
    WRITE_ONCE(e.done, 1);
    if (waitqueue_active(&e.wq)) wake_up(&e.wq);
}

void wake_up_sleeper(Event& e) {
    WRITE_ONCE(e.done, 1);
    wake_up_process(e.sleeper);
}

SearchResult check_sleep(Sleep sleep, Wake wake, MemoryModel model = MemoryModel::sc) {
    CheckOptions options;
    options.memory_model = model;
    return check_model(
        [sleep, wake] {
            auto& e = this_execution().make<Event>();
            spawn("sleeper", [&e, sleep] {
                e.sleeper = current(); // before its first step, so before the waker's
                sleep(e);
            });
            spawn("waker", [&e, wake] { wake(e); });
        },
        options);
}

void expect_lost_wake_up(const SearchResult& r) {
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::hang, v.kind);
    CHECK_EQUAL("hang", v.property);
    CHECK_TEXT(contains(v.message, "sleeper in schedule"), v.message.c_str());
    CHECK_TEXT(!contains(v.message, "waker"), v.message.c_str()); // it has finished
}

void expect_no_hang(const SearchResult& r) {
    expect_verified(r);
    CHECK_EQUAL(0ul, r.stats.cut);
    CHECK_TEXT(r.stats.executions > 1, "only one interleaving: the race was never tried");
}

} // namespace

TEST_GROUP(Wait){};

TEST(Wait, condition_tested_before_prepare_to_wait_loses_the_wake_up_and_hangs) {
    expect_lost_wake_up(check_sleep(test_then_prepare_to_wait, wake_up_queue));
}

TEST(Wait, condition_tested_before_set_current_state_loses_the_wake_up_and_hangs) {
    expect_lost_wake_up(check_sleep(test_then_set_current_state, wake_up_sleeper));
}

TEST(Wait, prepare_to_wait_then_recheck_never_hangs) {
    expect_no_hang(check_sleep(prepare_to_wait_then_test, wake_up_queue));
    expect_no_hang(check_sleep(prepare_to_wait_then_test, wake_up_if_active));
}

TEST(Wait, wait_event_never_hangs) {
    expect_no_hang(check_sleep(wait_event_done, wake_up_queue));
    expect_no_hang(check_sleep(wait_event_done, wake_up_if_active));
}

TEST(Wait, set_current_state_then_test_never_hangs) {
    expect_no_hang(check_sleep(set_current_state_then_test, wake_up_sleeper));
}

TEST(Wait, sleeping_with_no_one_to_wake_is_a_hang_naming_the_queue) {
    const SearchResult r = check_model([] {
        auto& e = this_execution().make<Event>();
        spawn("sleeper", [&e] { prepare_to_wait_then_test(e); });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::hang, v.kind);
    CHECK_EQUAL("hang: no task can run and nothing can wake sleeper in schedule(wq)", v.message);
}

// Under lkmm the sleeper's set_current_state() is smp_store_mb() and the waker's
// wake_up_process() a full barrier before it reads the task's state (try_to_wake_up()'s
// smp_mb__after_spinlock()): store buffering with a barrier on each side, so the sleeper that
// goes to sleep is seen and woken. Without them lockcheck would report a hang the kernel never
// has.
TEST(Wait, under_lkmm_set_current_state_then_test_never_hangs) {
    expect_no_hang(check_sleep(set_current_state_then_test, wake_up_sleeper, MemoryModel::lkmm));
}

// __set_current_state() has no barrier: the sleeper's read of the condition may miss the
// waker's store while the waker's read of the state misses the sleeper's, and it sleeps for
// good. Sequential consistency hides it.
void unordered_state_then_test(Event& e) {
    __set_current_state(TASK_UNINTERRUPTIBLE);
    if (!READ_ONCE(e.done)) schedule();
    __set_current_state(TASK_RUNNING);
}

TEST(Wait, under_lkmm___set_current_state_then_test_loses_the_wake_up) {
    expect_no_hang(check_sleep(unordered_state_then_test, wake_up_sleeper));
    expect_lost_wake_up(check_sleep(unordered_state_then_test, wake_up_sleeper, MemoryModel::lkmm));
}
