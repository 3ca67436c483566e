// The seqcount hang model: i_size as two words under a seqcount, one writer skipping i_rwsem.
#include "seqcount_hang.hpp"

#include "model/kernel.hpp"

namespace lockcheck::detail::testing {

namespace {

// i_size_read() and i_size_write() as include/linux/fs.h has them for 32-bit SMP, the 64-bit
// size as two words under a seqcount, and an extending writer that skips i_rwsem: the two
// writers' sequence increments race, one is lost, and the reader spins on an odd count for
// ever.
struct seqcount_inode {
    rw_semaphore i_rwsem{"inode.i_rwsem"};
    shared<unsigned> i_size_seqcount{"inode.i_size_seqcount"};
    shared<unsigned> i_size_lo{"inode.i_size.lo"};
    shared<unsigned> i_size_hi{"inode.i_size.hi"};
};

// s->sequence++ is a plain increment: a load and a store.
void seqcount_inc(shared<unsigned>& sequence) {
    WRITE_ONCE(sequence, READ_ONCE(sequence) + 1);
}

void i_size_write(seqcount_inode& inode, unsigned size) {
    seqcount_inc(inode.i_size_seqcount);
    WRITE_ONCE(inode.i_size_lo, size);
    WRITE_ONCE(inode.i_size_hi, size);
    seqcount_inc(inode.i_size_seqcount);
}

unsigned i_size_read(seqcount_inode& inode) {
    unsigned seq, lo;
    do {
        while ((seq = READ_ONCE(inode.i_size_seqcount)) & 1)
            cpu_relax();
        lo = READ_ONCE(inode.i_size_lo);
    } while (READ_ONCE(inode.i_size_seqcount) != seq);
    return lo;
}

} // namespace

Protocol seqcount_hang_model() {
    return Protocol{
        .name = "isize-seqcount",
        .summary = "i_size_read() retries on i_size_seqcount; an extending writer skips i_rwsem",
        .variants = {{"unlocked-extend", "the extending i_size_write() without i_rwsem",
                      Expectation::violation(ViolationKind::hang, "hang")}},
        .setup =
            [](std::size_t, const ParameterValues&) {
                auto& inode = this_execution().make<seqcount_inode>();
                spawn("truncate", [&inode] {
                    down_write(&inode.i_rwsem);
                    i_size_write(inode, 1);
                    up_write(&inode.i_rwsem);
                });
                spawn("extend", [&inode] { i_size_write(inode, 2); });
                spawn("stat0", [&inode] { i_size_read(inode); });
            },
    };
}

} // namespace lockcheck::detail::testing
