// Timers: an armed timer's callback runs in softirq context at any later step and before the
// execution ends; timer_delete_sync() waits for a running callback; a self-re-arming timer
// ends the search. The findings: a timer freed while armed (ODEBUG at the kfree) or whose
// callback runs on freed memory (KASAN), and del_timer_sync() under a lock the callback takes
// or from the callback (lockdep through the timer's map; the deadlock itself without lockdep).
// Every exhaustive search finds the same.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct dev {
    spinlock_t lock{"dev->lock"};
    timer_list timer{"dev->timer"};
    shared<int> fired{"dev->fired"};
};

void count_expiry(timer_list* t) {
    dev* d = from_timer(d, t, &dev::timer);
    d->fired.write(d->fired.read() + 1);
}

void locked_expiry(timer_list* t) {
    dev* d = from_timer(d, t, &dev::timer);
    spin_lock(&d->lock);
    d->fired.write(d->fired.read() + 1);
    spin_unlock(&d->lock);
}

// probe arms the timer on CPU 0; remove, on CPU 1, stops it with `stop` and frees the device.
enum class Stop { nothing, del, del_sync, shutdown };
Setup remove(Stop stop) {
    struct handoff {
        dev* d = nullptr;
        struct completion armed {
            "armed"
        };
    };
    return [stop] {
        set_nr_cpus(2);
        handoff& h = model_state<handoff>();
        spawn_on(0, "probe", [&h] {
            h.d = kmalloc<dev>("dev");
            timer_setup(&h.d->timer, count_expiry, 0);
            mod_timer(&h.d->timer, jiffies + HZ);
            complete(&h.armed);
        });
        spawn_on(1, "remove", [&h, stop] {
            wait_for_completion(&h.armed);
            switch (stop) {
            case Stop::nothing:
                break;
            case Stop::del:
                timer_delete(&h.d->timer);
                break;
            case Stop::del_sync:
                timer_delete_sync(&h.d->timer);
                break;
            case Stop::shutdown:
                timer_shutdown_sync(&h.d->timer);
                break;
            }
            kfree(h.d);
        });
    };
}

// del_timer_sync() holding the lock the callback takes; with `ran_first`, after the callback ran
// (so this execution cannot deadlock).
// With `bh`, the remover takes the lock with bottom halves off, as it must against a callback
// that takes it in softirq context (else lockdep reports that first).
Setup delete_under_lock(bool ran_first, int cpu, bool bh = true) {
    return [ran_first, cpu, bh] {
        set_nr_cpus(2);
        dev& d = model_state<dev>();
        timer_setup(&d.timer, locked_expiry, 0);
        spawn_on(cpu, "remove", [&d, ran_first, bh] {
            const auto lock = [&d, bh] { bh ? spin_lock_bh(&d.lock) : spin_lock(&d.lock); };
            const auto unlock = [&d, bh] { bh ? spin_unlock_bh(&d.lock) : spin_unlock(&d.lock); };
            mod_timer(&d.timer, jiffies + HZ);
            while (ran_first) {
                lock();
                const bool fired = d.fired.read() != 0;
                unlock();
                if (fired) break;
                cpu_relax();
            }
            lock();
            del_timer_sync(&d.timer);
            unlock();
        });
    };
}

} // namespace

TEST_GROUP(Timer){};

TEST(Timer, an_armed_timer_fires_before_the_execution_ends_in_softirq_context) {
    static thread_local bool in_softirq_context = true;
    in_softirq_context = true;
    const Setup setup = [] {
        dev& d = model_state<dev>();
        timer_setup(
            &d.timer,
            [](timer_list* t) {
                in_softirq_context = in_softirq_context && in_serving_softirq() && in_interrupt();
                count_expiry(t);
            },
            0);
        spawn("t", [&d] {
            check(!timer_pending(&d.timer), "pending before it was armed");
            mod_timer(&d.timer, jiffies + HZ);
        });
        final_check("fired once", [&d] { return d.fired.peek() == 1; });
    };
    expect_verified_by_every_search(setup, "armed");
    expect_dpor_reaches_what_dfs_does(setup, "armed");
    CHECK(in_softirq_context);
}

TEST(Timer, the_callback_may_run_at_every_step_after_the_arming) {
    // t arms, then takes three steps: the timer expires after each of them and after the arming.
    const Setup setup = [] {
        dev& d = model_state<dev>();
        timer_setup(
            &d.timer, [](timer_list*) {}, 0);
        spawn("t", [&d] {
            mod_timer(&d.timer, jiffies + HZ);
            for (int i = 0; i < 3; ++i)
                d.fired.write(i);
        });
    };
    const SearchResult r = check_model(setup);
    expect_verified(r);
    CHECK_EQUAL(4u, r.stats.executions);
}

TEST(Timer, timer_delete_sync_waits_for_a_running_callback_and_disarms) {
    static thread_local dev* d = nullptr;
    const Setup setup = [] {
        d = &model_state<dev>();
        timer_setup(
            &d->timer,
            [](timer_list*) {
                d->fired.write(1);
                d->fired.write(2);
            },
            0);
        set_nr_cpus(2);
        spawn_on(1, "t", [] {
            mod_timer(&d->timer, jiffies + HZ);
            timer_delete_sync(&d->timer);
            const int fired = d->fired.read();
            check(fired == 0 || fired == 2, "timer_delete_sync returned while the callback ran");
            check(!timer_pending(&d->timer), "armed after timer_delete_sync");
        });
        final_check("no expiry after the delete", [] { return d->fired.peek() != 1; });
    };
    expect_verified_by_every_search(setup, "timer_delete_sync");
}

TEST(Timer, a_self_rearming_timer_ends_the_search) {
    const Setup setup = [] {
        dev& d = model_state<dev>();
        timer_setup(
            &d.timer,
            [](timer_list* t) {
                count_expiry(t);
                mod_timer(t, jiffies + HZ);
            },
            0);
        spawn("t", [&d] {
            mod_timer(&d.timer, jiffies + HZ);
            spin_lock(&d.lock);
            spin_unlock(&d.lock);
        });
        final_check("fired at least once", [&d] { return d.fired.peek() >= 1; });
    };
    for (Search search : kExhaustiveSearches) {
        const SearchResult r = check_model(setup, search, {});
        expect_verified(r, search_name(search));
        CHECK_EQUAL_TEXT(0u, r.stats.cut, search_name(search));
    }
}

TEST(Timer, freeing_an_armed_timer_is_odebugs_report_and_a_callback_on_freed_memory_kasans) {
    expect_found_by_every_search(remove(Stop::nothing), ViolationKind::use_after_free,
                                 "use-after-free of dev", "kfree with the timer armed");
    const SearchResult r = check_model(remove(Stop::nothing));
    const Violation& v = only_violation(r);
    CHECK_TEXT(contains(v.message, "ODEBUG: free active object type: timer_list: kfree(dev) by "
                                   "remove at step"),
               v.message.c_str());
    // timer_delete() does not wait for a callback that runs: it goes on in freed memory.
    expect_found_by_every_search(remove(Stop::del), ViolationKind::use_after_free,
                                 "use-after-free of dev", "timer_delete then kfree");
    const SearchResult k = check_keep_going(remove(Stop::del));
    bool kasan = false;
    for (const Finding& f : k.findings)
        kasan = kasan || contains(f.violation.message, "BUG: KASAN: use-after-free in");
    CHECK_TEXT(kasan, describe(k).c_str());
    expect_verified_by_every_search(remove(Stop::del_sync), "timer_delete_sync then kfree");
    expect_verified_by_every_search(remove(Stop::shutdown), "timer_shutdown_sync then kfree");
}

TEST(Timer, del_timer_sync_under_a_lock_the_callback_takes_is_lockdeps_report) {
    expect_found_by_every_search(delete_under_lock(false, 1), ViolationKind::lock_order,
                                 "circular-locking-dependency", "del_timer_sync under dev->lock");
    // From an execution that does not deadlock: the callback ran before the lock was taken.
    const SearchResult r = check_model(delete_under_lock(true, 1));
    const Violation& v = only_violation(r);
    CHECK_EQUAL(std::string("circular-locking-dependency"), v.property);
    CHECK_TEXT(contains(v.message, "(dev->timer)"), v.message.c_str());
}

TEST(Timer, without_lockdep_del_timer_sync_under_the_lock_is_the_deadlock_itself) {
    CheckOptions options;
    options.lockdep = false;
    // The callback on the other CPU spins on the lock remove holds while it waits for it.
    const SearchResult other = check_model(delete_under_lock(false, 1, false), options);
    const Violation& v = only_violation(other);
    CHECK_EQUAL(ViolationKind::deadlock, v.kind);
    CHECK_TEXT(contains(v.message, "remove -> softirq/1 -> remove") ||
                   contains(v.message, "softirq/1 -> remove -> softirq/1"),
               v.message.c_str());
    // On remove's own CPU the softirq interrupts it and spins on the lock it holds.
    const SearchResult same = check_model(delete_under_lock(false, 0, false), options);
    CHECK_EQUAL(ViolationKind::deadlock, only_violation(same).kind);
}

TEST(Timer, del_timer_sync_from_its_own_callback_is_reported) {
    const Setup setup = [] {
        dev& d = model_state<dev>();
        timer_setup(
            &d.timer, [](timer_list* t) { del_timer_sync(t); }, 0);
        spawn("t", [&d] { mod_timer(&d.timer, jiffies + HZ); });
    };
    expect_found_by_every_search(setup, ViolationKind::lock_order, "recursive-locking",
                                 "del_timer_sync in the callback");
    CheckOptions options;
    options.lockdep = false;
    const SearchResult r = check_model(setup, options);
    CHECK_EQUAL(ViolationKind::hang, only_violation(r).kind);
}
