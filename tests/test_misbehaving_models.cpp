// Model code that misbehaves: an exception, unbounded recursion, an endless loop with no
// scheduling point, a crash, an exit. Each must become a finding of its own kind, and the
// checker must stay usable: the search goes on with keep_going, a later explore works.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Vars {
    shared<int> x{"x"};
    shared<int> y{"y"};
};

// Recursion the compiler cannot turn into a loop: every frame's buffer is read after the
// call returns, and the bound is never reached before the stack runs out.
[[gnu::noinline]] unsigned long recurse(unsigned long depth, volatile char* caller) {
    volatile char frame[256];
    frame[0] = static_cast<char>(depth);
    if (depth == ~0UL) return static_cast<unsigned long>(caller[0]);
    const unsigned long below = recurse(depth + 1, frame);
    return below + static_cast<unsigned long>(frame[0] + caller[0]);
}

void overflow_the_stack() {
    volatile char base[1] = {0};
    recurse(0, base);
}

// A null dereference on purpose, which under UBSan (the asan preset) must still reach the
// processor and raise SIGSEGV, as it does in a user's model.
int* volatile g_null = nullptr; // volatile: the compiler cannot see the fault coming
__attribute__((no_sanitize("undefined"))) void store_through_null() {
    *g_null = 1;
}

// After the exploration of something that went wrong, the checker must still count right.
void expect_a_later_explore_works() {
    const SearchResult r = check_model([] {
        auto& v = this_execution().make<Vars>();
        spawn("a", [&v] {
            WRITE_ONCE(v.x, 1);
            WRITE_ONCE(v.x, 2);
        });
        spawn("b", [&v] {
            WRITE_ONCE(v.y, 1);
            WRITE_ONCE(v.y, 2);
        });
    });
    expect_verified(r, "the explore after");
    CHECK_EQUAL(6ul, r.stats.executions);
}

} // namespace

TEST_GROUP(MisbehavingModels){};

TEST(MisbehavingModels, a_thrown_exception_is_reported_with_its_type_and_message) {
    const SearchResult r = check_model([] {
        auto& v = this_execution().make<Vars>();
        spawn("a", [&v] {
            WRITE_ONCE(v.x, 1);
            throw std::runtime_error("boom");
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::exception, v.kind);
    CHECK_EQUAL("exception", v.property);
    CHECK_EQUAL("a threw std::runtime_error: boom", v.message);
}

TEST(MisbehavingModels, a_thrown_non_exception_is_reported_too) {
    const SearchResult r = check_model([] { spawn("a", [] { throw 42; }); });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::exception, v.kind);
    CHECK_EQUAL("a threw an unknown exception", v.message);
}

TEST(MisbehavingModels, search_goes_on_correctly_after_an_exception_with_keep_going) {
    // writer's two stores interleave with reader's one read 3 ways: the reader throws in the
    // first two (it sees x = 1), and the third fails the final check. The count is the same
    // as with no exception at all: throwing must neither lose nor repeat a branch.
    const SearchResult r = check_keep_going([] {
        auto& v = this_execution().make<Vars>();
        spawn("writer", [&v] {
            WRITE_ONCE(v.x, 1);
            WRITE_ONCE(v.y, 1);
        });
        spawn("reader", [&v] {
            if (READ_ONCE(v.x)) throw std::logic_error("reader saw the store");
        });
        final_check("the store never happened", [&v] { return v.x.peek() == 0; });
    });
    CHECK_EQUAL(3ul, r.stats.executions);
    CHECK_EQUAL(2ul, r.findings.size());
    CHECK_EQUAL(ViolationKind::exception, r.findings[0].violation.kind);
    CHECK_EQUAL(ViolationKind::final_check, r.findings[1].violation.kind);
    expect_a_later_explore_works();
}

TEST(MisbehavingModels, unbounded_recursion_is_a_stack_overflow_and_the_checker_survives) {
    CheckOptions options;
    options.stack_size = 64 * 1024;
    // a overflows right after its step; b's two steps before it give three executions.
    const SearchResult r = check_keep_going(
        [] {
            auto& v = this_execution().make<Vars>();
            spawn("a", [&v] {
                WRITE_ONCE(v.x, 1);
                overflow_the_stack();
            });
            spawn("b", [&v] {
                WRITE_ONCE(v.y, 1);
                WRITE_ONCE(v.y, 2);
            });
        },
        options);
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::stack_overflow, v.kind);
    CHECK_EQUAL("stack-overflow", v.property);
    CHECK_TEXT(contains(v.message, "a overflowed its 64 KiB stack"), v.message.c_str());
    CHECK_EQUAL(3ul, r.stats.executions);
    expect_a_later_explore_works();
}

TEST(MisbehavingModels, a_stack_overflow_before_the_first_step_is_caught_too) {
    const SearchResult r = check_model([] { spawn("a", [] { overflow_the_stack(); }); });
    CHECK_EQUAL(ViolationKind::stack_overflow, only_violation(r).kind);
    expect_a_later_explore_works();
}

TEST(MisbehavingModels, a_task_spawned_mid_run_that_overflows_is_caught_and_its_parent_unwound) {
    // The parent starts the child from its own fiber, inside its second scheduling point; the
    // overflow escapes to the main context, which must still unwind the parent from there.
    // The destructor is model code run by the parent: it must see the parent as current.
    static std::string unwound_as;
    struct SeesWhoUnwinds {
        ~SeesWhoUnwinds() {
            Execution& ex = this_execution();
            unwound_as = ex.in_task() ? ex.current_task().name() : "no task";
        }
    };
    unwound_as.clear();
    const SearchResult r = check_model([] {
        auto& v = this_execution().make<Vars>();
        spawn("parent", [&v] {
            SeesWhoUnwinds guard;
            WRITE_ONCE(v.x, 1);
            spawn("child", [] { overflow_the_stack(); });
            WRITE_ONCE(v.x, 2);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::stack_overflow, v.kind);
    CHECK_TEXT(contains(v.message, "child overflowed"), v.message.c_str());
    CHECK_EQUAL(1ul, r.stats.executions);
    CHECK_EQUAL(std::string("parent"), unwound_as);
    expect_a_later_explore_works();
}

TEST(MisbehavingModels, an_endless_loop_without_a_scheduling_point_is_no_progress) {
    CheckOptions options;
    options.step_timeout = 1; // the loop never ends, so only the wait depends on this
    const SearchResult r = check_model(
        [] {
            auto& v = this_execution().make<Vars>();
            spawn("a", [&v] {
                WRITE_ONCE(v.x, 1);
                volatile unsigned long spins = 0;
                for (;;)
                    spins = spins + 1;
            });
        },
        options);
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::no_progress, v.kind);
    CHECK_TEXT(contains(v.message, "a ran"), v.message.c_str());
    expect_a_later_explore_works();
}

TEST(MisbehavingModels, a_crash_and_an_exit_end_their_task_and_the_checker_survives_both) {
    // In this process: after each the signal handler and the exit functions still work, and
    // so does the next search (tests/test_model_faults.cpp runs every fault in the binary).
    const SearchResult crashed = check_keep_going([] {
        auto& v = this_execution().make<Vars>();
        spawn("a", [&v] {
            if (READ_ONCE(v.x)) store_through_null();
        });
        spawn("b", [&v] { WRITE_ONCE(v.x, 1); });
    });
    CHECK_EQUAL("crash (SIGSEGV) in task a: Segmentation fault", only_violation(crashed).message);
    CHECK_EQUAL(2ul, crashed.stats.executions);
    const SearchResult exited = check_model([] { spawn("a", [] { std::exit(0); }); });
    CHECK_EQUAL(ViolationKind::exit, only_violation(exited).kind);
    expect_a_later_explore_works();
}

TEST(MisbehavingModels, a_primitive_called_while_the_model_sets_up_is_refused_by_name) {
    std::string refused;
    try {
        check_model([] {
            auto& m = this_execution().make<struct mutex>("m");
            mutex_lock(&m); // at set-up: no task runs, so there is no step to take
        });
    } catch (const std::logic_error& e) {
        refused = e.what();
    }
    CHECK_TEXT(
        contains(refused, "needs a running task: call it from a task, not while the model sets up"),
        refused.c_str());
}
