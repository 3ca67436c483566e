// Sequence counts and seqlocks (include/linux/seqlock.h): a writer makes the count odd for the
// length of its update, a reader reads the data between two reads of the count and retries if
// the count moved or was odd. The count is a marked shared variable and the barriers are the
// kernel's smp_rmb()/smp_wmb(), so under --memory-model lkmm a reader sees what LKMM lets it.
#pragma once

#include <string>

#include "lockdep.hpp"
#include "mutex.hpp"
#include "shared.hpp"
#include "spinlock.hpp"

namespace lockcheck::detail {

// seqcount_t, and the lock-associated seqcount_LOCKNAME_t forms below: the writer's lock,
// which write_seqcount_begin() asserts held (lockdep_assert_held()); for a plain seqcount_t,
// that preemption is off (lockdep_assert_preemption_disabled()), as a writer that a reader of
// its CPU could preempt would leave that reader spinning. Its dep_map is the kernel's
// (CONFIG_DEBUG_LOCK_ALLOC): a writer holds it for its write section, a reader passes through it
// with interrupts off (seqcount_lockdep_reader_access()), so lockdep reports a reader inside a
// write section of its own task as recursive locking, and a reader in an interrupt handler
// against a writer with interrupts on as an inconsistent lock state: the reader would spin on
// the odd count for ever, on the CPU of the writer it interrupted.
struct seqcount_t {
    explicit seqcount_t(std::string name) : sequence(name), dep_map(std::move(name)) {}
    shared<unsigned> sequence;
    lockdep_map dep_map;
    const Object* lock = nullptr; // the associated lock, if any
    bool preemptible = false;     // its holder may be preempted (a mutex): the writer disables it
};
struct seqcount_spinlock_t : seqcount_t {
    using seqcount_t::seqcount_t;
};
struct seqcount_mutex_t : seqcount_t {
    using seqcount_t::seqcount_t;
};

// seqcount_init(): the count starts at 0 (its name is given when it is made).
void seqcount_init(seqcount_t* s);
void seqcount_spinlock_init(seqcount_spinlock_t* s, spinlock_t* lock);
void seqcount_mutex_init(seqcount_mutex_t* s, mutex* lock);

// The count, spinning (cpu_relax()) while a writer has it odd; then smp_rmb(). The raw_ form
// skips lockdep's reader annotation. Both open KCSAN's atomic region of a read section
// (kcsan_atomic_next()): until read_seqcount_retry(), the task's plain accesses are not data
// races, as the reads of a section that retries are thrown away.
unsigned read_seqcount_begin(const seqcount_t* s,
                             std::source_location loc = std::source_location::current());
unsigned raw_read_seqcount_begin(const seqcount_t* s,
                                 std::source_location loc = std::source_location::current());
// The count as it is, odd or not, then smp_rmb() (raw_read_seqcount()), or with its low bit
// cleared after the smp_rmb(), so that a reader that began during a write retries
// (raw_seqcount_begin()); both open the read section's atomic region.
unsigned raw_read_seqcount(const seqcount_t* s,
                           std::source_location loc = std::source_location::current());
unsigned raw_seqcount_begin(const seqcount_t* s,
                            std::source_location loc = std::source_location::current());
// smp_rmb(), then whether the count moved since `start`: the reader must retry. Ends the
// read section's atomic region (kcsan_atomic_next(0)).
bool read_seqcount_retry(const seqcount_t* s, unsigned start,
                         std::source_location loc = std::source_location::current());

// The write section: the assertion of the writer's lock (or of preemption off), the count
// made odd, smp_wmb(), the dep_map held; and the dep_map released, smp_wmb(), the count made
// even again. The raw_ forms assert nothing and leave the dep_map alone. Increments are
// WRITE_ONCE() of the count plus one, as the writers' lock (not the increment) is what keeps
// two writers apart. Inside, the writer's plain accesses are KCSAN-atomic
// (kcsan_nestable_atomic_begin()).
void write_seqcount_begin(seqcount_t* s,
                          std::source_location loc = std::source_location::current());
void write_seqcount_end(seqcount_t* s, std::source_location loc = std::source_location::current());
void raw_write_seqcount_begin(seqcount_t* s,
                              std::source_location loc = std::source_location::current());
void raw_write_seqcount_end(seqcount_t* s,
                            std::source_location loc = std::source_location::current());

// seqlock_t: a seqcount with its own spinlock, which writers take.
struct seqlock_t {
    explicit seqlock_t(const std::string& name)
        : seqcount(name + ".seqcount"), lock(name + ".lock") {
        seqcount.lock = &lock;
    }
    seqcount_spinlock_t seqcount;
    spinlock_t lock;
};

void seqlock_init(seqlock_t* sl);
unsigned read_seqbegin(const seqlock_t* sl,
                       std::source_location loc = std::source_location::current());
bool read_seqretry(const seqlock_t* sl, unsigned start,
                   std::source_location loc = std::source_location::current());
void write_seqlock(seqlock_t* sl, std::source_location loc = std::source_location::current());
void write_sequnlock(seqlock_t* sl, std::source_location loc = std::source_location::current());
void write_seqlock_bh(seqlock_t* sl, std::source_location loc = std::source_location::current());
void write_sequnlock_bh(seqlock_t* sl, std::source_location loc = std::source_location::current());
void write_seqlock_irq(seqlock_t* sl, std::source_location loc = std::source_location::current());
void write_sequnlock_irq(seqlock_t* sl, std::source_location loc = std::source_location::current());
void write_seqlock_irqsave(seqlock_t* sl, unsigned long& flags,
                           std::source_location loc = std::source_location::current());
void write_sequnlock_irqrestore(seqlock_t* sl, unsigned long flags,
                                std::source_location loc = std::source_location::current());
// A reader that excludes writers (and other such readers): the seqlock's spinlock.
void read_seqlock_excl(seqlock_t* sl, std::source_location loc = std::source_location::current());
void read_sequnlock_excl(seqlock_t* sl, std::source_location loc = std::source_location::current());
// The optimistic-then-locked reader: a first pass with *seq even reads locklessly; a caller
// that retries sets *seq odd (as `seq = 1` in the kernel's callers) and the next pass takes the
// lock. need_seqretry(): a lockless pass must be retried; done_seqretry(): unlocks a locked
// pass.
void read_seqbegin_or_lock(seqlock_t* sl, unsigned* seq,
                           std::source_location loc = std::source_location::current());
bool need_seqretry(seqlock_t* sl, unsigned seq,
                   std::source_location loc = std::source_location::current());
void done_seqretry(seqlock_t* sl, unsigned seq,
                   std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
