// The engine's counters in the search summary (sleeps, wake-ups, spins, lock hold steps), on
// models small enough to count by hand, and the rows the command line prints for them, which
// must be the very numbers the search computed.
#include <cstdio>
#include <string>

#include "checker/protocol.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

template <class Lock> struct OneLock {
    Lock lock{"L"};
    shared<int> x{"x"};
};

const LockHolds* holds_of(const SearchResult& r, const std::string& lock) {
    for (const LockHolds& h : r.stats.holds)
        if (h.lock == lock) return &h;
    return nullptr;
}

// The summary line of `key`, without its newline; empty if there is none.
std::string row(const std::string& out, const std::string& key) {
    std::string padded = key;
    padded.resize(14, ' ');
    const std::size_t at = out.find("\n" + padded);
    if (at == std::string::npos) return "";
    const std::size_t begin = at + 1;
    return out.substr(begin, out.find('\n', begin) - begin);
}

std::string counter_row(const std::string& key, std::uint64_t total, std::uint64_t most) {
    std::string padded = key;
    padded.resize(14, ' ');
    return padded + std::to_string(total) + " (at most " + std::to_string(most) +
           " in one execution)";
}

} // namespace

TEST_GROUP(EngineCounters){};

TEST(EngineCounters, two_tasks_contending_for_a_mutex_sleep_once_per_execution) {
    // Whoever locks first holds the mutex for one step while the other is blocked: 2
    // executions, one sleep in each, and 4 holds of one step.
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<OneLock<mutex>>();
        for (const char* name : {"a", "b"})
            spawn(name, [&s] {
                mutex_lock(&s.lock);
                mutex_unlock(&s.lock);
            });
    });
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
    CHECK_EQUAL(2ul, r.stats.total.sleeps);
    CHECK_EQUAL(1ul, r.stats.most.sleeps);
    CHECK_EQUAL(0ul, r.stats.total.spins);
    const LockHolds* h = holds_of(r, "L");
    CHECK_TEXT(h != nullptr, "no hold times for L");
    CHECK_EQUAL(4ul, h->stats.holds);
    CHECK_EQUAL(4ul, h->stats.steps);
    CHECK_EQUAL(1u, h->stats.longest);
}

TEST(EngineCounters, an_uncontended_mutex_counts_no_sleep) {
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<OneLock<mutex>>();
        spawn("a", [&s] {
            mutex_lock(&s.lock);
            mutex_unlock(&s.lock);
        });
        spawn("b", [&s] { s.x.write(1); });
    });
    expect_verified(r);
    CHECK_EQUAL(3ul, r.stats.executions);
    CHECK_EQUAL(0ul, r.stats.total.sleeps);
}

TEST(EngineCounters, a_contended_spin_lock_counts_spins_not_sleeps) {
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<OneLock<spinlock_t>>();
        for (const char* name : {"a", "b"})
            spawn(name, [&s] {
                spin_lock(&s.lock);
                spin_unlock(&s.lock);
            });
    });
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
    CHECK_EQUAL(2ul, r.stats.total.spins);
    CHECK_EQUAL(1ul, r.stats.most.spins);
    CHECK_EQUAL(0ul, r.stats.total.sleeps);
    const LockHolds* h = holds_of(r, "L");
    CHECK_TEXT(h != nullptr, "no hold times for L");
    CHECK_EQUAL(4ul, h->stats.holds);
}

TEST(EngineCounters, each_turn_of_a_cpu_relax_loop_counts_one_spin) {
    // The spinner reads 0 and turns once before the setter's store, or reads 1 at once.
    const SearchResult r = check_model([] {
        auto& ready = this_execution().make<shared<int>>("ready");
        spawn("spinner", [&ready] {
            while (!READ_ONCE(ready))
                cpu_relax();
        });
        spawn("setter", [&ready] { WRITE_ONCE(ready, 1); });
    });
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
    CHECK_EQUAL(1ul, r.stats.total.spins);
    CHECK_EQUAL(1ul, r.stats.most.spins);
}

TEST(EngineCounters, a_hold_lasts_from_the_locking_step_to_the_unlocking_step) {
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<OneLock<mutex>>();
        spawn("a", [&s] {
            mutex_lock(&s.lock);
            s.x.write(1);
            s.x.write(2);
            mutex_unlock(&s.lock);
        });
    });
    expect_verified(r);
    const LockHolds* h = holds_of(r, "L");
    CHECK_TEXT(h != nullptr, "no hold times for L");
    CHECK_EQUAL(1ul, h->stats.holds);
    CHECK_EQUAL(3ul, h->stats.steps);
    CHECK_EQUAL(3u, h->stats.longest);
}

TEST(EngineCounters, other_tasks_steps_while_a_lock_is_held_count_in_its_hold) {
    // a: lock, unlock; b: one write. The write before, inside or after the hold: holds of
    // 1, 2 and 1 steps over 3 executions.
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<OneLock<mutex>>();
        spawn("a", [&s] {
            mutex_lock(&s.lock);
            mutex_unlock(&s.lock);
        });
        spawn("b", [&s] { s.x.write(1); });
    });
    expect_verified(r);
    CHECK_EQUAL(3ul, r.stats.executions);
    const LockHolds* h = holds_of(r, "L");
    CHECK_TEXT(h != nullptr, "no hold times for L");
    CHECK_EQUAL(3ul, h->stats.holds);
    CHECK_EQUAL(4ul, h->stats.steps);
    CHECK_EQUAL(2u, h->stats.longest);
}

TEST(EngineCounters, a_wait_queue_counts_real_sleeps_and_every_task_a_wake_up_set_running) {
    // waiter: wait_event(wq, flag) = read flag; [prepare_to_wait, read flag, schedule...]
    // finish_wait. waker: WRITE_ONCE(flag, 1); wake_up(&wq).
    // - the store before the first read: 2 executions, the waiter never queues;
    // - the store after the first read but before the second: 7 executions; wake_up finds
    //   the waiter queued (between prepare_to_wait and finish_wait) in 4 of them and sets
    //   it running although it never slept;
    // - the store after the second read: 1 execution, the waiter sleeps in schedule() and
    //   the wake_up wakes it.
    // 10 executions, 1 sleep, 5 wake-ups.
    const SearchResult r = check_model([] {
        struct Waiting {
            wait_queue_head_t wq{"wq"};
            shared<int> flag{"flag"};
        };
        auto& s = this_execution().make<Waiting>();
        spawn("waiter", [&s] { wait_event(s.wq, READ_ONCE(s.flag)); });
        spawn("waker", [&s] {
            WRITE_ONCE(s.flag, 1);
            wake_up(&s.wq);
        });
    });
    expect_verified(r);
    CHECK_EQUAL(10ul, r.stats.executions);
    CHECK_EQUAL(1ul, r.stats.total.sleeps);
    CHECK_EQUAL(1ul, r.stats.most.sleeps);
    CHECK_EQUAL(5ul, r.stats.total.wakeups);
    CHECK_EQUAL(1ul, r.stats.most.wakeups);
    CHECK_EQUAL(0ul, r.stats.total.spins);
    // The wait queue is no lock: it is listed for the one sleep on it alone.
    CHECK_EQUAL(1u, r.stats.holds.size());
    CHECK_EQUAL(std::string("wq"), r.stats.holds[0].lock);
    CHECK_EQUAL(1ul, r.stats.holds[0].stats.sleeps);
    CHECK_EQUAL(0ul, r.stats.holds[0].stats.acquisitions);
}

TEST(EngineCounters, the_cli_summary_prints_the_searchs_counters_and_hold_times) {
    const Protocol* rename_pin = nullptr;
    for (const Protocol& p : protocol_models())
        if (p.name == "rename-pin") rename_pin = &p;
    CHECK_TEXT(rename_pin != nullptr, "no rename-pin protocol");
    const std::size_t variant = rename_pin->default_variant;
    const ParameterValues values = rename_pin->default_values();
    CheckOptions options;
    options.depth = rename_pin->default_depth;
    const SearchResult r =
        check_model([rename_pin, variant, &values] { rename_pin->setup(variant, values); },
                    kDefaultSearch, options);

    const Run run = run_lockcheck({"rename-pin"});
    CHECK_EQUAL_TEXT(0, run.exit_code, run.err.c_str());
    const SearchStats& s = r.stats;
    CHECK_EQUAL(counter_row("sleeps", s.total.sleeps, s.most.sleeps), row(run.out, "sleeps"));
    CHECK_EQUAL(counter_row("wake-ups", s.total.wakeups, s.most.wakeups), row(run.out, "wake-ups"));
    CHECK_EQUAL(counter_row("spins", s.total.spins, s.most.spins), row(run.out, "spins"));
    // The model sleeps and wakes, so the rows are not all zero.
    CHECK(s.total.sleeps > 0);
    CHECK(s.total.wakeups > 0);

    const LockHolds* h = holds_of(r, "log_mutex");
    CHECK_TEXT(h != nullptr, "rename-pin never held log_mutex");
    // The locks row, normalized per execution measured (DPOR's sleep-blocked ones left out).
    const std::string locks = row(run.out, "locks");
    CHECK_TEXT(contains(locks, "log_mutex: "), locks.c_str());
    char per_execution[32];
    std::snprintf(per_execution, sizeof per_execution, "%.2f acquisitions",
                  static_cast<double>(h->stats.acquisitions) / static_cast<double>(s.measured()));
    CHECK_TEXT(contains(locks, per_execution), locks.c_str());
    CHECK_TEXT(contains(locks, ", at most " + std::to_string(h->stats.longest)), locks.c_str());
}
