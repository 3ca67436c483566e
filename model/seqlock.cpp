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

// The read section's atomic region opens (kcsan_atomic_next(KCSAN_SEQLOCK_REGION_MAX)) or
// closes (kcsan_atomic_next(0)).
void kcsan_atomic_next(bool open) {
    current()->kcsan_atomic_next = open;
}

// seqcount_acquire() and seqcount_release() of the write section: the dep_map held as a lock.
void seqcount_acquire(seqcount_t* s, std::source_location loc) {
    lock_acquire("write_seqcount_begin", &s->sequence, &s->dep_map, 0, false, loc);
    lock_acquired(current(), &s->sequence, "seqcount", &s->dep_map, loc);
}
void seqcount_release(seqcount_t* s) {
    lock_released(current(), &s->sequence);
}

// do_write_seqcount_begin() and do_write_seqcount_end(): the raw section and its dep_map.
void do_write_seqcount_begin(seqcount_t* s, std::source_location loc) {
    raw_write_seqcount_begin(s, loc);
    seqcount_acquire(s, loc);
}
void do_write_seqcount_end(seqcount_t* s, std::source_location loc) {
    seqcount_release(s);
    raw_write_seqcount_end(s, loc);
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
    kcsan_atomic_next(true);
    smp_rmb();
    return v;
}

// seqcount_lockdep_reader_access(): the dep_map acquired for read and released at once, with
// interrupts off, as the reader's first read of the count.
unsigned read_seqcount_begin(const seqcount_t* s, std::source_location loc) {
    lock_acquire("read_seqcount_begin", &s->sequence, &s->dep_map, 0, false, loc,
                 lockdep_irqs_off::hardirqs);
    unsigned v = s->sequence.read_once("read_seqcount_begin", loc);
    lockdep_acquired(current());
    while (v & 1) {
        cpu_relax_in(s, loc);
        v = s->sequence.read_once("read_seqcount_begin", loc);
    }
    kcsan_atomic_next(true);
    smp_rmb();
    return v;
}

unsigned raw_read_seqcount(const seqcount_t* s, std::source_location loc) {
    const unsigned v = s->sequence.read_once("raw_read_seqcount", loc);
    smp_rmb();
    kcsan_atomic_next(true);
    return v;
}

unsigned raw_seqcount_begin(const seqcount_t* s, std::source_location loc) {
    return raw_read_seqcount(s, loc) & ~1U;
}

bool read_seqcount_retry(const seqcount_t* s, unsigned start, std::source_location loc) {
    kcsan_atomic_next(false);
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
    ++current()->kcsan_nestable_atomic;
    bump(s, "write_seqcount_begin", loc);
    smp_wmb();
}

void raw_write_seqcount_end(seqcount_t* s, std::source_location loc) {
    smp_wmb();
    bump(s, "write_seqcount_end", loc);
    --current()->kcsan_nestable_atomic;
}

void write_seqcount_begin(seqcount_t* s, std::source_location loc) {
    if (s->lock)
        lockdep_assert_held(s->lock, loc);
    else
        lockdep_assert_preemption_disabled(loc);
    if (s->preemptible) preempt_disable(loc);
    do_write_seqcount_begin(s, loc);
}

void write_seqcount_end(seqcount_t* s, std::source_location loc) {
    do_write_seqcount_end(s, loc);
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
    do_write_seqcount_begin(&sl->seqcount, loc);
}

void write_sequnlock(seqlock_t* sl, std::source_location loc) {
    do_write_seqcount_end(&sl->seqcount, loc);
    spin_unlock(&sl->lock, loc);
}

void write_seqlock_bh(seqlock_t* sl, std::source_location loc) {
    spin_lock_bh(&sl->lock, loc);
    do_write_seqcount_begin(&sl->seqcount, loc);
}

void write_sequnlock_bh(seqlock_t* sl, std::source_location loc) {
    do_write_seqcount_end(&sl->seqcount, loc);
    spin_unlock_bh(&sl->lock, loc);
}

void write_seqlock_irq(seqlock_t* sl, std::source_location loc) {
    spin_lock_irq(&sl->lock, loc);
    do_write_seqcount_begin(&sl->seqcount, loc);
}

void write_sequnlock_irq(seqlock_t* sl, std::source_location loc) {
    do_write_seqcount_end(&sl->seqcount, loc);
    spin_unlock_irq(&sl->lock, loc);
}

void write_seqlock_irqsave(seqlock_t* sl, unsigned long& flags, std::source_location loc) {
    spin_lock_irqsave(&sl->lock, flags, loc);
    do_write_seqcount_begin(&sl->seqcount, loc);
}

void write_sequnlock_irqrestore(seqlock_t* sl, unsigned long flags, std::source_location loc) {
    do_write_seqcount_end(&sl->seqcount, loc);
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
