// The terminal trace: one column per involved task, preemptions marked, steps the violation
// does not depend on folded, the involved objects' final state, colour only on request.
#include <string>

#include "harness.hpp"
#include "reports/text.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

TraceStep step(std::uint32_t n, TaskId id, const char* task, const char* op, const char* obj,
               const char* state, bool preempted = false) {
    TraceStep s;
    s.step = n;
    s.task_id = id;
    s.task = task;
    s.operation = op;
    s.object = obj;
    s.state = state;
    s.preempted = preempted;
    s.changed = {obj}; // every step here writes
    return s;
}

// a and b race on x; c only ever touches z.
Trace race_on_x() {
    Trace t;
    t.tasks = {"a", "b", "c"};
    t.steps = {
        step(1, 0, "a", "WRITE_ONCE", "x", "= 1"), step(2, 2, "c", "WRITE_ONCE", "z", "= 1", true),
        step(3, 2, "c", "WRITE_ONCE", "z", "= 2"), step(4, 1, "b", "WRITE_ONCE", "x", "= 2", true)};
    return t;
}

} // namespace

TEST_GROUP(TraceTable){};

TEST(TraceTable, has_a_column_per_involved_task_and_folds_the_others) {
    const std::string table = format_trace(race_on_x());
    CHECK_TEXT(contains(table, "  step  a              b              state after the step\n"),
               table.c_str());
    CHECK_TEXT(contains(table, "     2-3  \u2026 2 steps of c \u2026\n"), table.c_str());
    CHECK_TEXT(contains(table, "     1  WRITE_ONCE(x)                 x = 1\n"), table.c_str());
    CHECK_TEXT(contains(table, "     4*                WRITE_ONCE(x)  x = 2\n"), table.c_str());
}

TEST(TraceTable, counts_preemptions_and_ends_with_the_involved_objects_state) {
    const std::string table = format_trace(race_on_x());
    CHECK_TEXT(contains(table, "trace (4 steps, 2 preemptions, marked *):\n"), table.c_str());
    CHECK_TEXT(contains(table, "at the end: x = 2\n"), table.c_str());
}

TEST(TraceTable, uses_colour_only_when_asked) {
    CHECK(!contains(format_trace(race_on_x()), "\033["));
    const std::string coloured = format_trace(race_on_x(), true);
    CHECK_TEXT(contains(coloured, "\033[31m     4"), coloured.c_str()); // the violating step
}

TEST(TraceTable, a_blocked_task_is_involved_and_its_object_shown) {
    Trace t = race_on_x();
    PendingTask p;
    p.task_id = 2;
    p.task = "c";
    p.operation = "mutex_lock";
    p.object = "z";
    p.blocked = true;
    t.pending.push_back(p);
    const std::string table = format_trace(t);
    CHECK_TEXT(!contains(table, "\u2026"), table.c_str());
    CHECK_TEXT(contains(table, "at the end: x = 2; z = 2\n"), table.c_str());
}

namespace {
// race_on_x with the model's lines of its steps, but the last, which no model call made.
Trace race_on_x_located() {
    Trace t = race_on_x();
    t.steps[0].location = {"race.cpp", 12, "writer_a"};
    t.steps[1].location = {"race.cpp", 30, "bystander::<lambda>"};
    t.steps[2].location = {"race.cpp", 31, "bystander::<lambda>"};
    return t;
}
} // namespace

TEST(TraceTable, locations_change_nothing_unless_asked) {
    CHECK_EQUAL(format_trace(race_on_x()), format_trace(race_on_x_located()));
    CHECK_EQUAL(format_trace(race_on_x(), true), format_trace(race_on_x_located(), true));
}

TEST(TraceTable, asked_locations_are_a_last_column_and_a_step_without_one_shows_none) {
    const std::string table = format_trace(race_on_x_located(), false, true);
    CHECK_TEXT(contains(table, "  step  a              b              state after the step  "
                               "location\n"),
               table.c_str());
    CHECK_TEXT(contains(table, "     1  WRITE_ONCE(x)                 x = 1                 "
                               "race.cpp:12 writer_a\n"),
               table.c_str());
    CHECK_TEXT(contains(table, "     4*                WRITE_ONCE(x)  x = 2\n"), table.c_str());
    // Folded steps and the closing states are as without locations.
    CHECK_TEXT(contains(table, "     2-3  \u2026 2 steps of c \u2026\n"), table.c_str());
    CHECK_TEXT(contains(table, "at the end: x = 2\n"), table.c_str());
}

TEST(TraceTable, an_operation_shows_its_arguments_in_the_kernels_order) {
    // The model's own calls, replayed: atomic_set(v, i) names the object first, atomic_add(i, v)
    // and set_bit(nr, addr) last.
    const ReplayResult r = replay(
        [] {
            auto& v = this_execution().make<atomic_t>("aflag");
            auto& bits = this_execution().make<shared<unsigned long>>("bits");
            spawn("t", [&v, &bits] {
                atomic_set(&v, 1);
                atomic_add(2, &v);
                set_bit(3, &bits);
            });
        },
        Schedule{0, 0, 0}, CheckOptions{});
    CHECK_TEXT(r.ok, r.error.c_str());
    CHECK_EQUAL(3u, r.trace.steps.size());
    CHECK_EQUAL("atomic_set(aflag, 1) -> 1", operation_text(r.trace.steps[0]));
    CHECK_EQUAL("atomic_add(2, aflag) -> 3", operation_text(r.trace.steps[1]));
    CHECK_EQUAL("set_bit(3, bits) -> 0", operation_text(r.trace.steps[2]));
}
