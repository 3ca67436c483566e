// The LKMM check of the events just added (lkmm_forbids_added, what the search runs for each
// candidate) against the check of the whole graph (lkmm_forbids), on random executions built
// as the search builds them: every candidate a read or a write could take is judged by both,
// which must agree, and the execution goes on with one of the allowed ones. The data-race flag
// likewise (lkmm_data_race against lkmm_data_race_whole).
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "CppUTest/TestHarness.h"
#include "memory/evidence.hpp"
#include "memory/graph.hpp"
#include "memory/lkmm.hpp"

using namespace lockcheck::detail::memory;

namespace {

constexpr std::uint32_t kLocations = 3; // 0..2 data, 3 a lock
constexpr std::uint16_t kTasks = 3;

struct Builder {
    Graph g;
    std::mt19937 rng;
    int compared = 0;
    int refused = 0;

    explicit Builder(unsigned seed) : rng(seed) {
        for (std::uint32_t l = 0; l <= kLocations; ++l)
            g.add_location(0);
    }
    std::uint32_t pick(std::size_t n) {
        return std::uniform_int_distribution<std::uint32_t>(0,
                                                            static_cast<std::uint32_t>(n - 1))(rng);
    }

    // Judges the events appended since `since` both ways; returns whether they are allowed.
    bool judge(std::uint32_t since) {
        const Axiom whole = lkmm_forbids(g);
        const Axiom added = lkmm_forbids_added(g, since);
        CHECK_EQUAL_TEXT(axiom_name(whole), axiom_name(added),
                         ("graph of " + std::to_string(g.size()) + " events").c_str());
        ++compared;
        refused += whole != Axiom::none;
        return whole == Axiom::none;
    }

    // Tries `add` for each of `choices` candidates, taking each back; then adds an allowed one.
    template <class Add> void choose(std::size_t choices, Add add) {
        std::vector<std::size_t> allowed;
        for (std::size_t c = 0; c < choices; ++c) {
            const auto since = static_cast<std::uint32_t>(g.size());
            const int events = add(c);
            if (judge(since)) allowed.push_back(c);
            for (int i = 0; i < events; ++i)
                g.pop();
        }
        // The coherence-latest candidate is always allowed (docs/memory-model.md).
        CHECK(!allowed.empty());
        add(allowed[pick(allowed.size())]);
    }

    void step(std::uint16_t task, std::uint32_t n) {
        const std::uint32_t loc = pick(kLocations);
        const std::vector<std::uint32_t> co = g.co(loc);
        static constexpr std::uint16_t kReadTags[] = {0, kAcquire, kPlain};
        static constexpr std::uint16_t kWriteTags[] = {0, kRelease, kPlain};
        static constexpr std::uint16_t kRmwTags[] = {kRmw | kMb, kRmw | kNoreturn, kRmw};
        // RCU's read-side fences too: the checks leave them out without a grace period (a
        // Sync-rcu would let the rcu axiom refuse the coherence-latest candidate, see choose()).
        static constexpr Fence kFences[] = {
            Fence::mb,           Fence::rmb,      Fence::wmb,       Fence::before_atomic,
            Fence::after_atomic, Fence::rcu_lock, Fence::rcu_unlock};
        switch (pick(6)) {
        case 0: { // READ_ONCE, smp_load_acquire or a plain read, from any write
            const std::uint16_t tags = kReadTags[pick(3)];
            choose(co.size(), [&](std::size_t c) {
                g.add_read(task, loc, tags, co[co.size() - 1 - c], n);
                return 1;
            });
            break;
        }
        case 1: { // WRITE_ONCE, smp_store_release or a plain write, anywhere in co
            const std::uint16_t tags = kWriteTags[pick(3)];
            // Some of the task's earlier reads known not to order it (load buffering).
            const std::uint64_t independent = pick(2) ? rng() : 0;
            choose(co.size(), [&](std::size_t c) {
                g.set_independent(g.add_write(task, loc, tags, n, co.size() - 1 - c, n),
                                  independent);
                return 1;
            });
            break;
        }
        case 2: { // an RMW, right after the write it read
            const std::uint16_t tags = kRmwTags[pick(3)];
            choose(co.size(), [&](std::size_t c) {
                const std::uint32_t w = co[co.size() - 1 - c];
                g.add_read(task, loc, tags, w, n);
                g.add_write(task, loc, tags, n, g.co_position(w), n);
                return 2;
            });
            break;
        }
        case 3: // a fence: always allowed
            g.add_fence(task, kFences[pick(std::size(kFences))], n);
            break;
        case 4: { // spin_lock(): LKR of the last write of the lock, and LKW
            const auto since = static_cast<std::uint32_t>(g.size());
            const std::vector<std::uint32_t>& lock = g.co(kLocations);
            g.add_read(task, kLocations, kLockRead, lock.back(), n);
            g.add_write(task, kLocations, kLockWrite, 1, g.co(kLocations).size() - 1, n);
            CHECK(judge(since));
            break;
        }
        default: { // spin_unlock()
            const auto since = static_cast<std::uint32_t>(g.size());
            g.add_write(task, kLocations, kUnlock, 0, g.co(kLocations).size() - 1, n);
            CHECK(judge(since));
            break;
        }
        }
    }
};

} // namespace

TEST_GROUP(LkmmCheck){};

TEST(LkmmCheck, checking_the_added_events_gives_the_whole_checks_answer) {
    int compared = 0, refused = 0;
    for (unsigned seed = 1; seed <= 400; ++seed) {
        Builder b(seed);
        for (std::uint32_t n = 1; n <= 24; ++n)
            b.step(static_cast<std::uint16_t>(b.pick(kTasks)), n);
        compared += b.compared;
        refused += b.refused;
    }
    // The random executions must exercise both answers, or the comparison proves little.
    CHECK(compared > 10000);
    CHECK(refused > compared / 10);
}

// The data-race flag over the events on paths between conflicting accesses (what a run
// computes) against the flag over the whole graph, on every prefix of the same random
// executions.
TEST(LkmmCheck, the_data_race_flag_looks_at_enough_events_to_give_the_whole_graphs_answer) {
    int compared = 0, races = 0;
    for (unsigned seed = 1; seed <= 200; ++seed) {
        Builder b(seed);
        for (std::uint32_t n = 1; n <= 24; ++n) {
            b.step(static_cast<std::uint16_t>(b.pick(kTasks)), n);
            const DataRace whole = lkmm_data_race_whole(b.g);
            const DataRace seen = lkmm_data_race(b.g);
            CHECK_EQUAL(whole.earlier, seen.earlier);
            CHECK_EQUAL(whole.later, seen.later);
            ++compared;
            races += whole.earlier != kNone;
        }
    }
    CHECK(races > compared / 10);
    CHECK(races < compared * 9 / 10);
}

namespace {

// LB: P0 reads x and writes y, P1 reads y and writes x, each read reading the other task's
// write, made after it. `independent0`, `independent1`: whether each write is marked
// independent of its task's read.
Axiom load_buffering(bool independent0, bool independent1) {
    Graph g;
    const std::uint32_t x = g.add_location(0), y = g.add_location(0);
    const std::uint32_t r0 = g.add_read(0, x, 0, g.co(x).back(), 1);
    const std::uint32_t w0 = g.add_write(0, y, 0, 1, 0, 2);
    g.set_independent(w0, independent0 ? 1 : 0);
    g.add_read(1, y, 0, w0, 3);
    const std::uint32_t w1 = g.add_write(1, x, 0, 1, 0, 4);
    g.set_independent(w1, independent1 ? 1 : 0);
    g.bind(r0, w1);
    const Axiom whole = lkmm_forbids(g);
    // A check of the events from r0 on sees the cycle too.
    CHECK_EQUAL_TEXT(axiom_name(whole), axiom_name(lkmm_forbids_added(g, r0)), "from r0");
    return whole;
}

} // namespace

// herd7's LB+poonceonces is allowed: the cycle po ; rfe ; po ; rfe is in hb only through the
// .cat's dependencies from each read to the write after it. With a dependency on both sides
// (LB+datas, LB+ctrl+ctrl) it is forbidden; one side without one suffices to allow it.
TEST(LkmmCheck, a_load_buffering_graph_is_allowed_iff_a_write_is_independent_of_its_read) {
    STRCMP_EQUAL("happens-before", axiom_name(load_buffering(false, false)));
    STRCMP_EQUAL("none", axiom_name(load_buffering(true, false)));
    STRCMP_EQUAL("none", axiom_name(load_buffering(false, true)));
    STRCMP_EQUAL("none", axiom_name(load_buffering(true, true)));
}

// A round after the first repeats every execution: it runs only if it may explore something
// the round before did not: a read could have read a write ahead, or a dependency decided what
// LKMM allowed where some write was seen independent of a read.
TEST(LkmmCheck, another_round_runs_only_where_a_read_ahead_or_a_dependency_could_change_it) {
    using namespace lockcheck::detail::memory;
    const Made write{.task = 1, .loc = 7, .nth = 0, .value = 1};
    const std::vector<Seen> read_0 = {{3, 0}}, read_1 = {{3, 1}};
    const Reader reader{0, 7, 0};
    const auto independent = [&](Catalogue& c) {
        c.record(write, read_0);
        c.record(write, read_1);
    };
    Catalogue plain, ahead, decided, decided_only;
    independent(plain);
    independent(ahead);
    ahead.may_read_ahead(reader, write);
    ahead.may_read_ahead(reader, write); // noted once
    independent(decided);
    decided.dependencies_decided();
    decided_only.dependencies_decided();
    for (Catalogue* c : {&plain, &ahead, &decided, &decided_only})
        c->freeze();
    CHECK_TRUE(plain.independent_anywhere());
    CHECK_FALSE(plain.another_round_may_differ());
    CHECK_TRUE(ahead.another_round_may_differ());
    CHECK_TRUE(decided.another_round_may_differ());
    CHECK_FALSE(decided_only.another_round_may_differ()); // no write is independent of a read
    CHECK_EQUAL(1u, ahead.reads_ahead_count());
    CHECK_TRUE(ahead.knows_read_ahead(reader, write));
    CHECK_EQUAL(1u, ahead.reads_ahead(0, reader).size());
    CHECK_TRUE(ahead.reads_ahead(0, Reader{0, 7, 1}).empty()); // the task's next read: not it
    CHECK_FALSE(plain == ahead);
    CHECK_FALSE(plain == decided);
}

// Load buffering's evidence: a write made the same way after reads that differ in one value is
// independent of that read, but not when the model chose differently before it (a migration),
// nor when two reads differ; what a replay needs of it prints and parses back.
TEST(LkmmCheck, evidence_of_independence_needs_one_read_apart_and_the_same_choices) {
    using namespace lockcheck::detail::memory;
    Catalogue c;
    const Made write{.task = 1, .loc = 7, .nth = 0, .value = 1, .choices = 5};
    const std::vector<Seen> before = {{3, 0}, {4, 0}};
    c.record(write, before);
    c.freeze();
    const std::vector<Seen> one_apart = {{3, 0}, {4, 1}}, two_apart = {{3, 1}, {4, 1}};
    CHECK_EQUAL(1u, c.independent(0, write, one_apart)); // the nearest read, bit 0
    CHECK_EQUAL(0u, c.independent(0, write, two_apart));
    Made other_choice = write;
    other_choice.choices = 6;
    CHECK_EQUAL(0u, c.independent(0, other_choice, one_apart));
    CHECK_TRUE(c.independent_anywhere() == false); // one history shows nothing on its own

    const Recorder recorder(c);
    recorder.independent(3, write, one_apart);
    const Made offered[] = {write};
    recorder.offered(2, offered);
    const std::string text = recorder.tape().format();
    STRCMP_EQUAL("m3=1,f2=1.0.1", text.c_str());
    Tape tape;
    std::string error;
    CHECK_TRUE(Tape::parse(text, tape, error));
    CHECK_EQUAL(1u, tape.independent(3, write, before));
    CHECK_EQUAL(0u, tape.independent(2, write, before));
    CHECK_EQUAL(1u, tape.reads_ahead(2, Reader{0, 9, 0}).size());
    CHECK_EQUAL(9u, tape.reads_ahead(2, Reader{0, 9, 0})[0].loc);
    CHECK_FALSE(Tape::parse("m3=1,x", tape, error));
}
