// ChainDepth on its own: the depth a step gets from the steps it depends on, step by step.
// The scheduling step skips the bookkeeping of a step that repeats the one before (same task,
// same object, a read or both writes); these pin that the steps it must not skip are still
// recorded: a write after the task's own read, and a global step after the task's own step.
#include "checker/lowest_first.hpp"
#include "harness.hpp"
#include "model/atomic.hpp"
#include "scheduler/chain_depth.hpp"
#include "scheduler/execution.hpp"
#include "scheduler/stack_pool.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

constexpr TaskId a = 0;
constexpr TaskId b = 1;

// An execution to register the objects with; its tasks and steps are not used.
struct Objects {
    StackPool stacks{CheckOptions{}.stack_size};
    LowestFirst strategy;
    Execution ex{stacks, strategy, Execution::Limits{100, 10}};
    atomic_t& x = ex.make<atomic_t>("x");
    atomic_t& y = ex.make<atomic_t>("y");
};

Operation read(const Object& obj) {
    return Operation{.obj = &obj, .read_only = true};
}
Operation write(const Object& obj) {
    return Operation{.obj = &obj};
}
Operation global_write(const Object& obj) {
    return Operation{.obj = &obj, .global = true};
}

// Two tasks at depths 0 (a) and 1 (b): b's write of y came after a's.
ChainDepth two_tasks_apart(const Objects& o) {
    ChainDepth depth;
    depth.add_task();
    depth.add_task();
    depth.take(a, write(o.y));
    depth.take(b, write(o.y));
    return depth;
}

} // namespace

TEST_GROUP(ChainDepth){};

TEST(ChainDepth, a_write_after_the_tasks_own_read_depends_on_the_reads_of_others_since) {
    Objects o;
    ChainDepth depth = two_tasks_apart(o);
    depth.take(b, read(o.x));
    depth.take(a, read(o.x));
    CHECK_EQUAL(1u, depth.deepest());
    // a's read did not depend on b's; its write does, one hand-over deeper.
    CHECK_EQUAL(2u, depth.of(a, write(o.x)));
    depth.take(a, write(o.x));
    CHECK_EQUAL(2u, depth.deepest());
}

TEST(ChainDepth, a_global_step_after_the_tasks_own_step_on_its_object_depends_on_every_task) {
    Objects o;
    ChainDepth depth = two_tasks_apart(o);
    depth.take(a, write(o.x));
    CHECK_EQUAL(1u, depth.deepest());
    depth.take(a, global_write(o.x));
    CHECK_EQUAL(2u, depth.deepest());
}

TEST(ChainDepth, a_repeated_read_or_write_is_as_deep_as_the_first_and_others_still_see_it) {
    Objects o;
    ChainDepth depth = two_tasks_apart(o);
    // b reads x twice at its own depth; a's write after them is one hand-over deeper.
    depth.take(b, read(o.x));
    depth.take(b, read(o.x));
    CHECK_EQUAL(1u, depth.deepest());
    CHECK_EQUAL(2u, depth.of(a, write(o.x)));
    // a writes x twice, then reads its own write: b's read after them is one deeper again.
    depth.take(a, write(o.x));
    depth.take(a, write(o.x));
    depth.take(a, read(o.x));
    CHECK_EQUAL(2u, depth.deepest());
    CHECK_EQUAL(3u, depth.of(b, read(o.x)));
    depth.take(b, read(o.x));
    // a's next write depends on b's read, not only on its own write and read.
    CHECK_EQUAL(4u, depth.of(a, write(o.x)));
}
