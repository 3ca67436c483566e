// Sequence counts and seqlocks: a reader that retries until it read the data between two
// equal, even counts sees one writer's whole update, under every search and under lkmm;
// writers without their lock are lockdep's assertion, and writers that race on the count leave
// readers with torn data or spinning for ever; a reader without the barrier after its first
// read of the count sees a torn update under lkmm.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// Two halves of one value (a 64-bit size on a 32-bit machine), written together.
struct sized {
    spinlock_t lock{"lock"};
    seqcount_spinlock_t seq{"seq"};
    shared<int> lo{"lo"};
    shared<int> hi{"hi"};
};

enum class Writer { locked, unlocked_assert, unlocked_raw };
enum class Reader { begin, raw_no_barrier };

void write_both(sized& s, int v, Writer w) {
    if (w == Writer::locked) spin_lock(&s.lock);
    if (w == Writer::unlocked_raw)
        raw_write_seqcount_begin(&s.seq);
    else
        write_seqcount_begin(&s.seq);
    WRITE_ONCE(s.lo, v);
    WRITE_ONCE(s.hi, v);
    if (w == Writer::unlocked_raw)
        raw_write_seqcount_end(&s.seq);
    else
        write_seqcount_end(&s.seq);
    if (w == Writer::locked) spin_unlock(&s.lock);
}

void read_both(sized& s, Reader r) {
    int lo = 0;
    int hi = 0;
    unsigned seq = 0;
    do {
        if (r == Reader::begin) {
            seq = read_seqcount_begin(&s.seq);
        } else {
            while ((seq = raw_read_seqcount(&s.seq)) & 1)
                cpu_relax();
        }
        lo = READ_ONCE(s.lo);
        hi = READ_ONCE(s.hi);
    } while (read_seqcount_retry(&s.seq, seq));
    check(lo == hi, "the reader sees one writer's whole update");
}

Setup seqcount_model(Writer w, Reader r, int writers) {
    return [w, r, writers] {
        sized& s = model_state<sized>();
        seqcount_spinlock_init(&s.seq, &s.lock);
        for (int i = 1; i <= writers; ++i)
            spawn("writer" + std::to_string(i), [&s, w, i] { write_both(s, i, w); });
        spawn("reader", [&s, r] { read_both(s, r); });
    };
}

} // namespace

TEST_GROUP(Seqcount){};

// Every exhaustive search on one writer; DPOR on two (23,844 executions, where DFS runs
// millions: the reader retries while either writes).
TEST(Seqcount, a_reader_retrying_against_locked_writers_sees_whole_updates) {
    expect_verified_by_every_search(seqcount_model(Writer::locked, Reader::begin, 1),
                                    "a locked writer, a reader");
    expect_verified(check_model(seqcount_model(Writer::locked, Reader::begin, 2), Search::dpor, {}),
                    "two locked writers, a reader");
}

TEST(Seqcount, a_writer_without_the_associated_lock_is_lockdeps_assertion) {
    const SearchResult r = check_model(seqcount_model(Writer::unlocked_assert, Reader::begin, 1));
    const Violation& v = only_violation(r, "write_seqcount_begin without lock");
    STRCMP_CONTAINS("lockdep_assert_held", v.message.c_str());
}

TEST(Seqcount, writers_racing_on_the_count_leave_a_reader_torn_or_spinning) {
    const SearchResult r = check_model(seqcount_model(Writer::unlocked_raw, Reader::begin, 2));
    const Violation& v = only_violation(r, "two writers without the lock");
    CHECK_TEXT(v.kind == ViolationKind::check_failed || v.kind == ViolationKind::hang,
               v.message.c_str());
}

TEST(Seqcount, a_reader_without_the_barrier_after_the_count_sees_a_torn_update_under_lkmm) {
    expect_verified(check_model(seqcount_model(Writer::locked, Reader::raw_no_barrier, 1)),
                    "raw_read_seqcount, sc");
    CheckOptions lkmm;
    lkmm.memory_model = MemoryModel::lkmm;
    const SearchResult r =
        check_model(seqcount_model(Writer::locked, Reader::raw_no_barrier, 1), lkmm);
    CHECK_EQUAL(ViolationKind::check_failed, only_violation(r, "raw_read_seqcount, lkmm").kind);
    expect_verified(check_model(seqcount_model(Writer::locked, Reader::begin, 1), lkmm),
                    "read_seqcount_begin, lkmm");
}

// Under lkmm a reader's turn may read older counts and halves; a turn that then retries
// changed nothing, so only those whose reads were all of the latest writes are explored.
TEST(Seqcount, under_lkmm_a_retry_that_read_older_writes_ends_its_execution_as_redundant) {
    CheckOptions lkmm;
    lkmm.memory_model = MemoryModel::lkmm;
    for (Search search : kExhaustiveSearches) {
        const std::string what = std::string("one writer, lkmm, ") + search_name(search);
        const SearchResult r =
            check_model(seqcount_model(Writer::locked, Reader::begin, 1), search, lkmm);
        expect_verified(r, what);
        CHECK_TEXT(r.stats.redundant > 0, what.c_str());
        const SearchResult torn =
            check_model(seqcount_model(Writer::locked, Reader::raw_no_barrier, 1), search, lkmm);
        CHECK_EQUAL_TEXT(ViolationKind::check_failed, only_violation(torn, what).kind,
                         what.c_str());
    }
    // Two writers and a reader: 144,660 executions (89,190 of them redundant); 272,083 and
    // not done after 20 s when every stale retry was explored.
    CheckOptions bounded = lkmm;
    bounded.max_executions = 200'000;
    const SearchResult r =
        check_model(seqcount_model(Writer::locked, Reader::begin, 2), Search::dpor, bounded);
    expect_verified(r, "two writers, lkmm");
    CHECK(r.stats.executions < 150'000);
}
