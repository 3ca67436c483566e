// No silent internal limit: lockdep holds as many lock classes and dependencies as the
// kernel's, a task as many held locks (MAX_LOCK_DEPTH), and when one of the checker's tables
// of fixed capacity fills (classes, dependencies, held locks, locked ranges) the search says so
// and is incomplete, never verified; a model with more tasks than a step's task sets hold is
// refused.
#include <deque>
#include <stdexcept>
#include <string>

#include "harness.hpp"
#include "reports/text.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// `n` mutexes of distinct classes, "m0", "m1", ...
struct Mutexes {
    explicit Mutexes(int n) {
        for (int i = 0; i < n; ++i)
            locks.emplace_back("m" + std::to_string(i));
    }
    std::deque<struct mutex> locks;
};

// One lock class more than the kernel's lockdep holds (MAX_LOCKDEP_KEYS).
constexpr int kClasses = 8192 + 1;

// The one table that filled in `r`: its name and capacity.
const FullTable& only_full_table(const SearchResult& r) {
    CHECK_EQUAL(1u, r.stats.full_tables.size());
    return r.stats.full_tables.front();
}

} // namespace

TEST_GROUP(InternalLimits){};

TEST(InternalLimits, an_inversion_after_more_than_64_lock_classes_is_still_found) {
    // The graph held 64 classes once and then stopped recording: the inverted pair that
    // follows was "verified".
    const SearchResult r = check_model([] {
        auto& m = this_execution().make<Mutexes>(72);
        spawn("task", [&m] {
            for (int i = 0; i < 70; ++i) {
                mutex_lock(&m.locks[i]);
                mutex_unlock(&m.locks[i]);
            }
            for (int i : {70, 71}) {
                const int other = 141 - i; // 71, then 70: the second pair is inverted
                mutex_lock(&m.locks[i]);
                mutex_lock(&m.locks[other]);
                mutex_unlock(&m.locks[other]);
                mutex_unlock(&m.locks[i]);
            }
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::lock_order, v.kind);
    CHECK_TEXT(contains(v.message, "m71 --> m70"), v.message.c_str());
    CHECK(r.stats.full_tables.empty());
}

TEST(InternalLimits, lockdep_past_max_lockdep_keys_fills_its_table_and_the_run_is_incomplete) {
    // One class more than the kernel's lockdep holds; checking stops there, as the kernel's
    // does, but the run says so.
    CheckOptions options;
    options.max_steps = 2 * kClasses + 1;
    const SearchResult r = check_model(
        [] {
            auto& m = this_execution().make<Mutexes>(kClasses);
            spawn("task", [&m] {
                for (auto& lock : m.locks) {
                    mutex_lock(&lock);
                    mutex_unlock(&lock);
                }
            });
        },
        options);
    expect_verified(r);
    const FullTable& full = only_full_table(r);
    CHECK_EQUAL(std::string("lockdep classes (MAX_LOCKDEP_KEYS)"), full.table);
    CHECK_EQUAL(8192u, full.capacity);
    CHECK_EQUAL(1u, full.executions);
    // The execution went on to its end: only lock-order checking stopped.
    CHECK_EQUAL(0u, r.stats.cut);
    CHECK_EQUAL(std::uint64_t{2 * kClasses}, r.stats.steps);
}

TEST(InternalLimits, a_task_holds_as_many_locks_as_max_lock_depth) {
    const SearchResult r = check_model([] {
        auto& m = this_execution().make<Mutexes>(48);
        spawn("task", [&m] {
            for (auto& lock : m.locks)
                mutex_lock(&lock);
            for (auto it = m.locks.rbegin(); it != m.locks.rend(); ++it)
                mutex_unlock(&*it);
        });
    });
    expect_verified(r);
    CHECK(r.stats.full_tables.empty());
}

TEST(InternalLimits, one_held_lock_past_max_lock_depth_ends_the_execution_incomplete) {
    const SearchResult r = check_model([] {
        auto& m = this_execution().make<Mutexes>(49);
        spawn("task", [&m] {
            for (auto& lock : m.locks)
                mutex_lock(&lock);
            for (auto it = m.locks.rbegin(); it != m.locks.rend(); ++it)
                mutex_unlock(&*it);
        });
    });
    // Not a violation of the model (the kernel's "BUG: MAX_LOCK_DEPTH too low!" is lockdep's
    // limit), and not a pass.
    expect_verified(r);
    const FullTable& full = only_full_table(r);
    CHECK_EQUAL(std::string("held locks per task (MAX_LOCK_DEPTH)"), full.table);
    CHECK_EQUAL(48u, full.capacity);
}

TEST(InternalLimits, a_task_past_the_64th_is_refused_as_a_model_that_cannot_be_checked) {
    // No table fills: a step's task sets have one bit per task, so such a model cannot be
    // checked at all (the command refuses it, exit 2; tests/test_model_faults.cpp).
    std::string error;
    try {
        check_model([] {
            auto& done = this_execution().make<atomic_t>("done");
            for (int i = 0; i < 65; ++i)
                spawn("task" + std::to_string(i), [&done] { atomic_inc(&done); });
        });
    } catch (const std::length_error& e) {
        error = e.what();
    }
    STRCMP_EQUAL("the set-up spawns task 'task64', the 65th; lockcheck runs at most 64 tasks in "
                 "an execution",
                 error.c_str());
}

TEST(InternalLimits, a_lockdep_subclass_past_the_kernels_is_a_lock_misuse) {
    const SearchResult r = check_model([] {
        auto& m = this_execution().make<Mutexes>(1);
        spawn("task", [&m] {
            mutex_lock_nested(&m.locks[0], MAX_LOCKDEP_SUBCLASSES);
            mutex_unlock(&m.locks[0]);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::lock_misuse, v.kind);
    CHECK_TEXT(contains(v.message, "invalid subclass: 8"), v.message.c_str());
}

TEST(InternalLimits, a_full_table_makes_the_summary_incomplete_and_names_it) {
    Summary s;
    s.stats.executions = 5;
    s.stats.full_tables.push_back(FullTable{"held locks per task (MAX_LOCK_DEPTH)", 48, 2});
    const std::string summary = format_summary(s);
    CHECK_TEXT(contains(summary, "table full    held locks per task (MAX_LOCK_DEPTH): all 48 "
                                 "entries used in 2 executions"),
               summary.c_str());
    CHECK_TEXT(contains(summary, "verdict       incomplete: held locks per task (MAX_LOCK_DEPTH) "
                                 "filled (48 entries)"),
               summary.c_str());
    const Judgement j = judge(Expectation::verified(), {}, s);
    CHECK_EQUAL(std::string("incomplete"), std::string(agreement_name(j.agreement)));
}

TEST(InternalLimits, more_named_operations_than_an_execution_records_fill_a_table) {
    static const char* const kNames[] = {"o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "o9"};
    const SearchResult r = check_model([] {
        spawn("task", [] {
            for (const char* name : kNames) {
                op_begin(name);
                op_end(name);
            }
        });
    });
    const FullTable& full = only_full_table(r);
    CHECK_EQUAL(std::string("named operations of one execution (lockcheck::op)"), full.table);
    CHECK_EQUAL(8u, full.capacity);
    CHECK_EQUAL(8u, r.stats.ops.size()); // the ninth went unrecorded, and the run says so
}
