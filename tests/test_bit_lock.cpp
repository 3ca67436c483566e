// Bit locks and bit waits: bit_spin_lock() excludes as a spinlock does, with preemption off and
// no lockdep (a deadlock through one is a hang, never a lockdep report, as in the kernel);
// clear_bit_unlock() is a release and test_and_set_bit_lock() an acquire under lkmm, clear_bit()
// is not. wait_on_bit(), wait_on_bit_lock() and wait_var_event() sleep until woken; a waiter
// nobody wakes is a hang naming the bit or the variable, and under lkmm a waker without the
// barrier before wake_up_var() can miss its waiter.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

constexpr int BH_Lock = 3; // a buffer head's lock bit, as include/linux/buffer_head.h numbers it

struct Buffer {
    explicit Buffer(unsigned long state = 0) : b_state("b_state", state) {}
    bitmap_word b_state;
    shared<int> count{"count"};
    spinlock_t lock{"lock"};
    struct mutex m {
        "m"
    };
    atomic_t users{"users", 1};
    shared<int> done{"done"};
};

SearchResult check_lkmm(const Setup& setup) {
    CheckOptions options;
    options.memory_model = MemoryModel::lkmm;
    return check_model(setup, options);
}

// The bit held at the start.
Buffer& locked_buffer() {
    return this_execution().make<Buffer>(1UL << BH_Lock);
}

// Two tasks on two CPUs count under the bit, released by `unlock`.
Setup two_counters(void (*unlock)(Buffer& b)) {
    return [unlock] {
        set_nr_cpus(2);
        Buffer& b = model_state<Buffer>();
        for (const int cpu : {0, 1})
            spawn_on(cpu, cpu ? "two" : "one", [&b, unlock] {
                bit_spin_lock(BH_Lock, &b.b_state);
                b.count.write(b.count.read() + 1);
                unlock(b);
            });
        final_check("both counted", [&b] { return b.count.peek() == 2; });
    };
}

const Violation& expect_hang(const SearchResult& r, const std::string& on) {
    const Violation& v = only_violation(r, on);
    CHECK_EQUAL_TEXT(ViolationKind::hang, v.kind, on.c_str());
    CHECK_TEXT(contains(v.message, "schedule(" + on + ")"), v.message.c_str());
    return v;
}

} // namespace

TEST_GROUP(BitLock){};

TEST(BitLock, bit_spin_lock_excludes_under_sc_and_under_lkmm) {
    const Setup setup = two_counters([](Buffer& b) { bit_spin_unlock(BH_Lock, &b.b_state); });
    expect_verified_by_every_search(setup, "bit_spin_unlock");
    const SearchResult lkmm = check_lkmm(setup);
    expect_verified(lkmm, "lkmm");
    CHECK(lkmm.stats.executions > 1);
    expect_verified(
        check_lkmm(two_counters([](Buffer& b) { __bit_spin_unlock(BH_Lock, &b.b_state); })),
        "__bit_spin_unlock under lkmm");
}

TEST(BitLock, under_lkmm_clear_bit_is_no_release_and_the_next_holder_races) {
    const Setup setup = two_counters([](Buffer& b) {
        clear_bit(BH_Lock, &b.b_state);
        preempt_enable();
    });
    expect_verified(check_model(setup), "sc");
    const SearchResult r = check_lkmm(setup);
    CHECK_EQUAL(ViolationKind::data_race, only_violation(r).kind);
}

TEST(BitLock, trylock_and_is_locked_see_the_holder) {
    std::string seen;
    expect_verified(check_model([&seen] {
        Buffer& b = model_state<Buffer>();
        spawn("t", [&b, &seen] {
            seen += std::to_string(bit_spin_trylock(BH_Lock, &b.b_state));
            seen += std::to_string(bit_spin_is_locked(BH_Lock, &b.b_state));
            seen += std::to_string(bit_spin_trylock(BH_Lock, &b.b_state));
            bit_spin_unlock(BH_Lock, &b.b_state);
            seen += std::to_string(bit_spin_is_locked(BH_Lock, &b.b_state));
        });
    }));
    CHECK_EQUAL("1100", seen);
}

TEST(BitLock, sleeping_under_a_bit_spinlock_is_reported) {
    const SearchResult r = check_model([] {
        Buffer& b = model_state<Buffer>();
        spawn("t", [&b] {
            bit_spin_lock(BH_Lock, &b.b_state);
            mutex_lock(&b.m);
        });
    });
    CHECK_EQUAL(ViolationKind::sleep_in_atomic, only_violation(r).kind);
}

TEST(BitLock, unlocking_a_bit_not_held_is_the_kernels_bug_on) {
    const SearchResult r = check_model([] {
        Buffer& b = model_state<Buffer>();
        spawn("t", [&b] {
            preempt_disable();
            bit_spin_unlock(BH_Lock, &b.b_state);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::lock_misuse, v.kind);
    CHECK_TEXT(contains(v.message, "BUG_ON(!test_bit(bitnum, addr))"), v.message.c_str());
}

TEST(BitLock, lockdep_does_not_see_a_bit_lock_and_an_abba_through_one_is_a_hang) {
    const SearchResult r = check_model([] {
        Buffer& b = model_state<Buffer>();
        spawn("one", [&b] {
            bit_spin_lock(BH_Lock, &b.b_state);
            spin_lock(&b.lock);
            spin_unlock(&b.lock);
            bit_spin_unlock(BH_Lock, &b.b_state);
        });
        spawn("two", [&b] {
            spin_lock(&b.lock);
            bit_spin_lock(BH_Lock, &b.b_state);
            bit_spin_unlock(BH_Lock, &b.b_state);
            spin_unlock(&b.lock);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_TEXT(v.kind == ViolationKind::hang || v.kind == ViolationKind::deadlock ||
                   v.kind == ViolationKind::livelock,
               describe(r).c_str());
}

TEST_GROUP(WaitBit){};

TEST(WaitBit, wait_on_bit_returns_once_clear_and_wake_up_bit_ran) {
    const Setup setup = [] {
        Buffer& b = locked_buffer();
        spawn("waiter", [&b] {
            wait_on_bit(&b.b_state, BH_Lock, TASK_UNINTERRUPTIBLE);
            check(READ_ONCE(b.count) == 1, "the holder's count seen");
        });
        spawn("holder", [&b] {
            WRITE_ONCE(b.count, 1);
            clear_and_wake_up_bit(BH_Lock, &b.b_state);
        });
    };
    expect_verified_by_every_search(setup, "sc");
    expect_verified(check_lkmm(setup), "lkmm");
}

TEST(WaitBit, a_bit_cleared_without_wake_up_bit_leaves_its_waiter_asleep) {
    const SearchResult r = check_model([] {
        Buffer& b = locked_buffer();
        spawn("waiter", [&b] { wait_on_bit(&b.b_state, BH_Lock, TASK_UNINTERRUPTIBLE); });
        spawn("holder", [&b] { clear_bit_unlock(BH_Lock, &b.b_state); });
    });
    expect_hang(r, "bit_waitqueue(b_state, 3)");
}

TEST(WaitBit, wait_on_bit_lock_takes_the_bit_in_turn) {
    expect_verified_by_every_search(
        [] {
            Buffer& b = model_state<Buffer>();
            for (const char* name : {"one", "two"})
                spawn(name, [&b] {
                    wait_on_bit_lock(&b.b_state, BH_Lock, TASK_UNINTERRUPTIBLE);
                    b.count.write(b.count.read() + 1);
                    clear_and_wake_up_bit(BH_Lock, &b.b_state);
                });
            final_check("both counted", [&b] { return b.count.peek() == 2; });
        },
        "wait_on_bit_lock");
}

TEST(WaitBit, wait_var_event_returns_once_wake_up_var_follows_the_change) {
    auto setup = [](bool wakes) {
        return [wakes] {
            Buffer& b = model_state<Buffer>();
            spawn("waiter", [&b] { wait_var_event(&b.users, atomic_read(&b.users) == 0); });
            spawn("put", [&b, wakes] {
                if (atomic_dec_and_test(&b.users) && wakes) wake_up_var(&b.users);
            });
        };
    };
    expect_verified_by_every_search(setup(true), "wake_up_var");
    expect_hang(check_model(setup(false)), "__var_waitqueue(users)");
}

TEST(WaitBit, under_lkmm_wake_up_var_without_a_barrier_can_miss_its_waiter) {
    auto setup = [](bool barrier) {
        return [barrier] {
            Buffer& b = model_state<Buffer>();
            spawn("waiter", [&b] { wait_var_event(&b.done, READ_ONCE(b.done) == 1); });
            spawn("waker", [&b, barrier] {
                WRITE_ONCE(b.done, 1);
                if (barrier) smp_mb();
                wake_up_var(&b.done);
            });
        };
    };
    expect_verified(check_model(setup(false)), "sc");
    expect_verified(check_lkmm(setup(true)), "smp_mb()");
    expect_hang(check_lkmm(setup(false)), "__var_waitqueue(done)");
}
