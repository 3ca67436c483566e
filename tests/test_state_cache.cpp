// The stateful search (--state-cache) against plain DFS: on every shipped variant and every
// example it must reach the same final states and the same kinds of violation, in fewer
// executions (so must the breadth-first one, --strategy bfs, in any number); on small models
// its state counts are the ones counted by hand; and the command line takes the option only
// where it means something.
#include <map>
#include <optional>
#include <string>

#include "checker/bfs.hpp"
#include "checker/dfs.hpp"
#include "checker/dpor.hpp"
#include "checker/model_registry.hpp"
#include "checker/stateful_dfs.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Words {
    atomic_t v{"v"};
    atomic_t w{"w"};
};

// Three tasks, each `body` once on one shared object set.
template <class Body> Setup three_tasks(Body body) {
    return [body] {
        auto& c = this_execution().make<Words>();
        for (const char* name : {"a", "b", "c"})
            spawn(name, [&c, body] { body(c); });
    };
}

// Task a runs `body`; b and c each increment v once.
template <class Body> Setup a_among_two_increments(Body body) {
    return [body] {
        auto& c = this_execution().make<Words>();
        spawn("a", [&c, body] { body(c); });
        for (const char* name : {"b", "c"})
            spawn(name, [&c] { atomic_inc(&c.v); });
    };
}

} // namespace

// Plain DFS on every variant: minutes under the sanitizers, which tools/test.sh leaves out.
TEST_GROUP(StateCacheVariants){};
TEST_GROUP(StateCacheVariantsMore){};

namespace {

// Both searches that store states, the depth-first one and the breadth-first one (--strategy
// bfs), against one plain DFS of `setup` within `depth`, or where DFS cannot finish the model,
// against source DPOR (checked against DFS itself wherever DFS finishes, tests/test_dpor.cpp).
void expect_stateful_searches_reach_what_dfs_reaches(const Setup& setup, std::uint32_t depth,
                                                     const std::string& what,
                                                     bool dfs_finishes = true) {
    Dfs dfs;
    Dpor dpor;
    const Reached all = reach(setup, dfs_finishes ? static_cast<Strategy&>(dfs) : dpor, depth);
    StatefulDfs cached;
    Bfs bfs;
    for (Strategy* stateful : {static_cast<Strategy*>(&cached), static_cast<Strategy*>(&bfs)}) {
        const bool breadth_first = stateful == &bfs;
        const std::string which = what + (breadth_first ? " (bfs)" : " (stateful dfs)");
        const Reached reduced = reach(setup, *stateful, depth);
        // The breadth-first search runs one execution per state it expands, more than DFS on
        // models with few interleavings.
        if (dfs_finishes && !breadth_first)
            CHECK_TEXT(reduced.executions <= all.executions, which.c_str());
        expect_reached_what_dfs_reached(reduced, all, which);
    }
}

} // namespace

namespace {

void expect_stateful_searches_reach_what_dfs_reaches(const std::vector<Protocol>& models) {
    for (const Protocol& p : models)
        for (std::size_t i = 0; i < p.variants.size(); ++i)
            expect_stateful_searches_reach_what_dfs_reaches(
                default_setup(p, i), dfs_feasible_depth(p, i),
                p.name + " --variant " + p.variants[i].name);
}

} // namespace

TEST(StateCacheVariants, the_stateful_searches_reach_what_dfs_reaches_on_every_shipped_variant) {
    expect_stateful_searches_reach_what_dfs_reaches(protocol_models_half(0));
}

TEST(StateCacheVariantsMore,
     the_stateful_searches_reach_what_dfs_reaches_on_every_shipped_variant) {
    expect_stateful_searches_reach_what_dfs_reaches(protocol_models_half(1));
}

// The examples (examples/: the classic benchmarks), every variant at a size where DFS
// exhausts it in under a second (filesystem's DFS explodes from three threads on: docs/dpor.md),
// but indexer's mutex-cas: its 16 steps a thread are more than DFS can exhaust for two threads
// (8 million executions in a minute), so there source DPOR (one execution) is the reference.
TEST(StateCacheVariants, the_stateful_searches_reach_what_dfs_reaches_on_every_example) {
    const std::map<std::string, int> sizes = {{"filesystem", 2}, {"indexer", 2}, {"lastzero", 3}};
    for (const Protocol& p : benchmark_models()) {
        const auto size = sizes.find(p.name);
        CHECK_TEXT(size != sizes.end(), ("no size for example " + p.name).c_str());
        if (size == sizes.end()) continue;
        for (std::size_t i = 0; i < p.variants.size(); ++i)
            expect_stateful_searches_reach_what_dfs_reaches(
                [&p, i, values = ParameterValues{size->second}] { p.setup(i, values); },
                p.depth_for(i),
                p.name + "(" + std::to_string(size->second) + ") --variant " + p.variants[i].name,
                p.variants[i].name != "mutex-cas");
    }
}

// The shipped models' forget_reads, at sizes where their waits go round several times and
// migrations take several ways: the stateful search reaches the final states and violations
// of one that ignores the declarations (exact by construction, as each task's history keeps
// all it read), and the final states of source DPOR where DPOR exhausts the size in seconds
// (DPOR runs every Mazurkiewicz trace; it sees an invariant only in the orders it runs, so its
// violations are not compared).
TEST(StateCacheVariants, the_models_forget_reads_lose_no_state_at_larger_sizes) {
    struct Scaled {
        const char* model;
        const char* variant;
        std::vector<std::pair<const char*, int>> sizes;
        bool dpor; // DPOR exhausts it in seconds
    };
    const Scaled cases[] = {
        {"rename-pin", "atomic", {{"renames", 2}}, false},
        {"rename-pin", "log-mutex", {{"renames", 2}}, false},
        {"rename-pin", "no-pin", {{"renames", 2}}, false},
        {"tree-lock", "spin-block", {{"spins", 2}}, true},
        {"cil-push", "percpu", {{"cpus", 2}, {"commits", 2}, {"pushes", 2}}, true},
        {"cil-push", "global", {{"cpus", 2}, {"commits", 2}, {"rounds", 2}}, false},
    };
    std::uint64_t forgotten = 0; // states the declarations merged
    for (const Scaled& c : cases) {
        const Protocol& p = *find_registered_model(c.model);
        const std::size_t variant = *p.find_variant(c.variant);
        ParameterValues values = p.default_values();
        for (const auto& [name, value] : c.sizes)
            for (std::size_t i = 0; i < p.parameters.size(); ++i)
                if (p.parameters[i].name == name) values[i] = value;
        const Setup setup = [&p, variant, values] { p.setup(variant, values); };
        const std::string what = std::string(c.model) + " --variant " + c.variant;
        StatefulDfs forgetting;
        StatefulDfs keeping;
        const Reached reduced = reach(setup, forgetting, p.depth_for(variant));
        const Reached all = reach(setup, keeping, p.depth_for(variant), /*forgets=*/false);
        CHECK_TEXT(forgetting.states().stored <= keeping.states().stored, what.c_str());
        forgotten += keeping.states().stored - forgetting.states().stored;
        CHECK_TEXT(same_final_states(reduced, all), what.c_str());
        CHECK_TEXT(reduced.violations == all.violations, what.c_str());
        if (!c.dpor) continue;
        Dpor dpor;
        const Reached traces = reach(setup, dpor, p.depth_for(variant));
        CHECK_TEXT(!traces.final_states.empty(), what.c_str());
        CHECK_TEXT(same_final_states(reduced, traces),
                   (what + ": reached " + std::to_string(reduced.final_states.size()) +
                    " final states, DPOR " + std::to_string(traces.final_states.size()))
                       .c_str());
    }
    CHECK(forgotten > 0);
}

TEST_GROUP(StateCache){};

// a, b, c each increment v once: the states are the subsets of tasks done (the count follows
// from them), 1 + 3 + 3 stored before the end; each state of two done is met again once, from
// its other order. atomic_inc() returns nothing, so the order does not keep them apart.
TEST(StateCache, stores_each_state_once_when_orders_meet) {
    StatefulDfs cached;
    const Reached r = reach(three_tasks([](Words& c) { atomic_inc(&c.v); }), cached, 100);
    CHECK_EQUAL(7u, cached.states().stored);
    CHECK_EQUAL(3u, cached.states().matched);
    CHECK_EQUAL(1u, r.final_states.size());
}

// The same, but each task reads what it made and then writes w: a task that read 1 and one
// that read 2 are in different states until they finish, so two done and one of them still
// to write are not met again from the other order.
TEST(StateCache, what_a_task_read_keeps_its_states_apart) {
    StatefulDfs cached;
    Dfs dfs;
    const Setup setup = three_tasks([](Words& c) {
        const int mine = atomic_inc_return(&c.v);
        atomic_add(mine, &c.w);
    });
    const Reached reduced = reach(setup, cached, 100);
    const Reached all = reach(setup, dfs, 100);
    CHECK(same_final_states(reduced, all));
    CHECK(cached.states().stored > 7u);
}

// a increments v and reads the result inside a forget_reads scope, then increments w; b and c
// increment v. With the scope, what a read is gone once the scope ends: a's three positions
// (before v, before w, done) times the four sets of b and c done are its states, the last (the
// end) not stored: 11. Without it, a before w is apart by the value it read (1 more than the
// number of b and c done before it): 4 + 8 + 3 = 15. (Every step writes: a read-only step would
// keep states apart by how long nothing was written, for the spin-loop watch.)
TEST(StateCache, a_read_forgotten_at_the_end_of_its_scope_keeps_no_state_apart) {
    const auto model = [](bool forget) {
        return a_among_two_increments([forget](Words& c) {
            {
                std::optional<forget_reads> reads;
                if (forget) reads.emplace();
                (void)atomic_inc_return(&c.v);
            }
            atomic_inc(&c.w);
        });
    };
    StatefulDfs forgetting;
    StatefulDfs keeping;
    Dfs dfs;
    const Reached reduced = reach(model(true), forgetting, 100);
    reach(model(false), keeping, 100);
    CHECK_EQUAL(11u, forgetting.states().stored);
    CHECK_EQUAL(15u, keeping.states().stored);
    CHECK(reduced.final_states == reach(model(true), dfs, 100).final_states);
}

// A wait that re-reads v until b and c have both incremented it, forgetting each round at its
// head: however many rounds a went and whatever it read, it is in one state per value of v.
TEST(StateCache, a_wait_forgotten_at_each_round_is_one_state_per_round_head) {
    const auto model = [](bool forget) {
        return a_among_two_increments([forget](Words& c) {
            forget_reads reads;
            while (atomic_read(&c.v) < 2) {
                if (forget) reads.forget();
                atomic_inc(&c.w);
                atomic_dec(&c.w);
            }
        });
    };
    StatefulDfs forgetting;
    StatefulDfs keeping;
    Dfs dfs;
    const Reached reduced = reach(model(true), forgetting, 40);
    const Reached kept = reach(model(false), keeping, 40);
    CHECK(forgetting.states().stored * 2 < keeping.states().stored);
    CHECK(reduced.final_states == reach(model(true), dfs, 40).final_states);
    CHECK(reduced.final_states == kept.final_states);
}

// The promise broken: a keeps what it read past the scope, and increments w if it read more
// than 1. Once a is past the scope, the states where it read 2 or 3 are taken for the one
// where it read 1 with as many of b and c done, met first (a's next step, on v too, is never
// asleep there), and w = 1 is never reached: what the differential tests against DFS would
// show on a model.
TEST(StateCache, a_read_kept_past_its_scope_loses_states) {
    const Setup setup = a_among_two_increments([](Words& c) {
        int kept = 0;
        {
            forget_reads reads;
            kept = atomic_inc_return(&c.v);
        }
        atomic_inc(&c.v);
        if (kept > 1) atomic_inc(&c.w);
    });
    StatefulDfs cached;
    Dfs dfs;
    const Reached all = reach(setup, dfs, 100);
    const Reached reduced = reach(setup, cached, 100);
    CHECK_EQUAL(2u, all.final_states.size());
    CHECK_EQUAL(1u, reduced.final_states.size());
}

// A task that moves between two CPUs keeps the CPU it is on in its task_struct: which way it
// went is not kept apart. One task, two preemption points, two CPUs: after its first point it
// is on CPU 0 or 1, after its second too, so 1 + 2 + 2 states are stored, not 1 + 2 + 4.
TEST(StateCache, where_a_task_moved_is_kept_only_as_the_cpu_it_is_on) {
    const Setup setup = [] {
        set_nr_cpus(2);
        auto& c = this_execution().make<Words>();
        spawn("a", [&c] {
            cond_resched();
            cond_resched();
            atomic_inc(&c.v);
        });
    };
    StatefulDfs cached;
    reach(setup, cached, 100);
    CHECK_EQUAL(5u, cached.states().stored);
}

namespace {

// Runs the tasks in `schedule`'s order, one step each, and takes the state a stateful search
// would compare after them.
class StateAfter final : public Strategy {
  public:
    explicit StateAfter(std::vector<TaskId> schedule) : schedule_(std::move(schedule)) {}
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override {
        if (step > schedule_.size()) {
            state = ex.fingerprint();
            return kNoTask;
        }
        const TaskId task = schedule_[step - 1];
        CHECK_TEXT(contains(enabled, task), ("step " + std::to_string(step)).c_str());
        return task;
    }
    std::uint32_t choose(std::uint32_t, std::uint32_t) override { return 0; }
    bool next_execution() override { return false; }
    bool fingerprints() const override { return true; }
    Fingerprint state;

  private:
    std::vector<TaskId> schedule_;
};

// Task a (0) spins a turn in which it reads v twice, forgetting what it read; b (1) and c (2)
// increment v, d (3) increments w first, so that a's cpu_relax() sees something written.
Fingerprint spinner_state_after(std::vector<TaskId> schedule) {
    const Setup setup = [] {
        auto& c = this_execution().make<Words>();
        spawn("a", [&c] {
            cpu_relax();
            {
                forget_reads reads;
                (void)atomic_read(&c.v);
                (void)atomic_read(&c.v);
            }
            atomic_inc(&c.w);
        });
        for (const char* name : {"b", "c"})
            spawn(name, [&c] { atomic_inc(&c.v); });
        spawn("d", [&c] { atomic_inc(&c.w); });
    };
    StateAfter probe(std::move(schedule));
    reach(setup, probe, 100);
    return probe.state;
}

} // namespace

// What a spin turn's watch keeps is what its next cpu_relax() will decide from: a turn that
// another task's write disturbed (v written between a's two reads of it) has changed whatever
// a does next, so the value v had when a first read it no longer keeps states apart; an
// undisturbed turn keeps it, since v going back to it would make the turn idle.
TEST(StateCache, a_spin_turn_disturbed_by_another_task_is_one_state_whatever_it_saw_first) {
    const TaskId a = 0, b = 1, c = 2, d = 3;
    // a first reads v at 1, then at 0; b and c write it before a's second read.
    CHECK(spinner_state_after({d, a, b, a, c, a}) == spinner_state_after({d, a, a, b, c, a}));
    // Both reads before c's write: v was 1 for one and 0 for the other, and nothing disturbed.
    CHECK(!(spinner_state_after({d, a, b, a, a, c}) == spinner_state_after({d, a, a, a, b, c})));
}

TEST(StateCache, the_command_line_takes_it_with_dfs_only) {
    const Run ok =
        run_lockcheck({"rename-pin", "--strategy", "dfs", "--state-cache", "--no-timing"});
    CHECK_EQUAL(0, ok.exit_code);
    CHECK_TEXT(contains(ok.out, "strategy      dfs, state cache\n"), ok.out.c_str());
    CHECK_TEXT(contains(ok.out, "\nstates        "), ok.out.c_str());
    const Run dpor = run_lockcheck({"rename-pin", "--state-cache"});
    CHECK_EQUAL(2, dpor.exit_code);
    CHECK_TEXT(contains(dpor.err, "--state-cache is for --strategy dfs, not dpor"),
               dpor.err.c_str());
    const Run bounded =
        run_lockcheck({"rename-pin", "--strategy", "dfs", "--state-cache", "--preemptions", "1"});
    CHECK_EQUAL(2, bounded.exit_code);
    // Waits depend on the path to a state, which it explores from one path only.
    const Run waits = run_lockcheck(
        {"rename-pin", "--strategy", "dfs", "--state-cache", "--max-wait", "fsync=3"});
    CHECK_EQUAL(2, waits.exit_code);
    CHECK_TEXT(contains(waits.err, "--state-cache cannot check a wait bound"), waits.err.c_str());
    const Run compare =
        run_lockcheck({"compare", "rename-pin", "--strategy", "dfs", "--state-cache"});
    CHECK_EQUAL(2, compare.exit_code);
}

TEST(StateCache, the_json_report_has_the_state_table) {
    const TempDir dir;
    const std::string json = dir / "run.json";
    const Run run = run_lockcheck(
        {"rename-pin", "--strategy", "dfs", "--state-cache", "--no-timing", "--json", json});
    CHECK_EQUAL(0, run.exit_code);
    const std::string text = read_file(json);
    CHECK_TEXT(contains(text, "\"states\": {\n      \"stored\": "), text.c_str());
    CHECK_TEXT(contains(text, "\"full\": false"), text.c_str());
}

// An entry is 16 bytes: the depth and the sleep sets of tasks 0-10 in it, a wider sleep set
// beside the array; each is what was stored, through the table's growth.
TEST(StateCache, an_entry_keeps_its_depth_and_a_sleep_set_of_any_of_64_tasks) {
    StateTable table;
    const auto fingerprint = [](std::uint64_t i) {
        return Fingerprint{i * 0x9e3779b97f4a7c15ULL, i * 31};
    };
    const auto sleep_of = [](std::uint64_t i) {
        return i % 3 ? task_bit(i % 11) : task_bit(i % 64) | task_bit(63);
    };
    for (std::uint64_t i = 1; i <= 20000; ++i) {
        const StateTable::Found found = table.insert(fingerprint(i));
        CHECK(found.added);
        table.explored(*found.entry, static_cast<std::uint32_t>(i * 50), sleep_of(i));
    }
    CHECK_EQUAL(20000u, table.size());
    for (std::uint64_t i = 1; i <= 20000; ++i) {
        const StateTable::Found found = table.insert(fingerprint(i));
        CHECK(!found.added);
        CHECK_EQUAL(i * 50, found.entry->depth());
        CHECK_EQUAL(sleep_of(i), table.sleep(*found.entry));
    }
    // Narrowed to tasks 0-10, a wide set moves into its entry.
    StateTable::Entry& e = *table.insert(fingerprint(3)).entry;
    const std::size_t wide = table.bytes();
    table.narrow_sleep(e, task_bit(3) | task_bit(5));
    CHECK_EQUAL(task_bit(3), table.sleep(e));
    CHECK(table.bytes() < wide);
    CHECK_EQUAL(150u, e.depth());
    // A depth past 20 bits, beyond --depth and --max-steps, is kept as the largest it can hold.
    table.explored(e, 1u << 24, 0);
    CHECK_EQUAL((1u << 20) - 1, e.depth());
    CHECK_EQUAL(0u, table.sleep(e));
}

// The table doubles in place: entries whose homes crowd the end of the table, in clusters that
// wrap round to its start, each in the lower or the upper half of the doubled table, are all
// found again right after the third doubling (4096 slots to 32768; the states stored after a
// doubling would fill the holes a wrong one leaves).
TEST(StateCache, a_table_doubled_in_place_keeps_the_clusters_that_wrap_round_its_end) {
    StateTable table;
    constexpr std::uint64_t kStates = 16384 * 3 / 4 + 1;
    const auto fingerprint = [](std::uint64_t i) {
        // Low 15 bits: one of the last 8 slots of a 4096-, 8192-, 16384- or 32768-slot table.
        const std::uint64_t end = (std::uint64_t{1} << (12 + i % 4)) - 1 - i % 8;
        return Fingerprint{i << 15 | end, i};
    };
    for (std::uint64_t i = 1; i <= kStates; ++i) {
        const StateTable::Found found = table.insert(fingerprint(i));
        CHECK(found.added);
        table.explored(*found.entry, static_cast<std::uint32_t>(i), 0);
    }
    CHECK_EQUAL(32768u * sizeof(StateTable::Entry), table.bytes());
    for (std::uint64_t i = 1; i <= kStates; ++i) {
        const StateTable::Found found = table.insert(fingerprint(i));
        CHECK(!found.added);
        CHECK_EQUAL(i, found.entry->depth());
    }
    CHECK_EQUAL(kStates, table.size());
}

// A table at its cap stores nothing more, and says so; the search goes on without it and
// still reaches what DFS reaches.
TEST(StateCache, a_full_table_is_reported_and_the_search_stays_exact) {
    StateTable table(64 * sizeof(StateTable::Entry));
    std::uint64_t added = 0;
    for (std::uint64_t i = 1; i <= 64; ++i)
        if (table.insert(Fingerprint{i * 0x9e3779b97f4a7c15ULL, i}).added) ++added;
    CHECK_EQUAL(48u, added); // three quarters of 64 slots, then no room to grow
    CHECK(table.full());
    CHECK(table.insert(Fingerprint{0x9e3779b97f4a7c15ULL, 1}).entry != nullptr); // still found

    // Each task keeps the counts it got back: more states than the table holds.
    const Setup setup = three_tasks([](Words& c) {
        for (int i = 0; i < 2; ++i)
            atomic_add(atomic_inc_return(&c.v), &c.w);
    });
    Dfs dfs;
    StatefulDfs capped(0, 64 * sizeof(StateTable::Entry));
    const Reached all = reach(setup, dfs, 100);
    const Reached reduced = reach(setup, capped, 100);
    CHECK(capped.states().full);
    CHECK_EQUAL(48u, capped.states().stored);
    CHECK(same_final_states(reduced, all));
    CHECK(reduced.violations == all.violations);
}

namespace {

// A timer whose callback counts its expiries and re-arms it (a periodic timer, which expires
// again only once another task stepped since: model/timer.hpp), and a task t that arms it,
// steps once more, and then checks that it did not expire twice. Twice takes an expiry after
// t's arming and another after its next step; the state after the first two steps of t and
// one expiry is met from two orders, and only the one where the expiry came between them may
// expire again at once. t is spawned first, so the other order is met first.
struct ticker {
    timer_list timer{"ticker"};
    atomic_t v{"v"};
    atomic_t fired{"fired"};
};

Setup ticker_checked_after_two_steps() {
    return [] {
        ticker& k = model_state<ticker>();
        spawn("t", [&k] {
            mod_timer(&k.timer, jiffies + HZ);
            atomic_inc(&k.v);
            check(atomic_read(&k.fired) != 2, "the timer expired twice");
        });
        timer_setup(
            &k.timer,
            [](timer_list* t) {
                ticker* k = from_timer(k, t, &ticker::timer);
                atomic_inc(&k->fired);
                mod_timer(t, jiffies + HZ);
            },
            0);
    };
}

} // namespace

TEST(StateCache, a_periodic_timer_that_may_expire_again_is_kept_apart_from_one_that_may_not) {
    const Setup setup = ticker_checked_after_two_steps();
    Dfs dfs;
    StatefulDfs cached;
    const Reached all = reach(setup, dfs, 100);
    const Reached reduced = reach(setup, cached, 100);
    CHECK_EQUAL(1u, all.violations.size());
    expect_reached_what_dfs_reached(reduced, all, "stateful dfs");
}

namespace {

// probe, on CPU 1, starts x on CPU 0, where an interrupt's handler sets v to 1 and then 2; x
// checks that it never sees the handler half way. x spawned while the handler runs must wait
// for it as the tasks it interrupted do (in the kernel it cannot run on the CPU before the
// handler returns): either order of the spawn and the handler's entry leaves one state.
struct half_way {
    atomic_t v{"v"};
    atomic_t w{"w"};
};

irqreturn_t set_twice(int, void* data) {
    auto* h = static_cast<half_way*>(data);
    atomic_set(&h->v, 1);
    atomic_set(&h->v, 2);
    return IRQ_HANDLED;
}

Setup task_started_under_a_handler() {
    return [] {
        set_nr_cpus(2);
        half_way& h = model_state<half_way>();
        spawn_on(1, "probe", [&h] {
            atomic_inc(&h.w);
            spawn_on(0, "x", [&h] { check(atomic_read(&h.v) != 1, "x saw the handler half way"); });
            atomic_inc(&h.w);
        });
        request_irq(17, set_twice, 0, "dev", &h);
        irq_may_fire(17, 0);
    };
}

} // namespace

TEST(StateCache, a_task_started_on_a_cpu_where_a_handler_runs_waits_for_it) {
    const Setup setup = task_started_under_a_handler();
    Dfs dfs;
    StatefulDfs cached;
    const Reached all = reach(setup, dfs, 100);
    const Reached reduced = reach(setup, cached, 100);
    CHECK(all.violations.empty());
    expect_reached_what_dfs_reached(reduced, all, "stateful dfs");
    expect_verified_by_every_search(setup, "x started under the handler");
}
