// Spinning: a cpu_relax() loop waiting for another task's store must be verified (not taken
// for a deadlock, and not looped for ever by the search), while one that nobody will ever
// release must be reported as a hang.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Flags {
    shared<int> ready{"ready"};
    shared<int> unrelated{"unrelated"};
};

void spin_until_ready(Flags& f) {
    while (!READ_ONCE(f.ready))
        cpu_relax();
}

} // namespace

TEST_GROUP(SpinWait){};

TEST(SpinWait, spinning_until_another_task_stores_is_verified) {
    const SearchResult r = check_model([] {
        auto& f = this_execution().make<Flags>();
        spawn("spinner", [&f] { spin_until_ready(f); });
        spawn("setter", [&f] { WRITE_ONCE(f.ready, 1); });
    });
    expect_verified(r);
    CHECK_EQUAL(0ul, r.stats.cut);
    // The store before the first read, or after it: re-reading an unchanged flag is not a
    // new interleaving, so the spin adds no executions.
    CHECK_EQUAL(2ul, r.stats.executions);
}

TEST(SpinWait, spinning_on_a_flag_nobody_sets_is_a_hang) {
    const SearchResult r = check_model([] {
        auto& f = this_execution().make<Flags>();
        spawn("spinner", [&f] { spin_until_ready(f); });
        spawn("other", [&f] { WRITE_ONCE(f.unrelated, 1); });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::hang, v.kind);
    CHECK_TEXT(contains(v.message, "spinner in cpu_relax"), v.message.c_str());
    CHECK_EQUAL(0ul, r.stats.cut);
}

TEST(SpinWait, two_tasks_spinning_for_each_other_are_a_hang_not_an_endless_search) {
    // Each waits for a flag only the other would set after its own wait: re-reading flags is
    // no progress, so once both only spin the search must stop and call it a hang.
    const SearchResult r = check_model([] {
        auto& f = this_execution().make<Flags>();
        spawn("a", [&f] {
            while (!READ_ONCE(f.ready))
                cpu_relax();
            WRITE_ONCE(f.unrelated, 1);
        });
        spawn("b", [&f] {
            while (!READ_ONCE(f.unrelated))
                cpu_relax();
            WRITE_ONCE(f.ready, 1);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::hang, v.kind);
    CHECK_TEXT(contains(v.message, "a in cpu_relax"), v.message.c_str());
    CHECK_TEXT(contains(v.message, "b in cpu_relax"), v.message.c_str());
    CHECK_EQUAL(0ul, r.stats.cut);
}

TEST(SpinWait, a_failed_trylock_in_a_spin_loop_is_no_progress_for_other_spinners) {
    // spin_trylock() on a lock whose holder spins on a flag nobody sets: a failed trylock
    // changes nothing, so neither spinner can make progress and the search calls it a hang.
    const SearchResult r = check_model([] {
        struct State {
            spinlock_t lock{"lock"};
            Flags flags;
        };
        auto& s = this_execution().make<State>();
        spawn("holder", [&s] {
            spin_lock(&s.lock);
            while (!READ_ONCE(s.flags.ready))
                cpu_relax();
            spin_unlock(&s.lock);
        });
        spawn("trier", [&s] {
            while (!spin_trylock(&s.lock))
                cpu_relax();
            spin_unlock(&s.lock);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::hang, v.kind);
    CHECK_EQUAL(0ul, r.stats.cut);
}

namespace {

// A spin loop the kernel bounds, as btrfs_spin_on_block() does: `turns` turns waiting for
// `ready`, then it gives up and says so in `gave_up`.
void spin_at_most(Flags& f, int turns) {
    for (int i = 0; i < turns; ++i) {
        if (READ_ONCE(f.ready)) return;
        cpu_relax();
    }
    WRITE_ONCE(f.unrelated, 1);
}

} // namespace

TEST(SpinWait, a_spin_loop_that_gives_up_after_20_turns_is_not_a_hang) {
    // Nobody sets the flag and no other task can run: the loop's own bound ends the spinning.
    const SearchResult r = check_model([] {
        auto& f = this_execution().make<Flags>();
        spawn("spinner", [&f] { spin_at_most(f, 20); });
    });
    expect_verified(r);
    CHECK_EQUAL(0ul, r.stats.cut);
    CHECK_EQUAL(1ul, r.stats.spin_bound_used);
}

TEST(SpinWait, the_spin_bound_is_an_option_and_the_hang_report_names_it) {
    CheckOptions options;
    options.spin_bound = 10;
    const SearchResult r = check_model(
        [] {
            auto& f = this_execution().make<Flags>();
            spawn("spinner", [&f] { spin_at_most(f, 20); });
        },
        options);
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::hang, v.kind);
    CHECK_TEXT(contains(v.message, "each spun 10 turns with nothing changed: --spin-bound 10"),
               v.message.c_str());
}

TEST(SpinWait, spinners_take_turns_so_one_that_gives_up_can_release_the_other) {
    // `waiter` (the lower id) spins until `giver` stores; `giver` spins a bounded while on a
    // flag nobody sets, then gives up and stores. Letting only the lowest spinner turn called
    // this a hang, though the giver's bound ends it.
    const SearchResult r = check_model([] {
        auto& f = this_execution().make<Flags>();
        spawn("waiter", [&f] {
            while (!READ_ONCE(f.unrelated))
                cpu_relax();
        });
        spawn("giver", [&f] { spin_at_most(f, 20); });
    });
    expect_verified(r);
    CHECK_EQUAL(0ul, r.stats.cut);
}
