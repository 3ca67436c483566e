// How often the search evaluated each property, on models small enough to count by hand: every
// invariant and final check is listed from set-up on, a check() once reached; a final check no
// finished execution reached is flagged; a check() always made right after its task released a
// lock is flagged (no other task can run in between), and BUG_ON() at the same place, a
// scheduling point of its own, finds the free that check() cannot see. WARN_ON() fails the
// execution too and returns its condition.
#include <string>

#include "harness.hpp"
#include "reports/text.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

const std::string kAtMostTwo = "a is at most 2";
const std::string kBoth = "both increments landed";
const char* const kReached = "the increment returned";

struct Counted {
    atomic_t a{"a"};
};

// Two tasks, one atomic_inc each, then a check(): two executions of two steps under DFS.
Setup two_increments() {
    return [] {
        auto& c = this_execution().make<Counted>();
        for (const char* name : {"inc0", "inc1"})
            spawn(name, [&c] {
                atomic_inc(&c.a);
                check(true, kReached);
            });
        invariant(kAtMostTwo, [&c] { return c.a.peek() <= 2; });
        final_check(kBoth, [&c] { return c.a.peek() == 2; });
    };
}

const PropertyStats& property(const SearchResult& r, PropertyKind kind, const std::string& name) {
    for (const PropertyStats& p : r.stats.properties)
        if (p.kind == kind && p.name == name) return p;
    FAIL(("no property " + name).c_str());
    return r.stats.properties.front();
}

// A table entry looked up under the table's lock, and freed under it by another task.
struct Table {
    spinlock_t table_lock{"table_lock"};
    shared<int> live{"obj.live", 1};
};

enum class Assertion { check_after_unlock, bug_on_after_unlock };

// The lookup drops the lock and only then asserts that the object it found is still live: it
// holds no reference, so a free can come in between.
Setup lookup_and_free(Assertion how) {
    return [how] {
        auto& t = this_execution().make<Table>();
        spawn("lookup", [&t, how] {
            spin_lock(&t.table_lock);
            const int live = t.live.read();
            spin_unlock(&t.table_lock);
            if (!live) return;
            if (how == Assertion::check_after_unlock)
                check(t.live.peek() == 1, "obj still live");
            else
                BUG_ON(t.live.peek() == 0);
        });
        spawn("free", [&t] {
            spin_lock(&t.table_lock);
            t.live.write(0);
            spin_unlock(&t.table_lock);
        });
    };
}

std::string summary_of(const SearchResult& r) {
    Summary s;
    s.stats = r.stats;
    return format_summary(s);
}

} // namespace

TEST_GROUP(PropertyCounts){};

TEST(PropertyCounts, each_property_is_counted_at_every_evaluation_over_the_search) {
    const SearchResult r = check_model(two_increments());
    expect_verified(r);
    CHECK_EQUAL(2u, r.stats.executions);
    CHECK_EQUAL(3u, r.stats.properties.size());
    // After each of the 2 steps of 2 executions; at the end of each; once per task and execution.
    CHECK_EQUAL(4u, property(r, PropertyKind::invariant, kAtMostTwo).evaluations);
    CHECK_EQUAL(2u, property(r, PropertyKind::final_check, kBoth).evaluations);
    CHECK_EQUAL(4u, property(r, PropertyKind::check, kReached).evaluations);
    // Registered first, reached later: invariants, final checks, then check()s.
    CHECK(r.stats.properties[0].kind == PropertyKind::invariant);
    CHECK(r.stats.properties[1].kind == PropertyKind::final_check);
    CHECK(r.stats.properties[2].kind == PropertyKind::check);
}

TEST(PropertyCounts, a_final_check_no_execution_finished_is_listed_and_flagged_never_evaluated) {
    CheckOptions options;
    options.max_steps = 1; // every execution is cut after its first step
    const SearchResult r = check_model(two_increments(), options);
    CHECK_EQUAL(r.stats.executions, r.stats.cut);
    CHECK_EQUAL(0u, property(r, PropertyKind::final_check, kBoth).evaluations);
    CHECK_EQUAL(2u, property(r, PropertyKind::invariant, kAtMostTwo).evaluations);
    const std::string summary = summary_of(r);
    CHECK_TEXT(contains(summary, "              final check \"" + kBoth +
                                     "\": 0 evaluations: NEVER EVALUATED (no execution "
                                     "finished)\n"),
               summary.c_str());
    CHECK_TEXT(contains(summary, "properties    invariant \"" + kAtMostTwo + "\": 2 evaluations\n"),
               summary.c_str());
}

TEST(PropertyCounts, check_calls_with_the_same_message_are_one_property) {
    static const std::string kSame = "i_size changes only under the inode lock";
    const SearchResult r = check_model([] {
        spawn("t", [] {
            check(true, kSame.c_str());
            check(true, "i_size changes only under the inode lock"); // another pointer
        });
    });
    CHECK_EQUAL(1u, r.stats.properties.size());
    CHECK_EQUAL(2u, property(r, PropertyKind::check, kSame).evaluations);
}

TEST(PropertyCounts, a_check_always_made_right_after_its_task_released_a_lock_is_flagged) {
    const SearchResult r = check_model(lookup_and_free(Assertion::check_after_unlock));
    // Atomic with the unlock, the check never sees the free: the search finds nothing.
    expect_verified(r);
    // Only the execution where the lookup finds the object live checks it.
    const PropertyStats& p = property(r, PropertyKind::check, "obj still live");
    CHECK_EQUAL(1u, p.evaluations);
    CHECK_EQUAL(1u, p.after_release);
    CHECK_EQUAL(std::string("spin_unlock(table_lock)"), p.release);
    const std::string summary = summary_of(r);
    CHECK_TEXT(contains(summary, "properties    check \"obj still live\": 1 evaluation: right "
                                 "after spin_unlock(table_lock) by the same task: no other task "
                                 "can run in between, so it cannot see one (use BUG_ON)\n"),
               summary.c_str());
}

TEST(PropertyCounts, a_check_after_a_release_only_sometimes_or_after_various_ones_says_so) {
    struct Locks {
        mutex m{"m"};
        spinlock_t s{"s"};
        atomic_t a{"a"};
    };
    // Sometimes after an atomic_inc: not flagged.
    const SearchResult sometimes = check_model([] {
        auto& l = this_execution().make<Locks>();
        spawn("t0", [&l] {
            mutex_lock(&l.m);
            mutex_unlock(&l.m);
            check(true, "c");
            atomic_inc(&l.a);
            check(true, "c");
        });
    });
    const PropertyStats& s = property(sometimes, PropertyKind::check, "c");
    CHECK_EQUAL(2u, s.evaluations);
    CHECK_EQUAL(1u, s.after_release);
    CHECK_TEXT(!contains(summary_of(sometimes), "right after"), summary_of(sometimes).c_str());
    // Always after a release, of two different locks: flagged without naming one.
    const SearchResult various = check_model([] {
        auto& l = this_execution().make<Locks>();
        spawn("t0", [&l] {
            mutex_lock(&l.m);
            mutex_unlock(&l.m);
            check(true, "c");
            spin_lock(&l.s);
            spin_unlock(&l.s);
            check(true, "c");
        });
    });
    const PropertyStats& v = property(various, PropertyKind::check, "c");
    CHECK_EQUAL(2u, v.after_release);
    CHECK_EQUAL(std::string(""), v.release);
    CHECK_TEXT(contains(summary_of(various),
                        "2 evaluations: each right after a lock release by the "
                        "same task"),
               summary_of(various).c_str());
}

TEST(PropertyCounts, bug_on_after_spin_unlock_finds_the_free_a_check_there_cannot_see) {
    for (Search search : {Search::dfs, Search::dpor}) {
        const std::string what = search_name(search);
        CheckOptions options;
        // The same search with a check() in the BUG_ON's place finds nothing.
        expect_verified(
            check_model(lookup_and_free(Assertion::check_after_unlock), search, options), what);
        const SearchResult r =
            check_model(lookup_and_free(Assertion::bug_on_after_unlock), search, options);
        const Violation& v = only_violation(r, what);
        CHECK_EQUAL_TEXT(ViolationKind::check_failed, v.kind, what.c_str());
        CHECK_EQUAL_TEXT(std::string("BUG_ON(t.live.peek() == 0)"), v.property, what.c_str());
        CHECK_EQUAL_TEXT(std::string("kernel BUG: BUG_ON(t.live.peek() == 0)"), v.message,
                         what.c_str());
        // The trace shows the assertion's own step and the value of its condition.
        const ReplayResult rr =
            replay(lookup_and_free(Assertion::bug_on_after_unlock), r.findings[0].schedule, {});
        CHECK_TEXT(rr.ok, rr.error.c_str());
        CHECK_EQUAL(std::string("BUG_ON"), rr.trace.steps.back().operation);
        CHECK_EQUAL(std::string("lookup"), rr.trace.steps.back().task);
        CHECK(rr.trace.steps.back().value == 1);
        CHECK(property(r, PropertyKind::check, v.property).evaluations > 0);
    }
}

TEST(PropertyCounts, bug_on_is_a_scheduling_point_and_check_is_not) {
    const auto steps = [](bool bug_on) {
        const SearchResult r = check_model([bug_on] {
            auto& c = this_execution().make<Counted>();
            spawn("t", [&c, bug_on] {
                atomic_inc(&c.a);
                if (bug_on)
                    BUG_ON(c.a.peek() != 1);
                else
                    check(c.a.peek() == 1, "a is 1");
            });
        });
        expect_verified(r);
        CHECK_EQUAL(1u, r.stats.properties.size());
        CHECK_EQUAL(1u, r.stats.properties[0].evaluations);
        return r.stats.steps;
    };
    CHECK_EQUAL(1u, steps(false));
    CHECK_EQUAL(2u, steps(true));
}

TEST(PropertyCounts, warn_on_returns_its_condition_and_a_warning_fails_the_execution) {
    // Not fired, WARN_ON returns false and the task goes on.
    const SearchResult quiet = check_model([] {
        auto& c = this_execution().make<Counted>();
        spawn("t", [&c] {
            if (!WARN_ON(c.a.peek() != 0)) atomic_inc(&c.a);
        });
        final_check("went on", [&c] { return c.a.peek() == 1; });
    });
    expect_verified(quiet);
    CHECK_EQUAL(1u, property(quiet, PropertyKind::check, "WARN_ON(c.a.peek() != 0)").evaluations);
    // Fired, it is a finding.
    const SearchResult fired = check_model([] {
        auto& c = this_execution().make<Counted>();
        spawn("t", [&c] {
            atomic_inc(&c.a);
            if (WARN_ON(c.a.peek() == 1)) atomic_inc(&c.a);
        });
    });
    const Violation& v = only_violation(fired);
    CHECK_EQUAL(ViolationKind::check_failed, v.kind);
    CHECK_EQUAL(std::string("WARN_ON(c.a.peek() == 1)"), v.property);
    CHECK_EQUAL(std::string("WARNING: WARN_ON(c.a.peek() == 1)"), v.message);
    CHECK_EQUAL(2u, fired.stats.steps); // the execution ended at the warning
}
