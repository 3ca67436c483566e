// Tearing tasks down: an execution that ends with tasks mid-code (a depth cut, a violation, a
// state met before) unwinds each of them (scheduler/fiber_unwind.hpp). Their locals must be
// destroyed, a destructor may reach a scheduling point on the way, a catch (...) in the model
// may hold the unwinding up only until its task's next scheduling point, and nothing a task
// torn down does on its way out counts as model behaviour.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct State {
    spinlock_t lock{"lock"};
    shared<int> x{"x"};
    shared<int> y{"y"};
};

// Counts the locals alive: constructed and destroyed on the tasks' fibers.
struct Tally {
    int made = 0;
    int destroyed = 0;
};

struct Counted {
    explicit Counted(Tally& t) : tally(t) { ++tally.made; }
    ~Counted() { ++tally.destroyed; }
    Counted(const Counted&) = delete;
    Counted& operator=(const Counted&) = delete;
    Tally& tally;
};

// Releases the lock when its scope ends, as the kernel's guard(spinlock) does: a scheduling
// point inside a destructor, where an execution may end. `Throwing`: declared noexcept(false),
// so that the teardown may unwind through it.
template <bool Throwing> struct SpinGuard {
    explicit SpinGuard(spinlock_t* l) : lock(l) { spin_lock(lock); }
    ~SpinGuard() noexcept(!Throwing) { spin_unlock(lock); }
    SpinGuard(const SpinGuard&) = delete;
    SpinGuard& operator=(const SpinGuard&) = delete;
    spinlock_t* lock;
};

// Two tasks, each with a local around a guard around a local, cut at a step where some
// executions end inside the guard's destructor.
template <bool Throwing> SearchResult guarded_tasks(Tally& tally) {
    CheckOptions options;
    options.max_steps = 3;
    return check_model(
        [&tally] {
            auto& s = this_execution().make<State>();
            for (const char* name : {"a", "b"})
                spawn(name, [&s, &tally] {
                    Counted outer(tally);
                    SpinGuard<Throwing> guard(&s.lock);
                    Counted inner(tally);
                    WRITE_ONCE(s.x, READ_ONCE(s.x) + 1);
                });
        },
        Search::dfs, options);
}

} // namespace

TEST_GROUP(Teardown){};

TEST(Teardown, every_local_of_a_task_cut_mid_code_is_destroyed_and_its_guard_runs) {
    Tally tally;
    const SearchResult r = guarded_tasks<true>(tally);
    CHECK(r.stats.executions > 1);
    CHECK(tally.made > 0);
    CHECK_EQUAL(tally.made, tally.destroyed);
}

// A noexcept destructor cannot be unwound through: the unwinding stops there and leaves the
// locals of the frames above it (docs/writing-models.md), and the search goes on unchanged.
TEST(Teardown, a_task_cut_inside_a_noexcept_destructor_is_abandoned_there_and_the_search_goes_on) {
    Tally unwound, abandoned;
    const SearchResult all = guarded_tasks<true>(unwound);
    const SearchResult r = guarded_tasks<false>(abandoned);
    CHECK_EQUAL(all.stats.executions, r.stats.executions);
    CHECK_EQUAL(all.findings.size(), r.findings.size());
    CHECK_EQUAL(unwound.made, abandoned.made);
    CHECK(abandoned.destroyed < abandoned.made);
}

TEST(Teardown, a_catch_all_holds_the_unwinding_up_only_until_the_next_scheduling_point) {
    int swallowed = 0, went_past = 0;
    Tally tally;
    CheckOptions options;
    options.max_steps = 1; // cut right after the first write
    const SearchResult r = check_model(
        [&] {
            auto& s = this_execution().make<State>();
            spawn("a", [&] {
                Counted local(tally);
                try {
                    WRITE_ONCE(s.x, 1);
                    WRITE_ONCE(s.x, 2);
                } catch (...) {
                    ++swallowed; // and not rethrown
                }
                WRITE_ONCE(s.y, 1);
                ++went_past;
            });
        },
        Search::dfs, options);
    CHECK_EQUAL(1u, r.stats.executions);
    CHECK_EQUAL(1, swallowed);
    CHECK_EQUAL(0, went_past);
    CHECK_EQUAL(1, tally.made);
    CHECK_EQUAL(1, tally.destroyed);
}

TEST(Teardown, an_operation_its_task_fails_inside_is_not_counted_as_ended) {
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<State>();
        spawn("a", [&s] {
            op named("a");
            WRITE_ONCE(s.x, 1);
            check(READ_ONCE(s.x) == 0, "x is still 0");
        });
    });
    CHECK_EQUAL(1u, r.findings.size());
    for (const OpWaits& w : r.stats.ops)
        CHECK_TEXT(w.op != "a" || w.count == 0, ("ended " + std::to_string(w.count)).c_str());
}
