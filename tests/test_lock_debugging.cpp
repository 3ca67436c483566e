// The checks the kernel's lock debugging makes (DEBUG_MUTEXES, DEBUG_SPINLOCK, lockdep,
// might_sleep): unlocking what one does not hold, taking a held lock again, returning with a
// lock held, and sleeping while atomic, each reported under its own kind, for every lock type.
#include <string>

#include "harness.hpp"
#include "lock_types.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

template <class Lock> struct OneLock {
    Lock A{"A"};
    shared<int> a_holds_it{"a_holds_it"};
    shared<int> never_set{"never_set"};
};

// What a sleeping call runs in: a spinlock to be atomic under, and things to sleep on.
struct Context {
    spinlock_t lock{"lock"};
    mutex m{"m"};
    rw_semaphore sem{"sem"};
    wait_queue_head_t wq{"wq"};
    completion done{"done"};
};

struct SleepingCall {
    const char* name; // as the report names the call
    void (*call)(Context& c);
};

const SleepingCall kSleepingCalls[] = {
    {"mutex_lock(m)", [](Context& c) { mutex_lock(&c.m); }},
    {"down_read(sem)", [](Context& c) { down_read(&c.sem); }},
    {"down_write(sem)", [](Context& c) { down_write(&c.sem); }},
    {"wait_event(wq)", [](Context& c) { wait_event(c.wq, false); }},
    {"wait_for_completion(done)", [](Context& c) { wait_for_completion(&c.done); }},
    {"schedule()", [](Context&) { schedule(); }},
};

} // namespace

TEST_GROUP(LockDebugging){};

TEST(LockDebugging, unlocking_a_lock_twice_is_lock_misuse) {
    for_each_lock_type([]<class Lock>() {
        using L = lock_type<Lock>;
        const SearchResult r = check_model([] {
            auto& l = this_execution().make<OneLock<Lock>>();
            spawn("a", [&l] {
                L::lock(&l.A);
                L::unlock(&l.A);
                L::unlock(&l.A);
            });
        });
        const Violation& v = only_violation(r, L::name);
        CHECK_EQUAL_TEXT(ViolationKind::lock_misuse, v.kind, L::name);
        CHECK_EQUAL_TEXT("bad-unlock", v.property, L::name);
        CHECK_TEXT(contains(v.message, "(A) but it is not held"), v.message.c_str());
    });
}

TEST(LockDebugging, unlocking_a_lock_another_task_holds_is_lock_misuse) {
    for_each_lock_type([]<class Lock>() {
        using L = lock_type<Lock>;
        const SearchResult r = check_keep_going([] {
            auto& l = this_execution().make<OneLock<Lock>>();
            // a takes the lock and keeps it while b, once it knows, releases it.
            spawn("a", [&l] {
                L::lock(&l.A);
                WRITE_ONCE(l.a_holds_it, 1);
                while (!READ_ONCE(l.never_set))
                    cpu_relax();
            });
            spawn("b", [&l] {
                while (!READ_ONCE(l.a_holds_it))
                    cpu_relax();
                L::unlock(&l.A);
            });
        });
        // Every execution ends in the same misuse, so keep_going still finds only it.
        const Violation& v = only_violation(r, L::name);
        CHECK_EQUAL_TEXT(ViolationKind::lock_misuse, v.kind, L::name);
        CHECK_EQUAL_TEXT("bad-unlock", v.property, L::name);
        CHECK_TEXT(contains(v.message, "b calls"), v.message.c_str());
        CHECK_TEXT(contains(v.message, "(A) but it is held by a"), v.message.c_str());
    });
}

TEST(LockDebugging, taking_a_lock_one_already_holds_is_recursive_locking) {
    for_each_lock_type([]<class Lock>() {
        using L = lock_type<Lock>;
        const SearchResult r = check_model([] {
            auto& l = this_execution().make<OneLock<Lock>>();
            spawn("a", [&l] {
                L::lock(&l.A);
                L::lock(&l.A);
            });
        });
        const Violation& v = only_violation(r, L::name);
        CHECK_EQUAL_TEXT(ViolationKind::lock_misuse, v.kind, L::name);
        CHECK_EQUAL_TEXT("recursive-locking", v.property, L::name);
    });
}

TEST(LockDebugging, returning_with_a_lock_held_is_lock_held_at_exit) {
    for_each_lock_type([]<class Lock>() {
        using L = lock_type<Lock>;
        const SearchResult r = check_model([] {
            auto& l = this_execution().make<OneLock<Lock>>();
            spawn("a", [&l] { L::lock(&l.A); });
        });
        const Violation& v = only_violation(r, L::name);
        CHECK_EQUAL_TEXT(ViolationKind::lock_held_at_exit, v.kind, L::name);
        CHECK_EQUAL_TEXT("lock-held-at-exit", v.property, L::name);
        CHECK_TEXT(contains(v.message, "a exited holding A"), v.message.c_str());
    });
}

TEST(LockDebugging, sleeping_while_holding_a_spinlock_is_sleep_in_atomic) {
    for (const SleepingCall& s : kSleepingCalls) {
        const SearchResult r = check_model([&s] {
            auto& c = this_execution().make<Context>();
            spawn("a", [&c, &s] {
                spin_lock(&c.lock);
                s.call(c);
                spin_unlock(&c.lock);
            });
        });
        const Violation& v = only_violation(r, s.name);
        CHECK_EQUAL_TEXT(ViolationKind::sleep_in_atomic, v.kind, s.name);
        CHECK_EQUAL_TEXT("sleep-in-atomic", v.property, s.name);
        CHECK_TEXT(contains(v.message, s.name), v.message.c_str());
        CHECK_TEXT(contains(v.message, "holding lock"), v.message.c_str());
    }
}

TEST(LockDebugging, sleeping_after_spin_unlock_or_under_a_mutex_is_allowed) {
    const SearchResult r = check_model([] {
        auto& c = this_execution().make<Context>();
        spawn("a", [&c] {
            spin_lock(&c.lock);
            spin_unlock(&c.lock);
            mutex_lock(&c.m);
            spin_lock(&c.lock);
            spin_unlock(&c.lock);
            down_write(&c.sem);
            up_write(&c.sem);
            mutex_unlock(&c.m);
            schedule();
        });
    });
    expect_verified(r);
}
