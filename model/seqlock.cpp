// Sequence counts and seqlocks (see seqlock.hpp).
#include "seqlock.hpp"

#include "barrier.hpp"
#include "lockdep.hpp"
#include "percpu.hpp"
#include "sched.hpp"

namespace lockcheck::detail {

namespace {

// s->sequence++: a load and a store, two steps, as the kernel's increment is not atomic (a
// second writer without the lock can lose one and leave the count odd).
void bump(seqcount_t* s, const char* op, std::source_location loc) {
    const unsigned v = s->sequence.read_once(op, loc);
    s->sequence.write_once(v + 1, op, loc);
}

} // namespace

void seqcount_init(seqcount_t*) {}

void seqcount_spinlock_init(seqcount_spinlock_t* s, spinlock_t* lock) {
    s->lock = lock;
}

void seqcount_mutex_init(seqcount_mutex_t* s, mutex* lock) {
    s->lock = lock;
    s->preemptible = true;
}

unsigned raw_read_seqcount_begin(const seqcount_t* s, std::source_location loc) {
    unsigned v = 0;
    while ((v = s->sequence.read_once("read_seqcount_begin", loc)) & 1)
        cpu_relax_in(s, loc);
    smp_rmb();
    return v;
}

unsigned read_seqcount_begin(const seqcount_t* s, std::source_location loc) {
    return raw_read_seqcount_begin(s, loc);
}

unsigned raw_read_seqcount(const seqcount_t* s, std::source_location loc) {
    return s->sequence.read_once("raw_read_seqcount", loc);
}

unsigned raw_seqcount_begin(const seqcount_t* s, std::source_location loc) {
    const unsigned v = s->sequence.read_once("raw_seqcount_begin", loc);
    smp_rmb();
    return v & ~1U;
}

bool read_seqcount_retry(const seqcount_t* s, unsigned start, std::source_location loc) {
    smp_rmb();
    // The reader's loop, from read_seqcount_begin() to here, goes round as its cpu_relax()
    // there does (Execution::begin_spin_turn()), though the kernel's has no pause here, or
    // ends.
    Execution& ex = this_execution();
    if (s->sequence.read_once("read_seqcount_retry", loc) == start) {
        ex.end_spin_loop();
        return false;
    }
    ex.begin_spin_turn(loc, s);
    return true;
}

void raw_write_seqcount_begin(seqcount_t* s, std::source_location loc) {
    bump(s, "write_seqcount_begin", loc);
    smp_wmb();
}

void raw_write_seqcount_end(seqcount_t* s, std::source_location loc) {
    smp_wmb();
    bump(s, "write_seqcount_end", loc);
}

void write_seqcount_begin(seqcount_t* s, std::source_location loc) {
    if (s->lock)
        lockdep_assert_held(s->lock, loc);
    else
        lockdep_assert_preemption_disabled(loc);
    if (s->preemptible) preempt_disable(loc);
    raw_write_seqcount_begin(s, loc);
}

void write_seqcount_end(seqcount_t* s, std::source_location loc) {
    raw_write_seqcount_end(s, loc);
    if (s->preemptible) preempt_enable(loc);
}

void seqlock_init(seqlock_t*) {}

unsigned read_seqbegin(const seqlock_t* sl, std::source_location loc) {
    return read_seqcount_begin(&sl->seqcount, loc);
}

bool read_seqretry(const seqlock_t* sl, unsigned start, std::source_location loc) {
    return read_seqcount_retry(&sl->seqcount, start, loc);
}

void write_seqlock(seqlock_t* sl, std::source_location loc) {
    spin_lock(&sl->lock, loc);
    raw_write_seqcount_begin(&sl->seqcount, loc);
}

void write_sequnlock(seqlock_t* sl, std::source_location loc) {
    raw_write_seqcount_end(&sl->seqcount, loc);
    spin_unlock(&sl->lock, loc);
}

void write_seqlock_bh(seqlock_t* sl, std::source_location loc) {
    spin_lock_bh(&sl->lock, loc);
    raw_write_seqcount_begin(&sl->seqcount, loc);
}

void write_sequnlock_bh(seqlock_t* sl, std::source_location loc) {
    raw_write_seqcount_end(&sl->seqcount, loc);
    spin_unlock_bh(&sl->lock, loc);
}

void write_seqlock_irq(seqlock_t* sl, std::source_location loc) {
    spin_lock_irq(&sl->lock, loc);
    raw_write_seqcount_begin(&sl->seqcount, loc);
}

void write_sequnlock_irq(seqlock_t* sl, std::source_location loc) {
    raw_write_seqcount_end(&sl->seqcount, loc);
    spin_unlock_irq(&sl->lock, loc);
}

void write_seqlock_irqsave(seqlock_t* sl, unsigned long& flags, std::source_location loc) {
    spin_lock_irqsave(&sl->lock, flags, loc);
    raw_write_seqcount_begin(&sl->seqcount, loc);
}

void write_sequnlock_irqrestore(seqlock_t* sl, unsigned long flags, std::source_location loc) {
    raw_write_seqcount_end(&sl->seqcount, loc);
    spin_unlock_irqrestore(&sl->lock, flags, loc);
}

void read_seqlock_excl(seqlock_t* sl, std::source_location loc) {
    spin_lock(&sl->lock, loc);
}

void read_sequnlock_excl(seqlock_t* sl, std::source_location loc) {
    spin_unlock(&sl->lock, loc);
}

void read_seqbegin_or_lock(seqlock_t* sl, unsigned* seq, std::source_location loc) {
    if (!(*seq & 1))
        *seq = read_seqbegin(sl, loc);
    else
        read_seqlock_excl(sl, loc);
}

bool need_seqretry(seqlock_t* sl, unsigned seq, std::source_location loc) {
    return !(seq & 1) && read_seqretry(sl, seq, loc);
}

void done_seqretry(seqlock_t* sl, unsigned seq, std::source_location loc) {
    if (seq & 1) read_sequnlock_excl(sl, loc);
}

} // namespace lockcheck::detail
