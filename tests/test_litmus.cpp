// The litmus tests (litmus/) against LKMM's verdicts: under --memory-model lkmm every test must
// give the verdict its header states, load buffering included (docs/memory-model.md), with
// every exhaustive search; under sc none may show a
// behaviour sequential consistency forbids. The verdicts are read from the models' variant
// tables, never restated here.
#include <string>

#include "checker/protocol.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// Runs every litmus test under `model` with `options`, and checks each one's verdict.
int expect_declared_verdicts(MemoryModel model, SearchOptions search) {
    int checked = 0;
    for (const Protocol& p : litmus_models()) {
        for (std::size_t i = 0; i < p.variants.size(); ++i) {
            const Variant& v = p.variants[i];
            const Expectation& expected = v.expected(model);
            const std::string what = p.name + " --variant " + v.name + " --memory-model " +
                                     memory_model_name(model) + " --strategy " +
                                     search_name(search.search) +
                                     (search.state_cache ? " --state-cache" : "");
            CheckOptions options;
            options.depth = p.depth_for(i);
            options.memory_model = model;
            search.depth = options.depth;
            options.next_round = [&search] { return make_search(search); };
            expect_as_declared(explore(default_setup(p, i), *make_search(search), options),
                               expected, what);
            ++checked;
        }
    }
    return checked;
}

// One litmus test of `model` run from the command line under lkmm.
Run run_under_lkmm(const char* model, const char* variant) {
    return run_lockcheck({model, "--variant", variant, "--memory-model", "lkmm", "--no-timing"});
}

SearchOptions search(Search s, bool state_cache = false) {
    SearchOptions o;
    o.search = s;
    o.state_cache = state_cache;
    return o;
}

} // namespace

TEST_GROUP(Litmus){};

TEST(Litmus, every_test_gives_lkmms_verdict_under_lkmm) {
    CHECK(expect_declared_verdicts(MemoryModel::lkmm, search(Search::dfs)) >= 110);
}

TEST(Litmus, every_exhaustive_search_gives_the_same_verdicts_under_lkmm) {
    for (const SearchOptions& s : {search(Search::dpor), search(Search::optimal_dpor),
                                   search(Search::bfs), search(Search::dfs, true)})
        expect_declared_verdicts(MemoryModel::lkmm, s);
}

TEST(Litmus, under_sc_no_test_shows_a_weak_behaviour) {
    expect_declared_verdicts(MemoryModel::sc, search(Search::dfs));
    expect_declared_verdicts(MemoryModel::sc, search(Search::dpor));
}

// A counterexample under lkmm is a schedule of the weak behaviour: its replay line carries the
// memory model, and replaying it prints the same trace, naming the write a read missed.
TEST(Litmus, an_lkmm_counterexample_replays_as_printed) {
    const Run found = run_lockcheck({"lkmm-idioms", "--variant", "wake+waitqueue_active",
                                     "--memory-model", "lkmm", "--no-timing"});
    CHECK_EQUAL(1, found.exit_code);
    CHECK_TEXT(contains(found.out, "waitqueue_active(wq) -> 0 (saw the initial value, not step "
                                   "1's)"),
               found.out.c_str());
    // What it leaves out, both ways: behaviours it does not explore, order LKMM has that it
    // does not count.
    CHECK_TEXT(contains(found.out, "\nmemory model  lkmm (1 round: load buffering can add "
                                   "nothing, as no write seen independent of a read could be "
                                   "read ahead or change what LKMM allows; not counted: the "
                                   "order of an address dependency through an array indexed by "
                                   "a value read)"),
               found.out.c_str());
    CHECK_TEXT(contains(found.out, "a barrier would rule this out: smp_mb() in P1 "
                                   "between steps 3 and 4 (propagation)\n"),
               found.out.c_str());
    const std::vector<std::string> replay = replay_arguments(found.out);
    CHECK_TEXT(contains(found.out, " --memory-model lkmm --replay "), found.out.c_str());
    const Run again = run_lockcheck(replay);
    CHECK_EQUAL(1, again.exit_code);
    CHECK_EQUAL(text_before(found.out, "replay:"),
                text_before(again.out, "\n== lockcheck summary"));
}

// The choices of which write a read sees split among threads like any other.
// S with the writer's stores ordered: the reader's store, which the first round saw it make
// after reading 0 and after reading 1, does not depend on its read, and the second round
// finds it overwritten by the store the reader had seen follow it (herd7: Sometimes); stored
// from the value read, it does depend, and no round finds it.
TEST(Litmus, a_store_seen_independent_of_its_tasks_load_may_take_effect_before_it) {
    const Run once = run_under_lkmm("lkmm-idioms", "S+wmb+once");
    CHECK_EQUAL(1, once.exit_code);
    CHECK_TEXT(contains(once.out, "memory model  lkmm (2 rounds: from round 2, writes seen "
                                  "independent of earlier reads, and reads of a writer's next "
                                  "write, one at a time; "),
               once.out.c_str());
    const Run data = run_under_lkmm("lkmm-idioms", "S+wmb+data");
    CHECK_EQUAL(0, data.exit_code);
}

// Load buffering: P0's read sees the store P1 makes after its own read, which saw P0's store;
// the trace says so at the read, and the replay line carries what the rounds told the
// execution, so that a fresh process replays it without searching again.
TEST(Litmus, a_load_buffering_counterexample_reads_a_write_made_later_and_replays_as_printed) {
    const Run found = run_under_lkmm("lkmm-litmus", "LB+poonceonces");
    CHECK_EQUAL(1, found.exit_code);
    CHECK_TEXT(contains(found.out, "READ_ONCE(x) -> 1 (reads step 4's write, made later)"),
               found.out.c_str());
    CHECK_TEXT(contains(found.out, " --evidence "), found.out.c_str());
    const Run again = run_lockcheck(replay_arguments(found.out));
    CHECK_EQUAL(1, again.exit_code);
    CHECK_EQUAL(text_before(found.out, "replay:"),
                text_before(again.out, "\n== lockcheck summary"));
    // Without its evidence the same schedule is another execution.
    std::vector<std::string> bare = replay_arguments(found.out);
    bare.resize(bare.size() - 2);
    CHECK_EQUAL(2, run_lockcheck(bare).exit_code);
    CHECK_EQUAL(2, run_lockcheck({"lkmm-litmus", "--variant", "LB+poonceonces", "--memory-model",
                                  "lkmm", "--replay", "0", "--evidence", "m0=zz"})
                       .exit_code);
}

// A protocol explores load buffering under lkmm unless told not to, and says which it did;
// a litmus test always does, and the option is one of lkmm's.
TEST(Litmus, a_protocol_explores_load_buffering_unless_told_not_to) {
    const Run rounds = run_lockcheck({"delayed-iput", "--memory-model", "lkmm", "--no-timing"});
    CHECK_TEXT(contains(rounds.out, "memory model  lkmm (1 round: load buffering can add "
                                    "nothing"),
               rounds.out.c_str());
    const Run plain = run_lockcheck(
        {"delayed-iput", "--memory-model", "lkmm", "--no-load-buffering", "--no-timing"});
    CHECK_EQUAL(rounds.exit_code, plain.exit_code);
    CHECK_TEXT(contains(plain.out, "memory model  lkmm (load buffering not explored: no read of "
                                   "a write its task makes later (--no-load-buffering, or "
                                   "--shard, which runs one round); "),
               plain.out.c_str());
    CHECK_EQUAL(2, run_lockcheck({"delayed-iput", "--no-load-buffering"}).exit_code);
    CHECK_EQUAL(2, run_lockcheck({"lkmm-litmus", "--variant", "LB+poonceonces", "--memory-model",
                                  "lkmm", "--no-load-buffering"})
                       .exit_code);
}

namespace {

// P1 stores one more than it loaded from y; P0 loads x, stores y, and asserts it did not see
// P1's 2, which only load buffering lets it (P0's store does not depend on its load: the round
// before saw it made after loads of 0 and 1). With `assert_first` P0 asserts before its
// store, so that the store P1 must see for its 2 never comes.
Setup read_ahead_then_assert(bool assert_first) {
    return [assert_first] {
        struct Locations {
            shared<int> x{"x"}, y{"y"};
        };
        Locations& m = model_state<Locations>();
        spawn("P0", [&m, assert_first] {
            const int r0 = READ_ONCE(m.x);
            if (assert_first) BUG_ON(r0 == 2);
            WRITE_ONCE(m.y, 1);
            if (!assert_first) BUG_ON(r0 == 2);
        });
        spawn("P1", [&m] { WRITE_ONCE(m.x, READ_ONCE(m.y) + 1); });
    };
}

} // namespace

// A finding met after a read of a write not yet made waits for that write: it stands once the
// write comes, the schedule to it its counterexample, and goes with the execution where the
// write cannot come (here P0 stops at its BUG_ON before the store P1 needs).
TEST(Litmus, a_finding_on_a_value_read_ahead_stands_only_once_its_write_comes) {
    CheckOptions lkmm;
    lkmm.memory_model = MemoryModel::lkmm;
    for (const Search search : kExhaustiveSearches) {
        const std::string what = search_name(search);
        const Setup stands = read_ahead_then_assert(false);
        const SearchResult found = check_model(stands, search, lkmm);
        const Violation& v = only_violation(found, what);
        CHECK_EQUAL_TEXT(ViolationKind::check_failed, v.kind, what.c_str());
        const ReplayResult again = replay(stands, found.findings[0].schedule, lkmm);
        CHECK_TEXT(again.outcome.violation &&
                       again.outcome.violation->kind == ViolationKind::check_failed,
                   what.c_str());
        const SearchResult goes = check_model(read_ahead_then_assert(true), search, lkmm);
        CHECK_TEXT(goes.findings.empty(), what.c_str());
        CHECK_TEXT(goes.stats.unsettled_findings > 0, what.c_str());
        CheckOptions one_round = lkmm;
        one_round.load_buffering = false;
        CHECK_TEXT(check_model(stands, search, one_round).findings.empty(), what.c_str());
    }
}

namespace {

// Load buffering's shape, each task storing what does not depend on its load; with `locked`,
// each task's load and store under one spinlock, which orders one task's pair before the
// other's.
Setup load_then_store(bool locked) {
    return [locked] {
        struct Locations {
            shared<int> x{"x"}, y{"y"};
            spinlock_t lock{"lock"};
            int r[2] = {0, 0}; // what each task loaded
        };
        Locations& m = model_state<Locations>();
        const auto body = [&m, locked](int me, shared<int>& load, shared<int>& store) {
            if (locked) spin_lock(&m.lock);
            m.r[me] = READ_ONCE(load);
            WRITE_ONCE(store, 1);
            if (locked) spin_unlock(&m.lock);
            BUG_ON(m.r[0] == 1 && m.r[1] == 1);
        };
        spawn("P0", [&m, body] { body(0, m.x, m.y); });
        spawn("P1", [&m, body] { body(1, m.y, m.x); });
    };
}

} // namespace

// A round after the first repeats every execution, so it runs only where it may find
// something: both tasks' stores are seen independent of their loads either way, but under the
// lock no load could read the other task's store ahead and no dependency decides what LKMM
// allows, so one round is the whole search; without the lock the second round finds LB.
TEST(Litmus, a_second_round_runs_only_where_load_buffering_can_find_something) {
    CheckOptions lkmm;
    lkmm.memory_model = MemoryModel::lkmm;
    for (const Search search : kExhaustiveSearches) {
        const std::string what = search_name(search);
        const SearchResult locked = check_model(load_then_store(true), search, lkmm);
        CHECK_TEXT(locked.findings.empty(), what.c_str());
        CHECK_EQUAL_TEXT(1u, locked.stats.rounds, what.c_str());
        const SearchResult unlocked = check_model(load_then_store(false), search, lkmm);
        CHECK_EQUAL_TEXT(2u, unlocked.stats.rounds, what.c_str());
        CHECK_EQUAL_TEXT(ViolationKind::check_failed, only_violation(unlocked, what).kind,
                         what.c_str());
    }
}

TEST(Litmus, a_load_buffering_search_prints_the_same_bytes_whatever_the_jobs) {
    const std::pair<const char*, const char*> tests[] = {{"lkmm-litmus", "LB+poonceonces"},
                                                         {"lkmm-shapes", "3.LB+once"}};
    for (const auto& [model, variant] : tests)
        expect_same_output_on_one_and_two_threads(
            {model, "--variant", variant, "--memory-model", "lkmm", "--no-timing"});
}

TEST(Litmus, an_lkmm_search_prints_the_same_bytes_whatever_the_jobs) {
    const Run a = expect_same_output_on_one_and_two_threads({"buffered-write", "--variant",
                                                             "unlocked", "--memory-model", "lkmm",
                                                             "--keep-going", "--no-timing"});
    CHECK_TEXT(contains(a.out, "memory model  lkmm"), a.out.c_str());
}

// Message passing needs both sides ordered: the barrier hint names the weakest pair.
TEST(Litmus, a_message_passing_counterexample_names_smp_wmb_and_smp_rmb) {
    const Run run = run_under_lkmm("lkmm-litmus", "MP+poonceonces");
    CHECK_TEXT(contains(run.out, "a barrier would rule this out:\n"
                                 "  smp_wmb() in P0 between steps 1 and 2 (happens-before)\n"
                                 "  smp_rmb() in P1 between steps 3 and 4 (happens-before)\n"),
               run.out.c_str());
    const Run sc = run_lockcheck({"lkmm-litmus", "--variant", "MP+poonceonces", "--no-timing"});
    CHECK_FALSE(contains(sc.out, "a barrier would"));
}

// A failed final check under lkmm reads the outcome: every read stays in the trace, also those
// that were the latest when they read (IRIW's first reader saw x and not yet y).
TEST(Litmus, a_final_check_counterexample_folds_no_read_away) {
    const Run iriw = run_under_lkmm("lkmm-shapes", "IRIW+once");
    CHECK_TEXT(contains(iriw.out, "  READ_ONCE(x) -> 1 "), iriw.out.c_str());
    CHECK_TEXT(contains(iriw.out, "  READ_ONCE(y) -> 0 "), iriw.out.c_str());
    CHECK_FALSE(contains(iriw.out, "steps of P1"));
}

// IRIW and WRC need a barrier in a task none of whose reads was stale in the interleaving
// shown: both of IRIW's readers, and WRC's middle task as well as its last.
TEST(Litmus, the_barrier_hint_finds_barriers_where_no_read_was_stale) {
    const Run iriw = run_under_lkmm("lkmm-shapes", "IRIW+once");
    CHECK_TEXT(contains(iriw.out, "a barrier would rule this out:\n"
                                  "  smp_mb() in P1 between steps 2 and 3 (propagation)\n"
                                  "  smp_mb() in P3 between steps 5 and 6 (propagation)\n"),
               iriw.out.c_str());
    const Run wrc = run_under_lkmm("lkmm-shapes", "WRC+once");
    CHECK_TEXT(contains(wrc.out, "a barrier would rule this out:\n"
                                 "  smp_mb() in P1 between steps 2 and 3 (happens-before)\n"
                                 "  smp_rmb() in P2 between steps 4 and 5 (happens-before)\n"),
               wrc.out.c_str());
}

// LKMM's data races: plain data published through atomic_inc() races (under sc the race
// detector counts the atomic as ordering, so it does not); the report names both accesses,
// cites the steps between them, which stay in the trace, and the barriers that would order them.
TEST(Litmus, a_plain_message_through_atomic_inc_is_a_data_race_under_lkmm_only) {
    const Run run = run_under_lkmm("lkmm-idioms", "MP+plain+atomic_inc");
    CHECK_EQUAL(1, run.exit_code);
    CHECK_TEXT(contains(run.out, "VIOLATION (data-race) at step 4: data race on x: write by P0 "
                                 "at step 1 and read by P1 at step 4 are not ordered\n"
                                 "  a data race by the memory model's definition: steps 2-3 "
                                 "between them do not order the two\n"),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "  write by P0 at step 1: idioms.cpp:"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "  read by P1 at step 4: idioms.cpp:"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "atomic_inc(v) -> 1"), run.out.c_str());
    CHECK_FALSE(contains(run.out, "steps of P0"));
    // Message passing: neither side alone orders the two, both together do; before the
    // atomic_inc() the kernel spells the full barrier smp_mb__before_atomic().
    CHECK_TEXT(contains(run.out, "a barrier would rule this out:\n"
                                 "  smp_mb__before_atomic() in P0 between steps 1 and 2 (data "
                                 "race)\n"
                                 "  smp_rmb() in P1 between steps 3 and 4 (data race)\n"),
               run.out.c_str());
    const Run sc =
        run_lockcheck({"lkmm-idioms", "--variant", "MP+plain+atomic_inc", "--no-timing"});
    CHECK_EQUAL(0, sc.exit_code);
    const Run off = run_lockcheck({"lkmm-idioms", "--variant", "MP+plain+atomic_inc",
                                   "--memory-model", "lkmm", "--no-races", "--no-timing"});
    CHECK_EQUAL(0, off.exit_code);
}

// cil-push's barrier bug: the report names the barrier that orders the commit's
// list_add_tail() before its decrement (its section's writes need smp_wmb(); percpu-rwsem.c's
// smp_mb() orders its reads too).
TEST(Litmus, cil_push_percpu_rwsem_no_mb_names_the_barrier_before_the_decrement) {
    const Run run = run_under_lkmm("cil-push", "percpu-rwsem-no-mb");
    CHECK_EQUAL(1, run.exit_code);
    CHECK_TEXT(contains(run.out, "VIOLATION (data-race) at step 28: data race on "
                                 "xc_pcp@cpu1.p_cil: write (list_add_tail) by commit1 at step 17"),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "a barrier would rule this out: smp_wmb() in commit1 between "
                                 "steps 17 and 18 (data race)\n"),
               run.out.c_str());
}

// log-during-commit before the patch races under lkmm (README, "An LKMM data race before the
// patch"); with races off, `before` verifies and `before-wake-nomb` still shows its barrier
// bug, the outcome it declares in its summary.
TEST(Litmus, log_during_commit_before_wake_nomb_breaks_its_final_check_with_races_off) {
    const auto run = [](const char* variant) {
        return run_lockcheck({"log-during-commit", "--variant", variant, "--memory-model", "lkmm",
                              "--no-races", "--no-timing"});
    };
    CHECK_EQUAL(0, run("before").exit_code);
    const Run nomb = run("before-wake-nomb");
    CHECK_TEXT(contains(nomb.out, "VIOLATION (final-check)"), nomb.out.c_str());
    CHECK_TEXT(contains(nomb.out, "super block writes in order"), nomb.out.c_str());
}
