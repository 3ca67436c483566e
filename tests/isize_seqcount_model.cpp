// isize-seqcount, as a user first wrote it (../shared/repro/isize_seqcount.cpp, issue 40), ported
// from the removed this_execution().make<>() to model_state<>(): built into a lockcheck binary of
// its own (lockcheck_isize), whose unlocked-extend hang tests/test_isize_seqcount.cpp runs from
// the command line with --trace. Kept as written otherwise, home-made seqcount included: the
// shipped one is model/seqlock.hpp's (fuse-i-size).
//
// isize-seqcount: i_size_read() and i_size_write() as include/linux/fs.h writes them for 32-bit
// SMP: the 64-bit i_size is two 32-bit words, guarded by the seqcount inode->i_size_seqcount.
// Readers are lockless and retry; writers must be serialized by the caller (normally i_rwsem):
// fs.h says "otherwise on 32bit/SMP an update of i_size_seqcount can be lost, resulting in
// subsequent i_size_read() calls spinning forever".
//
// The change under review: an extending write path (think a lockless append, or an
// ->page_mkwrite that updates i_size) calls i_size_write() without the inode lock, next to a
// truncate that holds it. The barrier variants drop one smp_wmb()/smp_rmb() of the seqcount
// (checked under --memory-model lkmm).
//
// lockcheck has no seqcount_t, so read_seqcount_begin() & co. are written out here as
// include/linux/seqlock.h has them. Every access of the sequence and of the two words is
// marked (READ_ONCE/WRITE_ONCE): KCSAN treats a seqcount's read section as atomic.
#include <lockcheck/lockcheck.hpp>

namespace isize_seqcount {

using namespace lockcheck;

// ---------------------------------------------------------------- seqcount_t
struct seqcount_t {
    explicit seqcount_t(const std::string& name) : sequence(name) {}
    shared<unsigned> sequence;
};

struct Policy {
    bool writers_take_i_rwsem = true; // the caller's serialization
    bool write_begin_wmb = true;      // smp_wmb() in write_seqcount_begin()
    bool read_begin_rmb = true;       // smp_rmb() in read_seqcount_begin()
    bool extender = true;             // a second writer, extending, besides truncate
};

unsigned read_seqcount_begin(seqcount_t* s, const Policy& p) {
    unsigned seq;
    while ((seq = READ_ONCE(s->sequence)) & 1)
        cpu_relax();
    if (p.read_begin_rmb) smp_rmb();
    return seq;
}

bool read_seqcount_retry(seqcount_t* s, unsigned start) {
    smp_rmb();
    return READ_ONCE(s->sequence) != start;
}

// s->sequence++ is a plain increment in the kernel: a load and a store.
void seqcount_inc(seqcount_t* s) {
    WRITE_ONCE(s->sequence, READ_ONCE(s->sequence) + 1);
}

void write_seqcount_begin(seqcount_t* s, const Policy& p) {
    seqcount_inc(s);
    if (p.write_begin_wmb) smp_wmb();
}

void write_seqcount_end(seqcount_t* s) {
    smp_wmb();
    seqcount_inc(s);
}

// ---------------------------------------------------------------- the inode
struct my_inode {
    rw_semaphore i_rwsem{"inode.i_rwsem"};
    seqcount_t i_size_seqcount{"inode.i_size_seqcount"};
    shared<unsigned> i_size_lo{"inode.i_size.lo"}; // the two halves of a 64-bit loff_t
    shared<unsigned> i_size_hi{"inode.i_size.hi"};
};

// A size is written as lo == hi == n, so a torn one has lo != hi.
struct loff {
    unsigned lo, hi;
};

loff i_size_read(my_inode* inode, const Policy& p) {
    loff size;
    unsigned seq;
    do {
        seq = read_seqcount_begin(&inode->i_size_seqcount, p);
        size.lo = READ_ONCE(inode->i_size_lo);
        size.hi = READ_ONCE(inode->i_size_hi);
    } while (read_seqcount_retry(&inode->i_size_seqcount, seq));
    return size;
}

void i_size_write(my_inode* inode, unsigned n, const Policy& p) {
    write_seqcount_begin(&inode->i_size_seqcount, p);
    WRITE_ONCE(inode->i_size_lo, n);
    WRITE_ONCE(inode->i_size_hi, n);
    write_seqcount_end(&inode->i_size_seqcount);
}

// truncate always holds the inode lock; the extending writer does only if the policy says.
void setsize(my_inode* inode, unsigned n, bool locked, const Policy& p) {
    if (locked) down_write(&inode->i_rwsem);
    i_size_write(inode, n, p);
    if (locked) up_write(&inode->i_rwsem);
}

void reader(my_inode* inode, const Policy& p) {
    loff size = i_size_read(inode, p);
    check(size.lo == size.hi, "i_size_read() returns a size some i_size_write() wrote");
}

struct Row {
    Variant variant;
    Policy policy;
};

const Row kRows[] = {
    {{"locked", "every i_size_write() under i_rwsem, the seqcount as seqlock.h has it",
      Expectation::verified()},
     {true, true, true, true}},
    {{"one-writer", "only truncate writes i_size, under i_rwsem (the barrier variants' base)",
      Expectation::verified()},
     {true, true, true, false}},
    {{"unlocked-extend", "the change: the extending write calls i_size_write() without i_rwsem",
      Expectation::violation(ViolationKind::hang, "hang")},
     {false, true, true, true}},
    {{"no-write-wmb", "one writer, but write_seqcount_begin() without its smp_wmb()",
      Expectation::verified(), 0,
      Expectation::violation(ViolationKind::check_failed,
                             "i_size_read() returns a size some i_size_write() wrote")},
     {true, false, true, false}},
    {{"no-read-rmb", "one writer, but read_seqcount_begin() without its smp_rmb()",
      Expectation::verified(), 0,
      Expectation::violation(ViolationKind::check_failed,
                             "i_size_read() returns a size some i_size_write() wrote")},
     {true, true, false, false}},
};

void setup(std::size_t variant, const ParameterValues& sizes) {
    const Policy& p = kRows[variant].policy;
    my_inode& inode = model_state<my_inode>();
    spawn("truncate", [&inode, &p] {
        op timed("truncate");
        setsize(&inode, 1, true, p);
    });
    if (p.extender)
        spawn("extend", [&inode, &p] {
            op timed("extend");
            setsize(&inode, 2, p.writers_take_i_rwsem, p);
        });
    for (int i = 0; i < sizes[0]; ++i)
        spawn("stat" + std::to_string(i), [&inode, &p] {
            op timed("stat");
            reader(&inode, p);
        });
    final_check("the seqcount is even once every writer is done",
                [&inode] { return (inode.i_size_seqcount.sequence.peek() & 1) == 0; });
}

Protocol model() {
    return Protocol{
        .name = "isize-seqcount",
        .summary = "32-bit i_size_read() retries on i_size_seqcount; writers must hold i_rwsem",
        .variants = variants_of(kRows),
        .parameters = {{"readers", "lockless i_size_read() callers", 1, 1, 3}},
        .comparison = Comparison{.before = "locked",
                                 .after = "unlocked-extend",
                                 .strategy = "random",
                                 .iterations = 2000},
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(model);

} // namespace isize_seqcount
