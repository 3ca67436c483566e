// --replay on the command line: the `replay:` line a run prints must reproduce its trace byte
// for byte, for every shipped variant that has a counterexample; a schedule that does not
// fit the model (or is not a schedule) exits 2 with one line on stderr naming the step.
#include <algorithm>
#include <string>
#include <vector>

#include "checker/protocol.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// The counterexample a run prints: the violation line and the trace, up to the replay line.
std::string counterexample(const std::string& check_output) {
    return text_before(check_output, "replay: ");
}

// What a replay prints before its summary block: the same violation line and trace.
std::string replayed(const std::string& replay_output) {
    return text_before(replay_output, "\n== lockcheck summary ==");
}

// The no-pin variant's printed counterexample schedule, as text.
std::string no_pin_schedule() {
    const Run run = run_lockcheck({"rename-pin", "--variant", "no-pin"});
    const std::vector<std::string> args = replay_arguments(run.out);
    CHECK_TEXT(!args.empty() && args.size() >= 2, run.out.c_str());
    return args.back();
}

std::string without_last_step(const std::string& schedule) {
    return schedule.substr(0, schedule.rfind('.'));
}

std::size_t steps_of(const std::string& schedule) {
    return static_cast<std::size_t>(std::count(schedule.begin(), schedule.end(), '.')) + 1;
}

} // namespace

TEST_GROUP(ReplayCli){};

TEST(ReplayCli, the_printed_replay_line_reproduces_the_trace_byte_for_byte) {
    int compared = 0;
    for (const Protocol& p : protocol_models()) {
        for (const Variant& v : p.variants) {
            if (!v.expect.expects_violation) continue;
            const std::string what = p.name + " --variant " + v.name;
            const Run check = run_lockcheck({p.name, "--variant", v.name});
            CHECK_EQUAL_TEXT(1, check.exit_code, what.c_str());
            const std::vector<std::string> args = replay_arguments(check.out);
            CHECK_TEXT(!args.empty(), (what + " printed no replay line:\n" + check.out).c_str());

            const Run again = run_lockcheck(args);
            CHECK_EQUAL_TEXT(1, again.exit_code, (what + ": " + again.err).c_str());
            const std::string expected = counterexample(check.out);
            CHECK_TEXT(contains(expected, "trace ("), what.c_str());
            CHECK_EQUAL_TEXT(expected, replayed(again.out), what.c_str());
            ++compared;
        }
    }
    CHECK_TEXT(compared > 0, "no shipped variant expects a violation: nothing was replayed");
}

TEST(ReplayCli, a_schedule_that_does_not_fit_exits_2_naming_the_step) {
    const std::string full = no_pin_schedule();
    const std::size_t n = steps_of(full);
    struct Case {
        std::string schedule;
        std::string names;
    };
    const Case cases[] = {
        // rename0 takes log_mutex first, so fsync0 cannot take it at step 2 (why it cannot
        // is pinned in the Replay group).
        {"0.1", "step 2: task 1 (fsync0) "},
        {"0.7", "step 2: there is no task 7"},
        {without_last_step(full), "the schedule ends after " + std::to_string(n - 1) + " step"},
        {full + ".0", "the execution ends after " + std::to_string(n) + " steps but the " +
                          "schedule has " + std::to_string(n + 1)},
        {"0.x", "step 2: 'x' is not a task id"},
        {"0..0", "step 2: '' is not a task id"},
        {"", "the schedule is empty"},
    };
    for (const Case& c : cases) {
        const Run run =
            run_lockcheck({"rename-pin", "--variant", "no-pin", "--replay", c.schedule});
        const std::string what = "--replay '" + c.schedule + "' printed: " + run.err;
        CHECK_EQUAL_TEXT(2, run.exit_code, what.c_str());
        CHECK_TEXT(is_one_line(run.err), what.c_str());
        CHECK_TEXT(contains(run.err, "--replay: " + c.names), what.c_str());
        CHECK_TEXT(run.out.empty(), what.c_str());
    }
}
