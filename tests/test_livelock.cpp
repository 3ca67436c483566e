// Livelock: tasks that can run but only go round loops that change nothing (a trylock that
// keeps failing, an atomic_read() that never sees the value it waits for, without
// cpu_relax()) are reported as a livelock by every search, not cut by the depth bound and
// passed; a retry loop that gives up is not one. And when the depth bound cuts most
// executions, the verdict line says so.
#include <string>

#include "harness.hpp"
#include "reports/text.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Locked {
    spinlock_t lock{"lock"};
    shared<int> flag{"flag"};
};

// `holder` takes the lock and spins on a flag nobody sets; `trier` retries spin_trylock()
// with no cpu_relax() between tries.
void bare_trylock_against_a_spinning_holder() {
    auto& s = this_execution().make<Locked>();
    spawn("holder", [&s] {
        spin_lock(&s.lock);
        while (!READ_ONCE(s.flag))
            cpu_relax();
        spin_unlock(&s.lock);
    });
    spawn("trier", [&s] {
        while (!spin_trylock(&s.lock)) {
        }
        spin_unlock(&s.lock);
    });
}

struct Counters {
    atomic_t a{"a", 0};
    atomic_t b{"b", 0};
};

// Each waits, reading bare, for a value only the other stores after its own wait.
void two_bare_atomic_read_loops() {
    auto& c = this_execution().make<Counters>();
    spawn("first", [&c] {
        while (!atomic_read(&c.a)) {
        }
        atomic_set(&c.b, 1);
    });
    spawn("second", [&c] {
        while (!atomic_read(&c.b)) {
        }
        atomic_set(&c.a, 1);
    });
}

SearchResult sampled(const Setup& setup, Search search) {
    CheckOptions options;
    return check_model(setup, search, options);
}

} // namespace

TEST_GROUP(Livelock){};

TEST(Livelock, a_bare_trylock_loop_that_never_succeeds_is_a_livelock_in_every_search) {
    expect_found_by_every_search(bare_trylock_against_a_spinning_holder, ViolationKind::livelock,
                                 "livelock", "bare trylock");
    const SearchResult r = check_model(bare_trylock_against_a_spinning_holder);
    const Violation& v = only_violation(r);
    CHECK_TEXT(contains(v.message, "trier repeats spin_trylock(lock)"), v.message.c_str());
    CHECK_TEXT(contains(v.message, "--spin-bound 32"), v.message.c_str());
    CHECK_EQUAL(0ul, r.stats.cut);
}

TEST(Livelock, two_bare_atomic_read_loops_waiting_for_each_other_are_a_livelock) {
    expect_found_by_every_search(two_bare_atomic_read_loops, ViolationKind::livelock, "livelock",
                                 "atomic_read");
    const SearchResult r = check_model(two_bare_atomic_read_loops);
    const Violation& v = only_violation(r);
    CHECK_TEXT(contains(v.message, "first repeats atomic_read(a)"), v.message.c_str());
    CHECK_TEXT(contains(v.message, "second repeats atomic_read(b)"), v.message.c_str());
    // Once both only repeat, their order is no choice: the search does not branch on it.
    CHECK(r.stats.executions < 100);
}

TEST(Livelock, random_and_pct_report_it_rather_than_cut_every_execution) {
    for (Search search : {Search::random, Search::pct}) {
        const SearchResult r = sampled(two_bare_atomic_read_loops, search);
        const Violation& v = only_violation(r, search_name(search));
        CHECK_EQUAL(ViolationKind::livelock, v.kind);
        CHECK_EQUAL(0ul, r.stats.cut);
    }
}

TEST(Livelock, a_retry_loop_that_gives_up_is_not_a_livelock) {
    // The trier retries at most 20 times, then sets the holder's flag either way.
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<Locked>();
        spawn("holder", [&s] {
            spin_lock(&s.lock);
            while (!READ_ONCE(s.flag))
                cpu_relax();
            spin_unlock(&s.lock);
        });
        spawn("trier", [&s] {
            for (int i = 0; i < 20; ++i) {
                if (spin_trylock(&s.lock)) {
                    spin_unlock(&s.lock);
                    break;
                }
            }
            WRITE_ONCE(s.flag, 1);
        });
    });
    expect_verified(r);
    CHECK_EQUAL(0ul, r.stats.cut);
}

TEST(Livelock, when_most_executions_are_cut_the_verdict_line_says_so) {
    Summary s;
    s.stats.executions = 1000;
    s.stats.cut = 1000;
    s.sampled = true;
    CHECK_EQUAL(std::string("incomplete: every execution was cut by the depth bound (1000 of 1000 "
                            "executions, none run to its end): raise --depth"),
                verdict(s));
    s.sampled = false;
    CHECK_EQUAL(std::string("incomplete: every execution was cut by the depth bound (1000 of 1000 "
                            "executions, none run to its end): raise --depth"),
                verdict(s));
    s.stats.cut = 998;
    CHECK_EQUAL(std::string("no violation within the bound, but most executions were cut by the "
                            "depth bound (998 of 1000): raise --depth"),
                verdict(s));
    s.stats.cut_by_steps = 998;
    CHECK_EQUAL(std::string("no violation within the bound, but most executions were cut by "
                            "--max-steps (998 of 1000): raise --max-steps"),
                verdict(s));
    s.stats.cut_by_steps = 0;
    s.stats.cut = 400;
    CHECK_EQUAL(
        std::string("no violation within the bound (400 executions cut by the depth bound)"),
        verdict(s));
}
