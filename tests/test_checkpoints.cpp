// The store of checkpoints (scheduler/checkpoint.hpp): which positions it holds as a search goes
// back and forth along its path; the summary's "checkpoints" row, which says what they saved,
// from the lockcheck command (the test binary keeps CppUTest's operator new, so its own searches
// replay). Whether a restored execution reports what a replayed one does is
// tests/checkpoints.sh's.
#include <cstdio>
#include <string>
#include <vector>

#include "lockcheck_binary.hpp"
#include "scheduler/checkpoint.hpp"

#include "CppUTest/TestHarness.h"

using lockcheck::detail::Checkpoints;
using namespace lockcheck::detail::testing;

TEST_GROUP(CheckpointStore){};

TEST(CheckpointStore, the_deepest_checkpoint_held_up_to_a_divergence_is_the_one_resumed) {
    Checkpoints store;
    for (std::uint32_t p : {1u, 4u, 9u})
        store.make(p);
    CHECK(store.holds(4));
    CHECK_FALSE(store.holds(3));
    LONGS_EQUAL(9, store.deepest_up_to(12));
    LONGS_EQUAL(4, store.deepest_up_to(8));
    LONGS_EQUAL(Checkpoints::kNone, store.deepest_up_to(0));
    // The next execution decides otherwise at 5: what lay past it is another path's.
    store.forget_from(6);
    CHECK_FALSE(store.holds(9));
    LONGS_EQUAL(4, store.deepest_up_to(12));
    LONGS_EQUAL(3, store.saved);
}

// A fresh execution clears the store; the slots stay for their buffers, and what is made after
// is held as before (it was not: clear() emptied the flags and a later make() set one past
// their end, so no checkpoint made after a search went back to its root was ever resumed).
TEST(CheckpointStore, checkpoints_made_after_a_clear_are_held) {
    Checkpoints store;
    for (std::uint32_t p = 1; p <= 20; ++p)
        store.make(p);
    store.clear();
    CHECK_FALSE(store.holds(7));
    LONGS_EQUAL(Checkpoints::kNone, store.deepest_up_to(20));
    store.make(7);
    store.make(18);
    CHECK(store.holds(7));
    CHECK(store.holds(18));
    LONGS_EQUAL(18, store.deepest_up_to(20));
    LONGS_EQUAL(7, store.deepest_up_to(17));
}

namespace {

#ifndef LOCKCHECK_SANITIZED
// A search's "checkpoints" summary row, read back.
struct Resumed {
    unsigned long long saved = 0, resumed = 0, kept = 0, steps = 0;
};

Resumed resumed_of(const Run& run) {
    Resumed r;
    const std::string row = summary_row(run.out, "checkpoints");
    std::sscanf(row.c_str(), "%llu saved; %llu execution%*s went on from one, %llu steps", &r.saved,
                &r.resumed, &r.kept);
    r.steps = std::stoull(summary_row(run.out, "steps"));
    return r;
}
#endif

// What a search without checkpoints says (and every search of a sanitizer build, which has none).
std::string none(const std::string& why) {
#ifdef LOCKCHECK_SANITIZED
    (void)why;
    return "none (a sanitizer build): every execution replayed from its start";
#else
    return why;
#endif
}

} // namespace

TEST_GROUP(CheckpointRow){};

// Each search that goes on from checkpoints says how many it saved, how many executions went on
// from one, and the steps they did not run again: some of them, never more than all.
TEST(CheckpointRow, each_search_that_resumes_says_what_it_did_not_replay) {
    const std::vector<std::vector<std::string>> searches = {
        {"--strategy", "dfs"},
        {"--strategy", "dpor"},
        {"--strategy", "optimal-dpor"},
        {"--strategy", "dfs", "--state-cache"},
        {"--strategy", "dfs", "--preemptions", "2"}};
    for (const std::vector<std::string>& search : searches) {
        std::vector<std::string> args = {"rename-pin", "--depth", "12", "-j", "1"};
        args.insert(args.end(), search.begin(), search.end());
        const Run run = run_lockcheck(args);
        const std::string what = search[1] + (search.size() > 2 ? " " + search[2] : "");
        LONGS_EQUAL_TEXT(0, run.exit_code, what.c_str());
#ifdef LOCKCHECK_SANITIZED
        CHECK_EQUAL_TEXT(none(""), summary_row(run.out, "checkpoints"), what.c_str());
#else
        const Resumed r = resumed_of(run);
        CHECK_TEXT(r.saved > 0 && r.resumed > 0 && r.kept > 0 && r.kept < r.steps,
                   (what + ": " + summary_row(run.out, "checkpoints")).c_str());
#endif
    }
}

TEST(CheckpointRow, a_search_without_checkpoints_says_why) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--no-checkpoints"}, "none (--no-checkpoints): every execution replayed from its start"},
        {{"--strategy", "bfs"}, "none: bfs replays every execution from its start"},
        {{"--strategy", "random", "--iterations", "20"},
         "none: random replays every execution from its start"},
        {{"--memory-model", "lkmm"},
         "none (--memory-model lkmm): every execution replayed from its start"},
        {{"--unwind-tasks"}, "none (--unwind-tasks): every execution replayed from its start"}};
    for (const auto& [options, row] : cases) {
        std::vector<std::string> args = {"rename-pin", "--depth", "12"};
        args.insert(args.end(), options.begin(), options.end());
        CHECK_EQUAL_TEXT(none(row), summary_row(run_lockcheck(args).out, "checkpoints"),
                         options.front().c_str());
    }
    // A figure of speed, dropped with the times.
    CHECK_EQUAL(std::string(""),
                summary_row(run_lockcheck({"rename-pin", "--depth", "12", "--no-timing"}).out,
                            "checkpoints"));
}

#ifndef LOCKCHECK_SANITIZED
// The generated programs that CheckpointsGenerated_* compare with and without checkpoints do go
// on from them: the comparison is not of two replays.
TEST(CheckpointRow, most_generated_programs_go_on_from_checkpoints) {
    unsigned resuming = 0, programs = 0;
    for (const char* kind : {"seed-", "racy-"})
        for (int seed = 1; seed <= 30; ++seed, ++programs) {
            const Run run = run_binary(LOCKCHECK_GENERATED_BINARY,
                                       {"generated", "--variant", kind + std::to_string(seed),
                                        "--strategy", "dfs", "-j", "1", "--keep-going"});
            resuming += resumed_of(run).resumed > 0;
        }
    CHECK_TEXT(resuming * 2 > programs,
               (std::to_string(resuming) + " of " + std::to_string(programs)).c_str());
}
#endif
