// Sequence counts and seqlocks: a reader that retries until it read the data between two
// equal, even counts sees one writer's whole update, under every search and under lkmm;
// writers without their lock are lockdep's assertion, and writers that race on the count leave
// readers with torn data or spinning for ever; a reader without the barrier after its first
// read of the count sees a torn update under lkmm.
#include <string>

#include "checker/trace.hpp"
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
            // raw_read_seqcount() without its smp_rmb()
            while ((seq = READ_ONCE(s.seq.sequence)) & 1)
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

// Every exhaustive search on one writer; DPOR on two (5,244 executions, where DFS runs
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

namespace {

// include/linux/fs.h's i_size_read()/i_size_write() on an SMP kernel of `bits_per_long`: two
// writers (under i_rwsem, or not) and a reader that checks it read a size one of them wrote,
// sizes whose high and low words both change.
constexpr long long kFarSize = (1LL << 32) | 1;
constexpr long long kNearSize = 2;

Setup i_size_model(int bits_per_long, bool writers_lock, int writers = 2) {
    return [bits_per_long, writers_lock, writers] {
        inode& i = model_state<inode>("inode", 0, bits_per_long);
        for (const long long size : {kFarSize, kNearSize}) {
            if (size == kNearSize && writers == 1) break;
            spawn(size == kFarSize ? "extend" : "truncate", [&i, size, writers_lock] {
                if (writers_lock) inode_lock(&i);
                i_size_write(&i, size);
                if (writers_lock) inode_unlock(&i);
            });
        }
        spawn("stat", [&i] {
            const long long size = i_size_read(&i);
            check(size == 0 || size == kFarSize || size == kNearSize,
                  "i_size_read() returns a size some i_size_write() wrote");
        });
    };
}

} // namespace

// 32-bit SMP: the size is two words under i_size_seqcount; a writer and a retrying reader
// verify under sc (3,498 executions) and lkmm (two writers under i_rwsem: DPOR runs 5,244
// executions under sc, 250,082 under lkmm, 145,110 of them redundant, in about 15 s). Writers that
// skip i_rwsem race on the count (a plain increment): a lost update leaves it odd and the reader
// spinning for ever. On 64-bit the same writers are one release store each.
TEST(Seqcount, i_size_read_on_32bit_smp_retries_on_i_size_seqcount) {
    CheckOptions lkmm;
    lkmm.memory_model = MemoryModel::lkmm;
    const SearchResult one = check_model(i_size_model(32, true, 1));
    expect_verified(one, "32-bit, one writer");
    CHECK_EQUAL(3498u, one.stats.executions);
    expect_verified(check_model(i_size_model(32, true, 1), lkmm), "32-bit, one writer, lkmm");
    const SearchResult r = check_model(i_size_model(32, false));
    const Violation& v = only_violation(r, "32-bit, two writers without i_rwsem");
    CHECK_EQUAL(ViolationKind::hang, v.kind);
    STRCMP_CONTAINS("stat in cpu_relax waiting on inode.i_size_seqcount", v.message.c_str());
    expect_verified(check_model(i_size_model(64, false)), "64-bit, without i_rwsem");
    expect_verified(check_model(i_size_model(64, false), lkmm), "64-bit, without i_rwsem, lkmm");
}

namespace {

// KCSAN's view of a seqcount: plain accesses inside the read section (begin..retry) and the
// write section are atomic (kcsan_atomic_next(), kcsan_nestable_atomic_begin()); a plain read
// after the section ends is a plain read.
Setup plain_sections(bool read_outside) {
    return [read_outside] {
        sized& s = model_state<sized>();
        seqcount_spinlock_init(&s.seq, &s.lock);
        spawn("writer", [&s] {
            spin_lock(&s.lock);
            write_seqcount_begin(&s.seq);
            s.lo.write(1);
            s.hi.write(1);
            write_seqcount_end(&s.seq);
            spin_unlock(&s.lock);
        });
        spawn("reader", [&s, read_outside] {
            int lo = 0;
            int hi = 0;
            unsigned seq = 0;
            do {
                seq = read_seqcount_begin(&s.seq);
                lo = s.lo.read();
                hi = s.hi.read();
            } while (read_seqcount_retry(&s.seq, seq));
            check(lo == hi, "the reader sees one writer's whole update");
            if (read_outside) (void)s.lo.read();
        });
    };
}

} // namespace

TEST(Seqcount, plain_accesses_inside_seqcount_sections_are_not_data_races_outside_they_are) {
    expect_verified(check_model(plain_sections(false)), "plain reads inside the section");
    CheckOptions lkmm;
    lkmm.memory_model = MemoryModel::lkmm;
    expect_verified(check_model(plain_sections(false), lkmm), "inside, lkmm");
    const SearchResult r = check_model(plain_sections(true));
    const Violation& v = only_violation(r, "a plain read after read_seqcount_retry()");
    CHECK_EQUAL(ViolationKind::data_race, v.kind);
    CHECK_EQUAL("data race on lo", v.property);
}

namespace {

// The seqcount's dep_map: a reader in an interrupt handler that may interrupt a writer
// holding the section with interrupts on.
irqreturn_t read_in_irq(int, void* data) {
    auto* s = static_cast<sized*>(data);
    const unsigned seq = read_seqcount_begin(&s->seq);
    (void)READ_ONCE(s->lo);
    (void)read_seqcount_retry(&s->seq, seq);
    return IRQ_HANDLED;
}

} // namespace

TEST(Seqcount, a_reader_inside_its_own_write_section_is_lockdeps_recursive_locking) {
    const SearchResult r = check_model([] {
        sized& s = model_state<sized>();
        seqcount_spinlock_init(&s.seq, &s.lock);
        spawn("writer", [&s] {
            spin_lock(&s.lock);
            write_seqcount_begin(&s.seq);
            (void)read_seqcount_begin(&s.seq); // spins for ever on its own odd count
            write_seqcount_end(&s.seq);
            spin_unlock(&s.lock);
        });
    });
    const Violation& v = only_violation(r, "read_seqcount_begin() in the write section");
    CHECK_EQUAL(ViolationKind::lock_order, v.kind);
    CHECK_EQUAL("recursive-locking", v.property);
    STRCMP_CONTAINS("seq", v.message.c_str());
}

// The writer holds the section with interrupts on; the handler reading the seqcount on its
// CPU would spin for ever on the odd count: lockdep's {HARDIRQ-ON-W} -> {IN-HARDIRQ-R}.
// write_seqcount_begin() under spin_lock_irq() verifies.
TEST(Seqcount, a_reader_in_an_irq_against_a_writer_with_irqs_on_is_an_inconsistent_lock_state) {
    const auto model = [](bool irqs_off) -> Setup {
        return [irqs_off] {
            sized& s = model_state<sized>();
            seqcount_spinlock_init(&s.seq, &s.lock);
            request_irq(17, read_in_irq, 0, "dev", &s);
            irq_fires(17);
            spawn("writer", [&s, irqs_off] {
                if (irqs_off)
                    spin_lock_irq(&s.lock);
                else
                    spin_lock(&s.lock);
                write_seqcount_begin(&s.seq);
                WRITE_ONCE(s.lo, 1);
                write_seqcount_end(&s.seq);
                if (irqs_off)
                    spin_unlock_irq(&s.lock);
                else
                    spin_unlock(&s.lock);
            });
        };
    };
    expect_verified(check_model(model(true)), "spin_lock_irq() around the write section");
    const SearchResult r = check_model(model(false));
    const Violation& v = only_violation(r, "spin_lock() around the write section");
    CHECK_EQUAL(ViolationKind::lock_order, v.kind);
    CHECK_EQUAL("inconsistent-lock-state", v.property);
    STRCMP_CONTAINS("seq", v.message.c_str());
}

namespace {

// The seqcount written out without one of its barriers: the reader's smp_rmb() after its
// first read of the count, or the writer's smp_wmb() after making it odd.
enum class Missing { reader_rmb, writer_wmb };

Setup missing_barrier(Missing m) {
    return [m] {
        sized& s = model_state<sized>();
        spawn("writer", [&s, m] {
            if (m == Missing::writer_wmb) {
                WRITE_ONCE(s.seq.sequence, 1); // write_seqcount_begin() without smp_wmb()
                WRITE_ONCE(s.lo, 1);
                WRITE_ONCE(s.hi, 1);
                smp_wmb();
                WRITE_ONCE(s.seq.sequence, 2);
            } else {
                write_both(s, 1, Writer::unlocked_raw);
            }
        });
        spawn("reader", [&s, m] {
            read_both(s, m == Missing::reader_rmb ? Reader::raw_no_barrier : Reader::begin);
        });
    };
}

} // namespace

TEST(Seqcount, under_lkmm_a_torn_read_that_passes_the_retry_names_the_missing_barrier) {
    CheckOptions lkmm;
    lkmm.memory_model = MemoryModel::lkmm;
    for (const Missing m : {Missing::reader_rmb, Missing::writer_wmb}) {
        const char* what = m == Missing::reader_rmb ? "smp_rmb() in reader" : "smp_wmb() in writer";
        const SearchResult r = check_model(missing_barrier(m), lkmm);
        CHECK_EQUAL_TEXT(1u, r.findings.size(), what);
        CHECK_EQUAL(ViolationKind::check_failed, r.findings.front().violation.kind);
        const Trace trace = replay(missing_barrier(m), r.findings.front().schedule, lkmm).trace;
        std::string barriers;
        for (const std::string& b : trace.barriers)
            barriers += b + "\n";
        CHECK_TEXT(contains(barriers, what), barriers.c_str());
    }
}
