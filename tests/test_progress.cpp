// The progress line: what it says for a search and for minimizing, cut to the terminal's
// width; drawn only on a terminal, without -q, once a run has gone on for a second, redrawn
// in place and erased before the output goes on; the explored fraction a search estimates
// grows from 0 towards 1 as a depth-first search goes; and a search reports itself while it
// runs, from the library as on a real terminal.
#include <csignal>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "checker/dfs.hpp"
#include "checker/progress.hpp"
#include "cli/progress_line.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::cli;
using namespace lockcheck::detail::testing;

namespace {

ProgressReport searching() {
    ProgressReport r;
    r.executions = 120000;
    r.seconds = 3;
    r.deepest = 37;
    r.violations = 1;
    r.explored = 0.183;
    return r;
}

ProgressReport minimizing() {
    ProgressReport r;
    r.phase = ProgressReport::Phase::minimizing;
    r.executions = 1234;
    r.seconds = 2;
    r.bound = 1;
    r.preemptions = 2;
    r.steps = 17;
    return r;
}

// Keeps every report a search shows.
// Keeps the reports; once it has `wanted` of them, asks the search to stop as a signal does.
class Recorder final : public ProgressSink {
  public:
    void show(const ProgressReport& report) override {
        reports.push_back(report);
        if (stop && reports.size() == wanted) *stop = SIGINT;
    }
    std::vector<ProgressReport> reports;
    StopRequest* stop = nullptr;
    std::size_t wanted = 0;
};

} // namespace

TEST_GROUP(Progress){};

TEST(Progress, a_search_line_says_executions_rate_depth_violations_time_and_the_part_done) {
    STRCMP_EQUAL("search: 120000 executions (40000/s), deepest 37, 1 violation, 3.0 s, ~18% done",
                 progress_text(searching(), {}, 0).c_str());
    ProgressReport unknown = searching();
    unknown.explored = -1;
    unknown.violations = 0;
    STRCMP_EQUAL("search: 120000 executions (40000/s), deepest 37, 0 violations, 3.0 s",
                 progress_text(unknown, {}, 0).c_str());
    ProgressReport huge = searching();
    huge.explored = 0.00003;
    CHECK(progress_text(huge, {}, 0).ends_with(", 3.0 s, <1% done"));
}

TEST(Progress, a_minimizing_line_says_the_best_so_far_the_bound_and_the_time_allowed) {
    STRCMP_EQUAL("minimizing: best 2 preemptions, 17 steps; bound 1, 1234 executions (617/s), "
                 "2.0 s",
                 progress_text(minimizing(), {}, 0).c_str());
    const ProgressContext context{"rename-pin --variant no-pin: ", 2, 3, 10};
    STRCMP_EQUAL("rename-pin --variant no-pin: minimizing 2 of 3: best 2 preemptions, 17 steps; "
                 "bound 1, 1234 executions (617/s), 2.0 s of at most 10.0 s",
                 progress_text(minimizing(), context, 0).c_str());
}

TEST(Progress, the_line_is_cut_to_one_less_than_the_terminal_is_wide) {
    // A line as wide as the terminal would wrap, and '\r' would no longer reach its start.
    CHECK_EQUAL(39u, progress_text(searching(), {}, 40).size());
    STRCMP_EQUAL("search: 120000", progress_text(searching(), {}, 15).c_str());
}

TEST(Progress, only_a_terminal_without_quiet_gets_a_line) {
    CHECK(wants_progress(true, false));
    CHECK(!wants_progress(true, true));
    CHECK(!wants_progress(false, false));
    CHECK(!wants_progress(false, true));
}

TEST(Progress, nothing_is_drawn_before_the_line_has_been_quiet_for_its_time) {
    // An hour, not the command's second: no pause of a loaded machine between the two lines
    // can outlast it.
    std::ostringstream terminal;
    ProgressLine line(terminal, 80, 3600);
    line.show(searching());
    line.clear();
    STRCMP_EQUAL("", terminal.str().c_str());
}

TEST(Progress, the_line_is_redrawn_in_place_and_erased_before_other_output) {
    std::ostringstream terminal;
    ProgressLine line(terminal, 80, 0);
    line.show(searching());
    line.show(minimizing());
    line.clear();
    line.clear(); // nothing drawn: nothing to erase
    const std::string expected = "\r" + progress_text(searching(), {}, 80) + "\x1b[K" + "\r" +
                                 progress_text(minimizing(), {}, 80) + "\x1b[K" + "\r\x1b[K";
    STRCMP_EQUAL(expected.c_str(), terminal.str().c_str());
}

TEST(Progress, the_explored_fraction_weighs_each_level_by_its_share_of_the_tree) {
    ExploredFraction f;
    CHECK(f.level(1, 2)); // the second half
    CHECK(f.level(2, 4)); // its third quarter
    DOUBLES_EQUAL(0.5 + 0.5 * 0.5, f.fraction(), 1e-12);
    ExploredFraction deep;
    while (deep.level(0, 10)) {
    }
    // Levels whose share is below 1e-4 are not read.
    DOUBLES_EQUAL(0, deep.fraction(), 0);
}

TEST(Progress, a_depth_first_search_estimates_a_part_done_that_only_grows) {
    const Protocol& p = *find_registered_model("rename-pin");
    const Setup setup = default_setup(p, p.default_variant);
    Dfs dfs;
    StackPool stacks(CheckOptions{}.stack_size);
    double before = dfs.explored();
    CHECK_EQUAL(0.0, before);
    std::uint64_t executions = 0;
    do {
        Execution ex(stacks, dfs, Execution::Limits{p.depth_for(p.default_variant), 10});
        setup();
        (void)ex.run();
        const double now = dfs.explored();
        CHECK(now >= before && now < 1);
        before = now;
        ++executions;
    } while (dfs.next_execution());
    CHECK(executions > 100);
    // As the last execution runs, all but its own share of the tree (1/32 here) is done.
    CHECK_TEXT(before > 0.9, std::to_string(before).c_str());
}

TEST(Progress, a_search_shows_its_progress_at_most_four_times_a_second_while_it_runs) {
    // Stopped by the third report, not after a time that a loaded machine may fill with fewer.
    const Protocol& p = *find_registered_model("lastzero");
    StopRequest stop{0};
    Recorder recorder;
    recorder.stop = &stop;
    recorder.wanted = 3;
    CheckOptions options;
    options.time_limit = 600; // only for the part done it reports
    options.stop = &stop;
    options.progress = &recorder;
    ParameterValues values = p.default_values();
    values[0] = 12;
    const Setup setup = [&] { p.setup(p.default_variant, values); };
    const std::unique_ptr<Strategy> dfs = make_search(Search::dfs, options.depth);
    const SearchResult result = explore(setup, *dfs, options);
    CHECK_EQUAL(std::string("SIGINT"), result.stats.stopped_by);
    CHECK_EQUAL(3u, recorder.reports.size());
    for (std::size_t i = 1; i < recorder.reports.size(); ++i) {
        const ProgressReport& r = recorder.reports[i];
        CHECK(r.executions > recorder.reports[i - 1].executions);
        CHECK(r.seconds >= recorder.reports[i - 1].seconds + 0.25);
        // Under a time limit the part done is at least the part of the time used.
        CHECK(r.explored >= r.seconds / options.time_limit - 1e-9 && r.explored <= 1);
    }
}

TEST(Progress, a_run_on_a_terminal_draws_the_line_and_erases_it_and_q_turns_it_off) {
    // Stopped once the line is drawn (^C), not by a time limit that a loaded machine may reach
    // before the line's first second is over.
    std::vector<std::string> args = {"lastzero", "--writers",    "12",  "--strategy",
                                     "dfs",      "--time-limit", "600s"};
    const Run run = run_lockcheck_interrupted(args, SIGINT, "\rsearch: ");
    CHECK_EQUAL_TEXT(130, run.exit_code, run.err.c_str());
    CHECK_TEXT(contains(run.err, "\rsearch: "), run.err.c_str());
    CHECK_TEXT(contains(run.err, " executions ("), run.err.c_str());
    // The last thing the terminal got erased the line: the summary stands alone.
    CHECK_TEXT(run.err.ends_with("\r\x1b[K"), run.err.c_str());
    CHECK(contains(run.out, "== lockcheck summary =="));

    // Long enough that it would draw the line; whatever the machine's speed, none is drawn.
    args.back() = "1.6s";
    std::vector<std::string> quiet = args;
    quiet.push_back("-q");
    STRCMP_EQUAL("", run_lockcheck_on_terminal(quiet, 100).err.c_str());
    // Not a terminal: no line either.
    STRCMP_EQUAL("", run_lockcheck(args).err.c_str());
}
