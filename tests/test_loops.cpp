// Loops that wait for another CPU, as the kernel writes them: a turn that leaves what it
// touched as it found it (a lock taken and released, a failed cmpxchg or trylock, a counter
// raised and lowered) waits until something it read changes, under every search, so each
// correct loop verifies without a cut; and a loop that nothing will ever release is a hang that
// names the loop and what it waits on, whether its turns write or not.
#include <string>

#include "checker/dfs.hpp"
#include "checker/dpor.hpp"
#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Waiting {
    spinlock_t lock{"lock"};
    spinlock_t other{"other"};
    shared<int> flag{"flag"};
    shared<int> word{"word"};   // a cmpxchg lock: 1 while taken
    shared<int> count{"count"}; // what the cmpxchg lock guards
    atomic_t owned{"owned", 0};
    atomic_t waiters{"waiters", 0};
};

// The new user's probe: the waiter reads the flag under the lock each turn.
Setup lock_in_loop(bool sets) {
    return [sets] {
        auto& s = model_state<Waiting>();
        spawn("setter", [&s, sets] {
            spin_lock(&s.lock);
            if (sets) WRITE_ONCE(s.flag, 1);
            spin_unlock(&s.lock);
        });
        spawn("waiter", [&s] {
            for (;;) {
                spin_lock(&s.lock);
                const int f = READ_ONCE(s.flag);
                spin_unlock(&s.lock);
                if (f) break;
                cpu_relax();
            }
        });
    };
}

// A lock made of try_cmpxchg(), taken by two tasks; the second `releases` it or not.
Setup try_cmpxchg_lock(bool releases) {
    return [releases] {
        auto& s = model_state<Waiting>();
        auto locked = [&s](bool unlock) {
            int old = 0;
            while (!try_cmpxchg(&s.word, &old, 1)) {
                old = 0;
                cpu_relax();
            }
            s.count.write(s.count.read() + 1);
            if (unlock) smp_store_release(&s.word, 0);
        };
        spawn("first", [locked, releases] { locked(releases); });
        spawn("second", [locked] { locked(true); });
        final_check("both counted", [&s] { return s.count.peek() == 2; });
    };
}

// `forward` takes lock then other; `backoff` holds other and may only trylock lock, backing
// off (other released for a turn) when it fails, as d_lock's ancestors are taken. With
// `lock_waits`, forward holds lock until backoff has been through, which it never is.
Setup trylock_backoff(bool lock_waits) {
    return [lock_waits] {
        auto& s = model_state<Waiting>();
        spawn("forward", [&s, lock_waits] {
            spin_lock(&s.lock);
            if (lock_waits)
                while (!READ_ONCE(s.flag))
                    cpu_relax();
            else
                spin_lock(&s.other);
            WRITE_ONCE(s.word, 1);
            if (!lock_waits) spin_unlock(&s.other);
            spin_unlock(&s.lock);
        });
        spawn("backoff", [&s] {
            spin_lock(&s.other);
            while (!spin_trylock(&s.lock)) {
                spin_unlock(&s.other);
                cpu_relax();
                spin_lock(&s.other);
            }
            WRITE_ONCE(s.flag, 1);
            spin_unlock(&s.lock);
            spin_unlock(&s.other);
        });
    };
}

// atomic_cmpxchg() claims `owned`, which `owner` holds and `gives_back` or not.
Setup cmpxchg_claim(bool gives_back) {
    return [gives_back] {
        auto& s = model_state<Waiting>();
        spawn("owner", [&s, gives_back] {
            atomic_set(&s.owned, 1);
            if (gives_back) atomic_set(&s.owned, 0);
        });
        spawn("claimer", [&s] {
            while (atomic_cmpxchg(&s.owned, 0, 1) != 0)
                cpu_relax();
        });
    };
}

// A polite spin: the waiter counts itself in while it looks, and out again.
Setup polite_spin(bool sets) {
    return [sets] {
        auto& s = model_state<Waiting>();
        spawn("setter", [&s, sets] {
            if (sets) WRITE_ONCE(s.flag, 1);
        });
        spawn("waiter", [&s] {
            for (;;) {
                atomic_inc(&s.waiters);
                if (READ_ONCE(s.flag)) break;
                atomic_dec(&s.waiters);
                cpu_relax();
            }
        });
    };
}

constexpr Search kSampling[] = {Search::random, Search::pct};

// Every exhaustive search verifies it with no execution cut.
void expect_verified_uncut(const Setup& setup, const std::string& what) {
    for (Search search : kExhaustiveSearches) {
        const SearchResult r = check_model(setup, search, CheckOptions{});
        const std::string text = what + " (" + search_name(search) + ")";
        expect_verified(r, text);
        CHECK_EQUAL_TEXT(0ul, r.stats.cut, text.c_str());
    }
}

// Every search, exhaustive or sampling, and DFS within --depth 12, finds its loop a hang;
// returns DFS's.
Violation expect_hang_everywhere(const Setup& setup, const std::string& what) {
    expect_found_by_every_search(setup, ViolationKind::hang, "hang", what);
    for (Search search : kSampling) {
        const SearchResult r = check_model(setup, search, CheckOptions{});
        const std::string text = what + " (" + search_name(search) + ")";
        CHECK_EQUAL_TEXT(ViolationKind::hang, only_violation(r, text).kind, text.c_str());
    }
    CheckOptions shallow;
    shallow.depth = 12;
    const SearchResult r = check_model(setup, Search::dfs, shallow);
    const Violation v = only_violation(r, what + " (--depth 12)");
    CHECK_EQUAL_TEXT(ViolationKind::hang, v.kind, (what + " (--depth 12)").c_str());
    return v;
}

} // namespace

TEST_GROUP(Loops){};

TEST(Loops, a_waiter_that_takes_the_lock_each_turn_verifies_without_starving_the_setter) {
    expect_verified_uncut(lock_in_loop(true), "lock-in-loop");
    // Its turns take and release the lock: each leaves the lock as it found it, so the waiter
    // waits for the setter instead of turning until the depth bound.
    const SearchResult r = check_model(lock_in_loop(true));
    CHECK(r.stats.executions < 20);
}

TEST(Loops, a_lock_in_loop_waiter_whose_setter_never_sets_is_a_hang_naming_the_loop) {
    const Violation v = expect_hang_everywhere(lock_in_loop(false), "never-set");
    CHECK_TEXT(contains(v.message, "waiter in cpu_relax waiting on lock, flag"), v.message.c_str());
    // A line for the loop: its cpu_relax() and the state of what it waits on.
    CHECK_EQUAL(1u, v.details.size());
    CHECK_TEXT(contains(v.details[0], "waiter: spins in cpu_relax (test_loops.cpp:"),
               v.details[0].c_str());
    CHECK_TEXT(contains(v.details[0], "waiting on lock (unlocked), flag (= 0)"),
               v.details[0].c_str());
}

TEST(Loops, a_try_cmpxchg_lock_verifies_and_one_never_released_is_a_hang) {
    expect_verified_uncut(try_cmpxchg_lock(true), "try_cmpxchg lock");
    const Violation v = expect_hang_everywhere(try_cmpxchg_lock(false), "never released");
    CHECK_TEXT(contains(v.message, "second in cpu_relax"), v.message.c_str());
    CHECK_TEXT(contains(v.message, "waiting on word"), v.message.c_str());
}

TEST(Loops, a_trylock_backoff_verifies_and_one_whose_lock_waits_for_it_is_a_hang) {
    expect_verified_uncut(trylock_backoff(false), "trylock back-off");
    // Each failed turn takes and releases `other`: no change, and the holder of `lock` waits
    // for the flag the back-off would set.
    const Violation v = expect_hang_everywhere(trylock_backoff(true), "lock held while waiting");
    CHECK_TEXT(contains(v.message, "backoff in cpu_relax"), v.message.c_str());
    CHECK_TEXT(contains(v.message, "forward in cpu_relax"), v.message.c_str());
}

TEST(Loops, an_atomic_cmpxchg_claim_verifies_and_one_that_always_fails_is_a_hang) {
    expect_verified_uncut(cmpxchg_claim(true), "atomic_cmpxchg claim");
    const Violation v = expect_hang_everywhere(cmpxchg_claim(false), "never given back");
    CHECK_TEXT(contains(v.message, "claimer in cpu_relax"), v.message.c_str());
    CHECK_TEXT(contains(v.message, "waiting on owned"), v.message.c_str());
}

TEST(Loops, a_polite_spin_verifies_and_one_that_writes_and_restores_for_ever_is_a_hang) {
    expect_verified_uncut(polite_spin(true), "polite spin");
    const Violation v = expect_hang_everywhere(polite_spin(false), "never set");
    CHECK_TEXT(contains(v.message, "waiting on waiters, flag"), v.message.c_str());
}

TEST(Loops, a_failed_cmpxchg_in_a_bare_retry_loop_writes_nothing_so_the_loop_is_a_livelock) {
    // No cpu_relax(): the retry-loop watch needs steps with nothing written, which a failed
    // cmpxchg is.
    const Setup setup = [] {
        auto& s = model_state<Waiting>();
        spawn("owner", [&s] { atomic_set(&s.owned, 1); });
        spawn("claimer", [&s] {
            while (atomic_cmpxchg(&s.owned, 0, 1) != 0) {
            }
        });
    };
    expect_found_by_every_search(setup, ViolationKind::livelock, "livelock", "bare cmpxchg");
}

TEST(Loops, a_mutex_trylock_loop_waits_for_the_owner_and_one_never_released_is_a_hang) {
    struct Locked {
        mutex m{"m"};
        shared<int> flag{"flag"};
    };
    // The owner gives the mutex back once `flag` is set (by the trier, after its loop: never)
    // or at once.
    auto trylock_loop = [](bool owner_waits) -> Setup {
        return [owner_waits] {
            auto& s = model_state<Locked>();
            spawn("owner", [&s, owner_waits] {
                mutex_lock(&s.m);
                if (owner_waits)
                    while (!READ_ONCE(s.flag))
                        cpu_relax();
                mutex_unlock(&s.m);
            });
            spawn("trier", [&s] {
                while (!mutex_trylock(&s.m))
                    cpu_relax();
                WRITE_ONCE(s.flag, 1);
                mutex_unlock(&s.m);
            });
        };
    };
    expect_verified_uncut(trylock_loop(false), "mutex_trylock loop");
    const Violation v = expect_hang_everywhere(trylock_loop(true), "owner waits");
    CHECK_TEXT(contains(v.message, "trier in cpu_relax waiting on m"), v.message.c_str());
}

// Under lkmm a turn of a loop that changed nothing and read an older write is dropped (the
// execution without it covers it), but what a task does between two loops is no turn, even
// when both loops are one function's: here the waiter reads `word` between them, may see the
// value before the message (no barrier orders it), and then waits for a flag nobody sets.
TEST(Loops, under_lkmm_what_a_task_reads_between_two_calls_of_one_loop_is_never_dropped) {
    const Setup setup = [] {
        auto& s = model_state<Waiting>();
        spawn("sender", [&s] {
            WRITE_ONCE(s.word, 1);
            WRITE_ONCE(s.flag, 1);
        });
        spawn("waiter", [&s] {
            // Turns at least once, so that the waiter is in a loop's turn when it reads `word`.
            auto wait_for = [](shared<int>& what) {
                bool first = true;
                while (!READ_ONCE(what) || first) {
                    first = false;
                    cpu_relax();
                }
            };
            wait_for(s.flag);
            if (!READ_ONCE(s.word)) wait_for(s.count);
        });
    };
    expect_verified_uncut(setup, "sc");
    CheckOptions lkmm;
    lkmm.memory_model = MemoryModel::lkmm;
    for (Search search : kExhaustiveSearches) {
        const std::string what = std::string("lkmm, ") + search_name(search);
        const SearchResult r = check_model(setup, search, lkmm);
        const Violation v = only_violation(r, what);
        CHECK_EQUAL_TEXT(ViolationKind::hang, v.kind, what.c_str());
        CHECK_TEXT(contains(v.message, "waiter in cpu_relax waiting on count"), v.message.c_str());
    }
}

namespace {

// cancel_work_sync()'s loop on try_to_grab_pending() (kernel/workqueue.c): the canceller
// takes the work's PENDING bit, or takes the work off the pool's list under the pool's lock;
// while the queuer has set PENDING but not yet put the work on the list, it is -EAGAIN after a
// cpu_relax(), and the canceller goes round.
struct Work {
    bitmap_word data{"work.data"};
    spinlock_t pool{"pool.lock"};
    shared<int> on_list{"on_list"};
};
constexpr long kPending = 0;
constexpr int kEagain = 11;

int try_to_grab_pending(Work& w) {
    if (!test_and_set_bit(kPending, &w.data)) return 0;
    spin_lock(&w.pool);
    if (READ_ONCE(w.on_list)) {
        WRITE_ONCE(w.on_list, 0);
        spin_unlock(&w.pool);
        return 1;
    }
    spin_unlock(&w.pool);
    cpu_relax();
    return -kEagain;
}

// The queuer puts the work on the list once it owns PENDING, or (`inserts` false) forgets to:
// then PENDING stays set with the work on no list, and the canceller retries for ever.
Setup cancel_retry(bool inserts) {
    return [inserts] {
        auto& w = model_state<Work>();
        spawn("queuer", [&w, inserts] {
            if (test_and_set_bit(kPending, &w.data)) return;
            spin_lock(&w.pool);
            if (inserts) WRITE_ONCE(w.on_list, 1);
            spin_unlock(&w.pool);
        });
        spawn("canceller", [&w] {
            int ret = 0;
            do {
                ret = try_to_grab_pending(w);
            } while (ret < 0);
            check(!READ_ONCE(w.on_list), "a cancelled work is on no list");
        });
    };
}

} // namespace

TEST(Loops, a_cancel_work_sync_eagain_retry_verifies_and_one_whose_work_is_never_queued_hangs) {
    expect_verified_uncut(cancel_retry(true), "try_to_grab_pending retry");
    const Violation v = expect_hang_everywhere(cancel_retry(false), "never queued");
    CHECK_TEXT(contains(v.message, "canceller in cpu_relax waiting on"), v.message.c_str());
    CHECK_TEXT(contains(v.message, "on_list"), v.message.c_str());
    CheckOptions lkmm;
    lkmm.memory_model = MemoryModel::lkmm;
    for (Search search : kExhaustiveSearches)
        expect_verified(check_model(cancel_retry(true), search, lkmm),
                        std::string("lkmm, ") + search_name(search));
}

// Dropping the executions whose loop turn read an older write loses nothing: under lkmm, DFS,
// DPOR and optimal DPOR that drop them reach the final states and violations DFS reaches
// exploring every such turn to the end.
TEST(Loops, under_lkmm_dropping_stale_turns_reaches_what_exploring_them_reaches) {
    const std::pair<const char*, Setup> models[] = {
        {"lock-in-loop", lock_in_loop(true)},         {"never-set", lock_in_loop(false)},
        {"try_cmpxchg lock", try_cmpxchg_lock(true)}, {"cmpxchg claim", cmpxchg_claim(true)},
        {"polite spin", polite_spin(true)},           {"cancel retry", cancel_retry(true)},
        {"never queued", cancel_retry(false)},
    };
    const auto lkmm = [](bool drop) {
        return [drop](Execution::Limits& l) {
            l.memory_model = MemoryModel::lkmm;
            l.drop_stale_turns = drop;
        };
    };
    for (const auto& [name, setup] : models) {
        Dfs every;
        const Reached all = reach(setup, every, 400, true, 0, lkmm(false));
        Dfs dfs;
        expect_reached_what_dfs_reached(reach(setup, dfs, 400, true, 0, lkmm(true)), all,
                                        std::string(name) + ": dfs");
        for (Dpor::Mode mode : {Dpor::Mode::source, Dpor::Mode::optimal}) {
            Dpor dpor(0, mode);
            expect_reached_what_dfs_reached(reach(setup, dpor, 400, true, 0, lkmm(true)), all,
                                            std::string(name) + ": dpor");
        }
    }
}
