// rwlock_t (include/linux/rwlock.h, the kernel's qrwlock): many readers or one writer, both
// spinning with preemption off, so sleeping while holding either side is reported. Spinning
// is modelled as blocking until the lock is free for the side asked for, as spinlock_t's. A
// reader waits only while a writer holds the lock (qrwlock's queueing behind a waiting writer
// is abstracted away, as rw_semaphore's is). lockdep sees read_lock() in task context as a
// read that a waiting writer would block (taking it again while holding it is recursive
// locking), and in interrupt context as a recursive read, which qrwlock lets in beside the
// readers it interrupted; the irq-safety checks count read uses with their _READ bits.
#pragma once

#include "lockdep.hpp"
#include "rw_holders.hpp"

namespace lockcheck::detail {

struct rwlock_t final : rw_holders {
    explicit rwlock_t(std::string name) : rw_holders(name), dep_map(name) { unwatched(); }

    lockdep_map dep_map;
};

#define LOCKCHECK_LOC std::source_location loc = std::source_location::current()

// The lock unlocked, as constructed: set-up, or before the lock is shared (not a step).
void rwlock_init(rwlock_t* lock);
void read_lock(rwlock_t* lock, LOCKCHECK_LOC);
void read_unlock(rwlock_t* lock, LOCKCHECK_LOC);
void write_lock(rwlock_t* lock, LOCKCHECK_LOC);
void write_unlock(rwlock_t* lock, LOCKCHECK_LOC);
// 1 if taken, 0 otherwise; never spin.
int read_trylock(rwlock_t* lock, LOCKCHECK_LOC);
int write_trylock(rwlock_t* lock, LOCKCHECK_LOC);
// The forms that also turn interrupts or bottom halves off while the lock is held, as
// spin_lock_irq() and friends (model/spinlock.hpp).
void read_lock_irq(rwlock_t* lock, LOCKCHECK_LOC);
void read_unlock_irq(rwlock_t* lock, LOCKCHECK_LOC);
void write_lock_irq(rwlock_t* lock, LOCKCHECK_LOC);
void write_unlock_irq(rwlock_t* lock, LOCKCHECK_LOC);
void read_lock_irqsave(rwlock_t* lock, unsigned long& flags, LOCKCHECK_LOC);
void read_unlock_irqrestore(rwlock_t* lock, unsigned long flags, LOCKCHECK_LOC);
void write_lock_irqsave(rwlock_t* lock, unsigned long& flags, LOCKCHECK_LOC);
void write_unlock_irqrestore(rwlock_t* lock, unsigned long flags, LOCKCHECK_LOC);
void read_lock_bh(rwlock_t* lock, LOCKCHECK_LOC);
void read_unlock_bh(rwlock_t* lock, LOCKCHECK_LOC);
void write_lock_bh(rwlock_t* lock, LOCKCHECK_LOC);
void write_unlock_bh(rwlock_t* lock, LOCKCHECK_LOC);

#undef LOCKCHECK_LOC

} // namespace lockcheck::detail
