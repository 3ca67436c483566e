// Model code that crashes, ends the process or blocks inside the C library, run in a lockcheck
// binary of its own (faulty_model.cpp): each must end as a finding with its trace and exit
// code 1, never as a silent death, an exit code 0 that CI reads as a pass, or a hang. The
// reader of the `faulty` model misbehaves at step 3, where it sees the writer's store.
#include <csignal>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "harness.hpp"
#include "lockcheck_binary.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck::detail::testing;

namespace {

Run run_faulty(const std::string& variant, std::vector<std::string> options = {}) {
    std::vector<std::string> args{"faulty", "--variant", variant};
    args.insert(args.end(), options.begin(), options.end());
    return run_binary(LOCKCHECK_FAULTY_BINARY, args);
}

// The run reported `headline` with the trace that leads to it (the reader's step 3, the
// replay line) and exited 1; with --keep-going, the search went on to the final check that
// only another interleaving breaks.
void expect_finding(const Run& run, const std::string& headline, bool went_on = false) {
    CHECK_EQUAL(1, run.exit_code);
    CHECK_TEXT(contains(run.out, headline), run.out.c_str());
    CHECK_TEXT(contains(run.out, "READ_ONCE(x) -> 1"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "replay: "), run.out.c_str());
    CHECK_EQUAL(went_on, contains(run.out, "VIOLATION (final-check)"));
}

// Adds `option` to ASAN_OPTIONS for the processes the test starts while it lives (the test
// process read its own at its start): no effect but in a build with AddressSanitizer.
class AsanOption {
  public:
    explicit AsanOption(const std::string& option) {
        if (const char* value = std::getenv("ASAN_OPTIONS")) previous_ = value;
        setenv("ASAN_OPTIONS", (previous_ ? *previous_ + ":" : "").append(option).c_str(), 1);
    }
    ~AsanOption() {
        if (previous_)
            setenv("ASAN_OPTIONS", previous_->c_str(), 1);
        else
            unsetenv("ASAN_OPTIONS");
    }
    AsanOption(const AsanOption&) = delete;
    AsanOption& operator=(const AsanOption&) = delete;

  private:
    std::optional<std::string> previous_;
};

} // namespace

TEST_GROUP(ModelFaults){};

TEST(ModelFaults, a_null_dereference_is_a_crash_with_its_trace_and_the_search_goes_on) {
    expect_finding(run_faulty("null-deref", {"--keep-going"}),
                   "VIOLATION (crash) at step 3: crash (SIGSEGV) in task reader: "
                   "Segmentation fault",
                   true);
}

TEST(ModelFaults, a_division_by_zero_is_a_crash) {
    expect_finding(run_faulty("divide-by-zero"),
                   "VIOLATION (crash) at step 3: crash (SIGFPE) in task reader");
}

TEST(ModelFaults, abort_is_a_crash_and_the_search_goes_on) {
    expect_finding(run_faulty("abort", {"--keep-going"}),
                   "VIOLATION (crash) at step 3: crash (SIGABRT) in task reader: Aborted", true);
}

TEST(ModelFaults, a_crash_outside_any_task_keeps_its_default_fatal_action) {
    // In the set-up no task runs: lockcheck cannot tell the model's fault from its own bug,
    // and swallowing its own would be worse than dying as it always did. (AddressSanitizer's
    // handler would report it and exit 1: off, the signal keeps its default action.)
    const AsanOption no_asan_handler("handle_segv=0");
    const Run run = run_faulty("set-up-crash");
    CHECK_EQUAL(128 + SIGSEGV, run.exit_code);
}

TEST(ModelFaults, exit_0_in_a_task_is_a_finding_and_the_search_goes_on) {
    expect_finding(run_faulty("exit", {"--keep-going"}),
                   "VIOLATION (exit) at step 3: reader called exit(0), which would have ended "
                   "lockcheck",
                   true);
}

TEST(ModelFaults, quick_exit_and__exit_in_a_task_are_findings_too) {
    expect_finding(run_faulty("quick-exit"), "reader called quick_exit(0)");
    expect_finding(run_faulty("_exit"), "reader called _exit(0)");
}

TEST(ModelFaults, exit_0_in_the_set_up_ends_the_run_as_a_failure_and_says_why) {
    const Run run = run_faulty("set-up-exit");
    CHECK_EQUAL(1, run.exit_code);
    CHECK_TEXT(contains(run.err, "model code called exit(0) outside any task"), run.err.c_str());
}

TEST(ModelFaults, a_task_sleeping_in_a_loop_is_no_progress_after_the_step_timeout) {
    // usleep() waits inside the C library, where the watchdog would not jump out of before.
    expect_finding(run_faulty("sleep-loop", {"--step-timeout", "1", "--no-minimize"}),
                   "VIOLATION (no-progress) at step 3: reader waited 1 s inside the C library");
}

TEST(ModelFaults, a_std_mutex_held_across_a_scheduling_point_is_no_progress) {
    const Run run = run_faulty("std-mutex", {"--step-timeout", "1", "--no-minimize"});
    CHECK_EQUAL(1, run.exit_code);
    CHECK_TEXT(contains(run.out, "VIOLATION (no-progress) at step 2: b waited 1 s inside the "
                                 "C library"),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "2*                     WRITE_ONCE(y) -> 1"), run.out.c_str());
}

TEST(ModelFaults, a_task_that_cannot_be_interrupted_ends_the_run_with_what_is_known) {
    // pthread_spin_lock() spins inside the C library, never in a system call: no jump out of
    // it is safe, so the watchdog's thread reports the task and ends the process. On one thread
    // (the default on two cores is two): which stuck execution ends the process first must not
    // depend on how the threads were scheduled.
    const Run run = run_faulty("libc-spin", {"--step-timeout", "1", "--jobs", "1"});
    CHECK_EQUAL(1, run.exit_code);
    CHECK_TEXT(contains(run.out, "VIOLATION (no-progress) at step 2: b ran 2 s without "
                                 "reaching a scheduling point, where it cannot be interrupted"),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "b: its last scheduling point: WRITE_ONCE(y)"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "schedule so far: 0.1 "), run.out.c_str());
}

TEST(ModelFaults, faults_are_caught_the_same_on_the_threads_of_a_shared_search) {
    // A search shared among threads (dfs --jobs 2) runs every execution on a thread of its
    // own: each has its own watchdog heartbeat and its own stack for the crash handler.
    const std::vector<std::string> shared = {"--strategy", "dfs", "--jobs", "2"};
    auto with = [&shared](std::vector<std::string> options) {
        options.insert(options.end(), shared.begin(), shared.end());
        return options;
    };
    expect_finding(run_faulty("null-deref", with({"--keep-going"})),
                   "VIOLATION (crash) at step 3: crash (SIGSEGV) in task reader", true);
    expect_finding(run_faulty("sleep-loop", with({"--step-timeout", "1", "--no-minimize"})),
                   "VIOLATION (no-progress) at step 3: reader waited 1 s inside the C library");
    // Each thread's part has an execution that gets stuck, b in one and a in the other: the
    // first reported ends the process, and which that is depends on the threads' timing.
    const Run stuck = run_faulty("libc-spin", with({"--step-timeout", "1"}));
    CHECK_EQUAL(1, stuck.exit_code);
    CHECK_TEXT(contains(stuck.out, "b ran 2 s without reaching a scheduling point") ||
                   contains(stuck.out, "a ran 2 s without reaching a scheduling point"),
               stuck.out.c_str());
}

TEST(ModelFaults, more_tasks_than_lockcheck_runs_are_refused_before_the_search) {
    // The set-up spawns them, or a task does in the first execution: either way no search can
    // check the model, so it is bad input (exit 2, one line), not an incomplete search.
    const char* const kLimit = "the 65th; lockcheck runs at most 64 tasks in an execution\n";
    for (const char* jobs : {"1", "2"}) {
        const Run at_set_up = run_faulty("too-many-tasks", {"--jobs", jobs});
        CHECK_EQUAL(2, at_set_up.exit_code);
        STRCMP_EQUAL("", at_set_up.out.c_str());
        CHECK_TEXT(is_one_line(at_set_up.err), at_set_up.err.c_str());
        CHECK_TEXT(contains(at_set_up.err, "the set-up spawns task 'task64', ") &&
                       contains(at_set_up.err, kLimit),
                   at_set_up.err.c_str());
        const Run later = run_faulty("too-many-tasks-later", {"--strategy", "dfs", "--jobs", jobs});
        CHECK_EQUAL(2, later.exit_code);
        STRCMP_EQUAL("", later.out.c_str());
        CHECK_TEXT(is_one_line(later.err), later.err.c_str());
        CHECK_TEXT(contains(later.err, "spawner spawns task 'task63', ") &&
                       contains(later.err, kLimit),
                   later.err.c_str());
    }
}

// Running out of memory: as the report that found lockcheck dying of it, the faulty model in an
// address space of 4 GiB (ulimit -v; sh lowers it for the process it becomes), on one thread
// and on two, several times each: the crash on two threads (a thread setting itself up once a
// model had taken the memory) came in 3 runs of 5. AddressSanitizer reserves terabytes of
// address space for its shadow memory, so that no such limit can apply under it.
#ifndef LOCKCHECK_SANITIZED
namespace {

constexpr int kOutOfMemoryTries = 5;

Run run_faulty_in_4_gib(const std::string& variant, const char* jobs) {
    return run_program({"sh", "-c", "ulimit -v 4194304 && exec \"$0\" \"$@\"",
                        LOCKCHECK_FAULTY_BINARY, "faulty", "--variant", variant, "--strategy",
                        "dfs", "--keep-going", "--jobs", jobs});
}

} // namespace

TEST(ModelFaults, a_task_that_allocates_without_end_is_a_finding_on_every_thread_count) {
    for (const char* jobs : {"1", "2"})
        for (int i = 0; i < kOutOfMemoryTries; ++i) {
            const Run run = run_faulty_in_4_gib("allocate-forever", jobs);
            expect_finding(run, "VIOLATION (exception) at step 3: reader threw std::bad_alloc",
                           true);
            STRCMP_EQUAL("", run.err.c_str());
        }
}

TEST(ModelFaults, memory_used_up_for_lockcheck_itself_stops_the_search_with_its_summary) {
    // The model takes every byte there is and keeps it: the allocation of lockcheck's own that
    // comes next fails (in the scheduling step, on a task's fiber).
    for (const char* jobs : {"1", "2"})
        for (int i = 0; i < kOutOfMemoryTries; ++i) {
            const Run run = run_faulty_in_4_gib("leak-forever", jobs);
            CHECK_EQUAL_TEXT(3, run.exit_code, (run.out + run.err).c_str());
            CHECK_TEXT(contains(run.out, "verdict       incomplete: running out of memory stopped "
                                         "the search after "),
                       run.out.c_str());
            STRCMP_EQUAL("", run.err.c_str());
        }
}
#endif
