// Schedules as values: format and parse are inverse, bad text is refused with the step it
// breaks at, a schedule that does not fit the model is refused with the step it breaks at,
// and every counterexample the search finds replays to the very same violation.
#include <stdexcept>
#include <string>

#include "checker/protocol.hpp"
#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// Task 0 "a" and task 1 "b" each take and release one mutex: 4 steps, and b cannot take
// the mutex while a holds it.
void two_lockers() {
    auto& m = this_execution().make<mutex>("M");
    for (const char* name : {"a", "b"})
        spawn(name, [&m] {
            mutex_lock(&m);
            mutex_unlock(&m);
        });
}

struct Misfit {
    Schedule schedule;
    std::string error; // what the error says (it may go on)
};

const Misfit kMisfits[] = {
    {{0, 0, 0}, "step 3: task 0 (a) has already finished"},
    {{0, 5}, "step 2: there is no task 5 (the model has tasks 0..1)"},
    {{0}, "the schedule ends after 1 step"},
    {{0, 0, 1, 1, 1}, "the execution ends after 4 steps but the schedule has 5"},
};

struct BadText {
    const char* text;
    const char* error;
};

const BadText kBadTexts[] = {
    {"", "the schedule is empty (one of no step is 'none')"},
    {"0..1", "step 2: '' is not a task id (0..63)"},
    {"0.1.", "step 3: '' is not a task id (0..63)"},
    {"0.x", "step 2: 'x' is not a task id (0..63)"},
    {"64", "step 1: '64' is not a task id (0..63)"},
    {"-1", "step 1: '-1' is not a task id (0..63)"},
    {"1 .0", "step 1: '1 ' is not a task id (0..63)"},
    {"99999999999999999999", "step 1: '99999999999999999999' is not a task id (0..63)"},
    // Control characters are quoted as escapes: the reason stays one line (found by
    // fuzz/fuzz_schedule).
    {"0.1\n2", "step 2: '1\\n2' is not a task id (0..63)"},
    {"\x1b[31m", "step 1: '\\x1b[31m' is not a task id (0..63)"},
};

} // namespace

TEST_GROUP(Replay){};

TEST(Replay, format_and_parse_are_inverse) {
    const Schedule s{0, 1, 12, 63, 0};
    CHECK_EQUAL("0.1.12.63.0", format_schedule(s));
    Schedule parsed;
    std::string error;
    CHECK_TEXT(parse_schedule("0.1.12.63.0", parsed, error), error.c_str());
    CHECK(s == parsed);
}

TEST(Replay, a_violation_before_the_first_step_replays_with_the_schedule_none) {
    // The task throws while it starts, before its first scheduling point: no step was taken.
    const Setup throws_at_start = [] { spawn("t", [] { throw std::runtime_error("at start"); }); };
    const SearchResult r = check_model(throws_at_start);
    CHECK_EQUAL(1u, r.findings.size());
    CHECK(r.findings[0].schedule.empty());
    CHECK_EQUAL("none", format_schedule(r.findings[0].schedule));
    Schedule parsed{1, 2};
    std::string error;
    CHECK_TEXT(parse_schedule("none", parsed, error), error.c_str());
    CHECK(parsed.empty());
    const ReplayResult rr = replay(throws_at_start, parsed, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    CHECK(rr.outcome.violation && rr.outcome.violation->kind == ViolationKind::exception);
}

TEST(Replay, text_that_is_not_a_schedule_is_refused_naming_the_step) {
    for (const BadText& b : kBadTexts) {
        Schedule parsed;
        std::string error;
        CHECK_TEXT(!parse_schedule(b.text, parsed, error), b.text);
        CHECK_EQUAL_TEXT(std::string(b.error), error, b.text);
    }
}

TEST(Replay, a_schedule_that_fits_runs_to_the_end_with_a_full_trace) {
    const ReplayResult rr = replay(&two_lockers, Schedule{1, 1, 0, 0}, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    CHECK(rr.outcome.end == End::finished);
    CHECK_EQUAL(4ul, rr.trace.steps.size());
    CHECK_EQUAL("b", rr.trace.steps[0].task);
    CHECK_EQUAL("mutex_lock", rr.trace.steps[0].operation);
    CHECK_EQUAL("held by b", rr.trace.steps[0].state);
}

TEST(Replay, the_trace_shows_what_each_step_read_or_wrote_and_the_state_after_it) {
    const Setup setup = [] {
        auto& x = this_execution().make<shared<int>>("x");
        spawn("writer", [&x] { x.write(5); });
        spawn("reader", [&x] { x.read(); });
    };
    const ReplayResult rr = replay(setup, Schedule{0, 1}, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    CHECK_EQUAL(2ul, rr.trace.steps.size());
    const TraceStep& write = rr.trace.steps[0];
    CHECK_EQUAL("writer", write.task);
    CHECK_EQUAL("write", write.operation);
    CHECK_EQUAL("x", write.object);
    CHECK_TEXT(write.value == 5, "the write's value is missing");
    CHECK_EQUAL("= 5", write.state);
    const TraceStep& read = rr.trace.steps[1];
    CHECK_EQUAL("reader", read.task);
    CHECK_TEXT(read.value == 5, "the read's value is missing");
}

TEST(Replay, a_schedule_that_does_not_fit_the_model_is_refused_naming_the_step) {
    for (const Misfit& m : kMisfits) {
        const std::string what = format_schedule(m.schedule);
        const ReplayResult rr = replay(&two_lockers, m.schedule, CheckOptions{});
        CHECK_TEXT(!rr.ok, what.c_str());
        CHECK_TEXT(contains(rr.error, m.error), (what + ": " + rr.error).c_str());
    }
}

TEST(Replay, a_blocked_task_in_the_schedule_is_refused_as_blocked_not_as_finished) {
    // a holds M after step 1, so b, which has not even started its first step, is blocked.
    const ReplayResult rr = replay(&two_lockers, Schedule{0, 1}, CheckOptions{});
    CHECK(!rr.ok);
    CHECK_EQUAL("step 2: task 1 (b) cannot run: it is blocked in mutex_lock(M)", rr.error);
}

TEST(Replay, every_counterexample_of_the_shipped_models_replays_to_the_same_violation) {
    int replayed = 0;
    for (const Protocol& p : protocol_models()) {
        for (std::size_t i = 0; i < p.variants.size(); ++i) {
            const Setup setup = default_setup(p, i);
            CheckOptions options;
            options.depth = p.depth_for(i);
            // Found by the search the CLI runs: DPOR's counterexamples replay like DFS's.
            for (const Finding& f : check_model(setup, kDefaultSearch, options).findings) {
                const std::string what =
                    p.name + " " + p.variants[i].name + " " + format_schedule(f.schedule);
                const ReplayResult rr = replay(setup, f.schedule, options);
                CHECK_TEXT(rr.ok, (what + ": " + rr.error).c_str());
                CHECK_TEXT(rr.outcome.violation.has_value(), what.c_str());
                CHECK_EQUAL_TEXT(f.violation.key(), rr.outcome.violation->key(), what.c_str());
                CHECK_EQUAL_TEXT(f.violation.step, rr.outcome.violation->step, what.c_str());
                // One trace line per step (the schedule also holds migration choices).
                CHECK_EQUAL_TEXT(rr.outcome.steps, rr.trace.steps.size(), what.c_str());
                ++replayed;
            }
        }
    }
    CHECK_TEXT(replayed > 0, "no shipped variant has a counterexample to replay");
}
