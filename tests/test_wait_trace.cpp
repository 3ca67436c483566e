// The trace of a wait: a replay records each named operation's span, the steps it waited and,
// at each, who it waited for (the blocking chain), on a model small enough to count by hand;
// and `lockcheck MODEL --worst-wait OP`, which prints the execution where OP waited longest.
#include <string>
#include <vector>

#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Chain {
    mutex m1{"m1"};
    mutex m2{"m2"};
    shared<int> x{"x"};
};

// a (lookup) needs m1; b (update) holds m1 while it takes m2; c (commit) holds m2 over two
// writes. a waits on b, which may itself wait on c: a blocking chain two links long.
void chain_model() {
    auto& s = this_execution().make<Chain>();
    spawn("a", [&s] {
        op lookup("lookup");
        mutex_lock(&s.m1);
        mutex_unlock(&s.m1);
    });
    spawn("b", [&s] {
        op update("update");
        mutex_lock(&s.m1);
        mutex_lock(&s.m2);
        mutex_unlock(&s.m2);
        mutex_unlock(&s.m1);
    });
    spawn("c", [&s] {
        op commit("commit");
        mutex_lock(&s.m2);
        WRITE_ONCE(s.x, 1);
        WRITE_ONCE(s.x, 2);
        mutex_unlock(&s.m2);
    });
}

// a retries a trylock of m, turning a spin loop in between, while b holds m over a write.
void retry_model() {
    auto& s = this_execution().make<Chain>();
    spawn("a", [&s] {
        op lookup("lookup");
        while (!mutex_trylock(&s.m1))
            cpu_relax();
        mutex_unlock(&s.m1);
    });
    spawn("b", [&s] {
        mutex_lock(&s.m1);
        WRITE_ONCE(s.x, 1);
        mutex_unlock(&s.m1);
    });
}

Trace replayed(const Setup& setup, const std::string& text) {
    Schedule schedule;
    std::string error;
    CHECK_TEXT(parse_schedule(text, schedule, error), error.c_str());
    ReplayResult r = replay(setup, schedule, CheckOptions{});
    CHECK_TEXT(r.ok, r.error.c_str());
    return std::move(r.trace);
}

// The steps at which `task` waited, in order.
std::vector<std::uint32_t> waited_steps(const Trace& trace, TaskId task) {
    std::vector<std::uint32_t> steps;
    for (const TraceStep& s : trace.steps)
        if (waiting_in(s, task)) steps.push_back(s.step);
    return steps;
}

const TraceStep& step_at(const Trace& trace, std::uint32_t step) {
    return trace.steps.at(step - 1);
}

} // namespace

TEST_GROUP(WaitTrace){};

// By hand, schedule b c c c c b b b a a: b takes m1 (1), c takes m2 (2) and writes twice (3,
// 4) and unlocks (5), b takes and drops m2 (6, 7) and drops m1 (8), a locks and unlocks m1 (9,
// 10). a waits from the pick of step 2 to step 8: 7 steps; b waits on m2 at steps 3 to 5.
TEST(WaitTrace, a_replay_records_each_operations_span_and_the_steps_it_waited) {
    const Trace t = replayed(chain_model, "1.2.2.2.2.1.1.1.0.0");
    const OpSpan* lookup = worst_span(t, "lookup");
    CHECK(lookup != nullptr);
    CHECK_EQUAL(std::string("a"), lookup->task);
    CHECK_EQUAL(0u, lookup->begun_after);
    CHECK_EQUAL(10u, lookup->ended_at);
    CHECK_EQUAL(7u, lookup->waited);
    CHECK((std::vector<std::uint32_t>{2, 3, 4, 5, 6, 7, 8}) == waited_steps(t, 0));
    const OpSpan* update = worst_span(t, "update");
    CHECK_EQUAL(8u, update->ended_at);
    CHECK_EQUAL(3u, update->waited);
    CHECK((std::vector<std::uint32_t>{3, 4, 5}) == waited_steps(t, 1));
    CHECK_EQUAL(0u, worst_span(t, "commit")->waited);
    CHECK(worst_span(t, "fsync") == nullptr);
}

TEST(WaitTrace, the_blocking_chain_follows_each_holder_that_waits_itself) {
    const Trace t = replayed(chain_model, "1.2.2.2.2.1.1.1.0.0");
    // Step 2: b holds m1 and could go on, so the chain ends at b.
    const std::vector<WaitLink> first = blocking_chain(step_at(t, 2), 0);
    CHECK_EQUAL(1u, first.size());
    CHECK_EQUAL(std::string("lookup"), first[0].op);
    CHECK_EQUAL(std::string("mutex_lock"), first[0].operation);
    CHECK_EQUAL(std::string("m1"), first[0].object);
    CHECK_EQUAL(std::string("b"), first[0].holder);
    CHECK_EQUAL(std::string("update"), first[0].holder_op);
    // Steps 3 to 5: b waits on m2, held by c; step 5 is c's unlock, and c held m2 before it.
    for (std::uint32_t step : {3u, 4u, 5u}) {
        const std::vector<WaitLink> chain = blocking_chain(step_at(t, step), 0);
        CHECK_EQUAL(2u, chain.size());
        CHECK_EQUAL(std::string("b"), chain[1].task);
        CHECK_EQUAL(std::string("m2"), chain[1].object);
        CHECK_EQUAL(std::string("c"), chain[1].holder);
        CHECK_EQUAL(std::string("commit"), chain[1].holder_op);
    }
    CHECK_EQUAL(1u, blocking_chain(step_at(t, 6), 0).size());
    CHECK(blocking_chain(step_at(t, 9), 0).empty()); // a's own step
}

// Whatever way an operation waited (blocked, retrying a trylock, spinning), the replay of the
// schedule the search kept for its worst wait shows that many waited steps.
TEST(WaitTrace, the_worst_schedules_replay_waits_what_the_search_counted) {
    for (const Setup& setup : {Setup(chain_model), Setup(retry_model)}) {
        const SearchResult r = check_model(setup, Search::dfs, {});
        CHECK(!r.stats.ops.empty());
        for (const OpWaits& w : r.stats.ops) {
            const ReplayResult rr = replay(setup, w.worst_schedule, CheckOptions{});
            const OpSpan* span = worst_span(rr.trace, w.op);
            CHECK(span != nullptr);
            CHECK_EQUAL(w.worst, span->waited);
        }
    }
    const SearchResult chain = check_model(chain_model, Search::dfs, {});
    CHECK_EQUAL(7u, chain.stats.ops.front().worst); // lookup, as counted above
}

namespace {

// t (work) writes x twice on CPU 0, whose device interrupts once; the handler writes y.
void interrupted_model() {
    auto& s = model_state<Chain>();
    request_irq(
        7,
        [](int, void* p) {
            WRITE_ONCE(static_cast<Chain*>(p)->x, 3);
            return IRQ_HANDLED;
        },
        0, "dev", &s);
    irq_fires(7, 0);
    spawn("t", [&s] {
        op work("work");
        WRITE_ONCE(s.x, 1);
        WRITE_ONCE(s.x, 2);
    });
}

} // namespace

// A task a handler interrupts waits for the handler, which holds its CPU, whatever its own
// next step is: the chain names the CPU and the handler, not the object of that step.
TEST(WaitTrace, an_interrupted_task_waits_on_its_cpu_held_by_the_handler) {
    const SearchResult r = check_model(interrupted_model, Search::dfs, {});
    CHECK_EQUAL(1u, r.stats.ops.size());
    const OpWaits& w = r.stats.ops.front();
    CHECK(w.worst > 0);
    const ReplayResult rr = replay(interrupted_model, w.worst_schedule, CheckOptions{});
    const OpSpan* span = worst_span(rr.trace, "work");
    CHECK(span != nullptr);
    std::size_t links = 0;
    for (const TraceStep& s : rr.trace.steps) {
        const std::vector<WaitLink> chain = blocking_chain(s, span->task_id);
        if (chain.empty()) continue;
        ++links;
        CHECK_EQUAL(std::string("cpu0"), chain[0].object);
        CHECK_EQUAL(std::string("irq/7-dev"), chain[0].holder);
    }
    CHECK_EQUAL(static_cast<std::size_t>(w.worst), links);
}

TEST_GROUP(WorstWaitCli){};

namespace {

// rename-pin before the patch, under DFS: fsync's worst wait is 19 steps (the summary's "at
// most 19"): 2 steps on log_mutex while rename0 pins the log under it, 17 asleep on
// log_writer_wait until the rename's last unpin wakes it.
const std::vector<std::string> kLogMutexFsync = {"rename-pin", "--variant",  "log-mutex",
                                                 "--strategy", "dfs",        "--worst-wait",
                                                 "fsync",      "--no-timing"};

} // namespace

TEST(WorstWaitCli, the_printed_wait_is_the_summarys_worst_with_one_line_per_blocking_chain) {
    const Run r = run_lockcheck(kLogMutexFsync);
    CHECK_EQUAL(0, r.exit_code); // the search's verdict: verified
    CHECK_TEXT(contains(r.out, "worst wait of fsync: fsync0 waited 19 steps, from step 1 to step "
                               "34\n"),
               r.out.c_str());
    CHECK_TEXT(contains(r.out, "at most 19 (worst/mean"), r.out.c_str());
    CHECK_TEXT(contains(r.out, "\nwait: 19 steps\n"
                               "  steps 2-3 (2): fsync0 (fsync) waits on log_mutex (mutex_lock), "
                               "held by rename0 (rename)\n"
                               "  steps 9-25 (17): fsync0 (fsync) waits on log_writer_wait "
                               "(schedule)\n"),
               r.out.c_str());
    // The waited steps are marked in the trace, and the lane of fsync0 says on what.
    CHECK_TEXT(contains(r.out, "fsync0 waited 19 steps, marked ~):"), r.out.c_str());
    CHECK_TEXT(contains(r.out, "     2 ~atomic_inc(log_writers) -> 1            ~ waits on "
                               "log_mutex"),
               r.out.c_str());
    // It replays as it says.
    CHECK_TEXT(
        contains(r.out,
                 "replay: lockcheck rename-pin --variant log-mutex --renames 1 "
                 "--fsyncs 1 --rounds 1 --replay 0.0.0.1.1.1.1.1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
                 "0.1.1.1.1.1.1.1.1.1\n"),
        r.out.c_str());
}

TEST(WorstWaitCli, under_dpor_the_worst_wait_is_called_a_lower_bound) {
    const Run r = run_lockcheck(
        {"rename-pin", "--variant", "log-mutex", "--strategy", "dpor", "--worst-wait", "fsync"});
    CHECK_EQUAL(0, r.exit_code);
    CHECK_TEXT(contains(r.out, "note: dpor explored one order of independent steps, so this is a "
                               "lower bound on the worst wait"),
               r.out.c_str());
}

TEST(WorstWaitCli, with_trace_the_drawing_marks_the_waited_steps_and_whom_they_waited_for) {
    TempDir dir;
    std::vector<std::string> args = kLogMutexFsync;
    args.insert(args.end(), {"--trace", dir / "wait.dot"});
    const Run r = run_lockcheck(args);
    CHECK_EQUAL(0, r.exit_code);
    const std::string dot = read_file(dir / "wait.dot");
    CHECK_TEXT(contains(dot, "worst wait of fsync: fsync0 waited 19 steps"), dot.c_str());
    // fsync0 (task 1) waited at step 2, on log_mutex, which rename0's step 2 held.
    CHECK_TEXT(contains(dot, "w2_1"), dot.c_str());
    CHECK_TEXT(contains(dot, "w2_1:w -> s2:e\t[class=\"wait-for\""), dot.c_str());
    CHECK_TEXT(contains(dot, "class=waited"), dot.c_str());
}

TEST(WorstWaitCli,
     an_operation_the_model_never_finished_is_a_one_line_error_naming_its_operations) {
    const Run r = run_lockcheck({"rename-pin", "--worst-wait", "fsinc"});
    CHECK_EQUAL(2, r.exit_code);
    CHECK(is_one_line(r.err));
    CHECK_TEXT(contains(r.err, "no operation 'fsinc' finished in rename-pin --variant atomic "
                               "(did you mean 'fsync'?) (its operations: rename, fsync)"),
               r.err.c_str());
}

TEST(WorstWaitCli, it_is_refused_with_replay) {
    const Run r = run_lockcheck({"rename-pin", "--worst-wait", "fsync", "--replay", "0.1"});
    CHECK_EQUAL(2, r.exit_code);
    CHECK(is_one_line(r.err));
    CHECK_TEXT(contains(r.err, "--worst-wait"), r.err.c_str());
}

TEST(WorstWaitCli, with_report_the_page_shows_the_wait_drawn_and_traced) {
    TempDir dir;
    std::vector<std::string> args = kLogMutexFsync;
    args.insert(args.end(), {"--report", dir / "report"});
    const Run r = run_lockcheck(args);
    CHECK_EQUAL(0, r.exit_code);
    CHECK_EQUAL(std::string("index.html worst-wait.svg "), dir.listing("report"));
    const std::string html = read_file(dir / "report/index.html");
    CHECK_TEXT(contains(html, "<h2>Worst wait of fsync: fsync0 waited 19 steps</h2>"),
               html.c_str());
    CHECK_TEXT(contains(html, "class=\"node waited\""), html.c_str()); // 19 boxes
    CHECK_TEXT(contains(html, "wait: 19 steps\n"), html.c_str());
}
