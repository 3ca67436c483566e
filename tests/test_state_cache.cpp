// The stateful search (--state-cache) against plain DFS: on every shipped variant it must reach
// the same final states and the same kinds of violation, in fewer executions; on small models
// its state counts are the ones counted by hand; and the command line takes the option only
// where it means something.
#include <string>

#include "checker/dfs.hpp"
#include "checker/stateful_dfs.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::testing;

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

} // namespace

// Plain DFS on every variant: minutes under the sanitizers, which tools/test.sh leaves out.
TEST_GROUP(StateCacheVariants){};

TEST(StateCacheVariants, reaches_what_dfs_reaches_on_every_shipped_variant) {
    constexpr std::uint32_t kDfsFeasibleDepth = 24;
    for (const Protocol& p : protocol_models()) {
        for (std::size_t i = 0; i < p.variants.size(); ++i) {
            const std::string what = p.name + " --variant " + p.variants[i].name;
            const Setup setup = default_setup(p, i);
            const std::uint32_t depth = dfs_exhausts(p) ? p.depth_for(i) : kDfsFeasibleDepth;
            Dfs dfs;
            StatefulDfs cached;
            const Reached all = reach(setup, dfs, depth);
            const Reached reduced = reach(setup, cached, depth);
            CHECK_TEXT(reduced.executions <= all.executions, what.c_str());
            CHECK_TEXT(reduced.final_states == all.final_states,
                       (what + ": reached " + std::to_string(reduced.final_states.size()) +
                        " final states, DFS " + std::to_string(all.final_states.size()))
                           .c_str());
            CHECK_TEXT(reduced.violations == all.violations,
                       (what + ": found " + std::to_string(reduced.violations.size()) +
                        " kinds of violation, DFS " + std::to_string(all.violations.size()))
                           .c_str());
        }
    }
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
    CHECK(reduced.final_states == all.final_states);
    CHECK(cached.states().stored > 7u);
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
    CHECK(reduced.final_states == all.final_states);
    CHECK(reduced.violations == all.violations);
}
