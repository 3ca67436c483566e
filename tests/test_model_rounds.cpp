// The --rounds size of rename-pin and cil-push: a task repeats its operation that many times,
// one after another, as SPIN's Promela models of them loop (bench/spin/), and the default of 1
// is the model as it was (its counts are pinned in test_protocol_variants.cpp).
#include <string>
#include <vector>

#include "harness.hpp"
#include "lockcheck_binary.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck::detail::testing;

namespace {

// A run's summary, with no timing, so that counts and rows compare as text.
std::string summary_of(std::vector<std::string> args) {
    args.insert(args.end(), {"-q", "--no-timing"});
    const Run run = run_lockcheck(args);
    CHECK_EQUAL_TEXT(0, run.exit_code, (run.out + run.err).c_str());
    return run.out;
}

} // namespace

TEST_GROUP(ModelRounds){};

TEST(ModelRounds, a_rename_task_renames_one_inode_per_round_in_turn) {
    const std::string one = summary_of({"rename-pin", "--preemptions", "1"});
    CHECK_TEXT(contains(one, "sizes         renames=1 fsyncs=1 rounds=1\n"), one.c_str());
    CHECK_TEXT(contains(one, "executions    10\n"), one.c_str());
    CHECK_TEXT(contains(one, "rename: 1.00 per execution"), one.c_str());

    const std::string two = summary_of({"rename-pin", "--preemptions", "1", "--rounds", "2"});
    CHECK_TEXT(contains(two, "sizes         renames=1 fsyncs=1 rounds=2\n"), two.c_str());
    CHECK_TEXT(contains(two, "executions    16\n"), two.c_str());
    CHECK_TEXT(contains(two, "rename: 2.00 per execution"), two.c_str());
}

TEST(ModelRounds, rename_pin_rounds_stop_where_the_log_word_is_full) {
    // 8 rename tasks x 4 rounds x 2 names are the 64 bits of the log word.
    const Run run = run_lockcheck({"rename-pin", "--rounds", "5"});
    CHECK_EQUAL_TEXT(2, run.exit_code, run.err.c_str());
    CHECK_TEXT(is_one_line(run.err), run.err.c_str());
}

TEST(ModelRounds, a_commit_task_commits_one_transaction_per_round_in_turn) {
    const std::string one = summary_of({"cil-push", "--commits", "1"});
    CHECK_TEXT(contains(one, "sizes         cpus=2 commits=1 pushes=1 rounds=1\n"), one.c_str());
    CHECK_TEXT(contains(one, "executions    8\n"), one.c_str());

    const std::string two = summary_of({"cil-push", "--commits", "1", "--rounds", "2"});
    CHECK_TEXT(contains(two, "executions    64\n"), two.c_str());
    CHECK_TEXT(contains(two, "commit: 2.00 per execution"), two.c_str());
    const std::string three = summary_of({"cil-push", "--commits", "1", "--rounds", "3"});
    CHECK_TEXT(contains(three, "executions    384\n"), three.c_str());
    CHECK_TEXT(contains(three, "commit: 3.00 per execution"), three.c_str());
}

TEST(ModelRounds, a_second_round_finds_what_one_commit_task_cannot) {
    // Without xc_ctx_lock, one commit task's single transaction always lands in the context it
    // read (the push it queues starts after it): verified. Its second transaction races that
    // push and can land in the next checkpoint.
    const Run once =
        run_lockcheck({"cil-push", "--variant", "no-ctx-lock", "--commits", "1", "-q"});
    CHECK_EQUAL_TEXT(0, once.exit_code, once.out.c_str());
    const Run run = run_lockcheck(
        {"cil-push", "--variant", "no-ctx-lock", "--commits", "1", "--rounds", "2", "-q"});
    CHECK_EQUAL_TEXT(1, run.exit_code, run.out.c_str());
    CHECK_TEXT(
        contains(run.out, "every item is in the checkpoint of the context it was committed in"),
        run.out.c_str());
}
