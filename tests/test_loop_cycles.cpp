// A stateful depth-first search judges loops as cycles of its state graph: a spin loop's turns
// come back to one state, and only a cycle every task able to run takes steps in can go on for
// ever. Such a search verifies with fewer states than one that watches loops; on anything else
// (a violation, a cut, a loop for ever) it begins again watching them, and the report says so.
#include <string>

#include "checker/loop_finder.hpp"
#include "checker/stateful_dfs.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

constexpr TaskId kA = 0;
constexpr TaskId kB = 1;
constexpr TaskSet kBoth = task_bit(kA) | task_bit(kB);

Fingerprint state(std::uint64_t n) {
    return Fingerprint{n, n};
}

struct Flags {
    atomic_t go{"go"};
    atomic_t done{"done"};
};

// `waiter` spins until go is set; `setter` counts done, then sets go if `sets`.
Setup spin_until_set(bool sets) {
    return [sets] {
        auto& f = this_execution().make<Flags>();
        spawn("waiter", [&f] {
            forget_reads reads;
            while (!atomic_read(&f.go)) {
                reads.forget();
                cpu_relax();
            }
        });
        spawn("setter", [&f, sets] {
            atomic_inc(&f.done);
            atomic_inc(&f.done);
            if (sets) atomic_set(&f.go, 1);
        });
    };
}

// `waiter` re-reads go with no cpu_relax() until it is set, which nothing does; with `counter`,
// a second task counts done twice.
Setup rereads_go(bool counter) {
    return [counter] {
        auto& f = this_execution().make<Flags>();
        spawn("waiter", [&f] {
            forget_reads reads;
            while (!atomic_read(&f.go))
                reads.forget();
        });
        if (counter)
            spawn("setter", [&f] {
                atomic_inc(&f.done);
                atomic_inc(&f.done);
            });
    };
}

SearchResult search_with_stored_states(const Setup& setup, CheckOptions options = {}) {
    StatefulDfs cached;
    return explore(setup, cached, options);
}

} // namespace

TEST_GROUP(LoopFinder){};

// A spinner's turn back to its state while the lock holder could run: a scheduler that never
// runs the holder starves it, which is no loop of the model's.
TEST(LoopFinder, a_cycle_that_starves_a_task_able_to_run_goes_on_only_unfairly) {
    LoopFinder loops;
    const auto s = loops.enter(state(1), kBoth);
    loops.reach(s, kA, state(1));
    CHECK(loops.leave(s, LoopFinder::kNoNode, kNoTask));
}

TEST(LoopFinder, a_cycle_every_task_able_to_run_takes_steps_in_goes_on_for_ever) {
    LoopFinder loops;
    const auto s = loops.enter(state(1), kBoth);
    const auto t = loops.enter(state(2), kBoth);
    loops.reach(t, kB, state(1));
    CHECK(loops.leave(t, s, kA));
    CHECK_FALSE(loops.leave(s, LoopFinder::kNoNode, kNoTask));
    CHECK_EQUAL(kBoth, loops.loop_tasks());
    CHECK_EQUAL(2u, loops.loop_states());
}

// A's turn from s back to s starves B, and B's round s -> t -> s starves A; together they make
// one component in which a run can take both, for ever.
TEST(LoopFinder, two_cycles_each_starving_the_other_task_make_one_loop_for_ever) {
    LoopFinder loops;
    const auto s = loops.enter(state(1), kBoth);
    loops.reach(s, kA, state(1));
    const auto t = loops.enter(state(2), kBoth);
    loops.reach(t, kB, state(1));
    CHECK(loops.leave(t, s, kB));
    CHECK_FALSE(loops.leave(s, LoopFinder::kNoNode, kNoTask));
    CHECK_EQUAL(kBoth, loops.loop_tasks());
}

// B cannot run in t (it waits for A): A going round alone starves nobody there.
TEST(LoopFinder, a_task_unable_to_run_somewhere_in_the_cycle_is_not_starved) {
    LoopFinder loops;
    const auto s = loops.enter(state(1), kBoth);
    const auto t = loops.enter(state(2), task_bit(kA));
    loops.reach(t, kA, state(1));
    CHECK(loops.leave(t, s, kA));
    CHECK_FALSE(loops.leave(s, LoopFinder::kNoNode, kNoTask));
    CHECK_EQUAL(task_bit(kA), loops.loop_tasks());
}

// Steps that never come back, and a step to a state whose component was judged already.
TEST(LoopFinder, states_that_never_come_back_are_no_loop) {
    LoopFinder loops;
    const auto s = loops.enter(state(1), kBoth);
    const auto t = loops.enter(state(2), kBoth);
    CHECK(loops.leave(t, s, kA));
    loops.reach(s, kB, state(2));
    CHECK(loops.leave(s, LoopFinder::kNoNode, kNoTask));
}

TEST_GROUP(LoopCycles){};

// Watched, the waiter's turns are told apart by what each read and when it began; as cycles,
// a turn that changed nothing comes back to the state it began in.
TEST(LoopCycles, a_spinner_waiting_for_a_task_that_goes_on_verifies_with_fewer_states) {
    const SearchResult cycles = search_with_stored_states(spin_until_set(true));
    expect_verified(cycles);
    CHECK_EQUAL(std::string(), cycles.stats.states.loops_watched);
    CheckOptions watch;
    watch.loops_as_cycles = false;
    const SearchResult watched = search_with_stored_states(spin_until_set(true), watch);
    expect_verified(watched);
    CHECK_EQUAL(std::string("asked for"), watched.stats.states.loops_watched);
    CHECK(cycles.stats.states.stored < watched.stats.states.stored);
}

// Nothing sets go: the waiter's turn is a cycle nothing else can run beside. The search begins
// again watching loops, which reports the hang with its trace.
TEST(LoopCycles, a_spinner_nothing_will_release_is_a_loop_for_ever_reported_as_a_hang) {
    const SearchResult r = search_with_stored_states(spin_until_set(false));
    CHECK_EQUAL(ViolationKind::hang, only_violation(r).kind);
    const StateCounts& st = r.stats.states;
    CHECK_TEXT(contains(st.loops_watched, "that waiter can go round for ever"),
               st.loops_watched.c_str());
    CHECK(st.executions_before_watch >= 1);
}

// The waiter re-reads go with no cpu_relax(); the setter's steps touch only done. A sleep set
// would keep the waiter's read from running again after the setter's steps (they commute), and
// the loop left once the setter has finished would never be explored: a task that may come
// back to a state never sleeps. The search watching loops then reports the livelock, as plain
// DFS does.
TEST(LoopCycles, a_loop_whose_steps_commute_with_the_others_is_judged_whole) {
    const Setup setup = rereads_go(true);
    const SearchResult dfs = check_model(setup, Search::dfs, CheckOptions{});
    CHECK_EQUAL(ViolationKind::livelock, only_violation(dfs).kind);
    const SearchResult r = search_with_stored_states(setup);
    CHECK_EQUAL(ViolationKind::livelock, only_violation(r).kind);
    CHECK_TEXT(contains(r.stats.states.loops_watched, "a cycle of 1 state that waiter can go "
                                                      "round for ever"),
               r.stats.states.loops_watched.c_str());
}

// Before any write, the retry watch counts repeats as it does after one: a stateful search that
// watches loops must tell those counts apart, or it meets the looping task's state again and
// stops there before the count reaches its bound.
TEST(LoopCycles, a_search_watching_loops_counts_repeats_before_the_first_write) {
    const Setup setup = rereads_go(false);
    CheckOptions watch;
    watch.loops_as_cycles = false;
    const SearchResult r = search_with_stored_states(setup, watch);
    CHECK_EQUAL(ViolationKind::livelock, only_violation(r).kind);
}

// Two tasks that set and clear a flag by turns: every turn writes, so no watch sees a loop that
// changes nothing, and a search that watches loops stops where the state comes back. The cycle
// keeps the search from passing.
TEST(LoopCycles, a_cycle_of_writes_that_no_watch_reports_is_no_pass) {
    const Setup setup = [] {
        auto& f = this_execution().make<Flags>();
        for (const char* name : {"a", "b"})
            spawn(name, [&f] {
                forget_reads reads;
                for (;;) {
                    reads.forget();
                    atomic_set(&f.go, 1);
                    atomic_set(&f.go, 0);
                }
            });
    };
    const SearchResult r = search_with_stored_states(setup);
    CHECK(r.findings.empty());
    CHECK_TEXT(contains(r.stats.states.loops_watched, "that a and b can go round for ever"),
               r.stats.states.loops_watched.c_str());
    CHECK_TEXT(contains(r.stats.stopped_by,
                        "can go round for ever, which the search watching loops did not find,"),
               r.stats.stopped_by.c_str());
}

// A depth bound that cuts an execution: the cycles past it are not judged.
TEST(LoopCycles, a_cut_makes_the_search_watch_loops) {
    CheckOptions options;
    options.max_steps = 3;
    const SearchResult r = search_with_stored_states(spin_until_set(true), options);
    CHECK_TEXT(contains(r.stats.states.loops_watched, "was cut by"),
               r.stats.states.loops_watched.c_str());
}

TEST(LoopCycles, the_report_says_how_the_search_judged_loops) {
    const Run cycles =
        run_lockcheck({"tree-lock", "--strategy", "dfs", "--state-cache", "--no-timing"});
    CHECK_EQUAL(0, cycles.exit_code);
    CHECK_TEXT(contains(cycles.out, "\nloops         as cycles of the state graph: none found "
                                    "that tasks can go round for ever\n"),
               cycles.out.c_str());
    const TempDir dir;
    const std::string json = dir / "run.json";
    const Run watched = run_lockcheck({"tree-lock", "--variant", "unlock-no-wake", "--strategy",
                                       "dfs", "--state-cache", "--no-timing", "--json", json});
    CHECK_EQUAL(1, watched.exit_code);
    CHECK_TEXT(contains(watched.out, "\nloops         watched: judged as cycles first, execution "),
               watched.out.c_str());
    CHECK_TEXT(contains(watched.out, " met a violation (hang), and the search began again ("),
               watched.out.c_str());
    const std::string text = read_file(json);
    CHECK_TEXT(contains(text, "\"loops_watched\": \"execution "), text.c_str());
    CHECK_TEXT(!contains(text, "\"executions_before_watch\": 0"), text.c_str());
}
