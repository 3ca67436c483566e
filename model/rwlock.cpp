// read_lock/write_lock and their forms: rw_holders' state, spinlock_t's preemption and
// interrupt handling (lock_forms.hpp), rw_semaphore's ordering under lkmm.
#include "rwlock.hpp"

#include "irq.hpp"
#include "lock_forms.hpp"
#include "lock_misuse.hpp"
#include "percpu.hpp"
#include "rcu.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

enum class Side : std::uint8_t { read, write };

// How lockdep sees this acquisition (rwlock_acquire_read(): recursive in interrupt context).
lockdep_read lockdep_mode(Side side) {
    if (side == Side::write) return lockdep_read::none;
    return in_interrupt() ? lockdep_read::recursive : lockdep_read::nonrecursive;
}

void take(rwlock_t* lock, task_struct* me, Side side, bool trylock, std::source_location loc) {
    if (side == Side::write)
        lock->writer = me;
    else
        lock->readers |= task_bit(me->id());
    // An acquisition either way is an ACQUIRE (memory-barriers.txt), as rw_semaphore's.
    if (weak_memory::on()) [[unlikely]]
        weak_memory::lock_acquired(*lock);
    ++me->preempt_count;
    rcu_atomic_changed(me);
    lock_acquired(me, lock, side == Side::write ? "rwlock-write" : "rwlock-read", &lock->dep_map,
                  loc, 0, trylock, side == Side::read,
                  lockdep_mode(side) == lockdep_read::recursive);
}

// Returns what local_irq_save() would (Beside::irqs).
unsigned long lock(const char* op, rwlock_t* lock, Side side, std::source_location loc,
                   Beside beside = Beside::nothing) {
    task_struct* me = current();
    // A reader in task context may take it again only where lockdep allows it (a recursive
    // read in interrupt context); anything else would deadlock behind a waiting writer, or on
    // itself.
    const lockdep_read mode = lockdep_mode(side);
    if (lock->writer == me || (contains(lock->readers, me->id()) &&
                               (side == Side::write || mode != lockdep_read::recursive)))
        report_recursive_locking(op, lock, loc);
    lock_acquire(op, lock, &lock->dep_map, 0, false, loc, lockdep_turned_off(beside), mode);
    this_execution().visible(op, lock, loc,
                             side == Side::write ? &rw_holders::unheld : &rw_holders::no_writer, {},
                             read_side_change);
    if (this_execution().current_task().was_blocked()) ++this_execution().counters().spins;
    const unsigned long flags = beside_lock(me, beside);
    take(lock, me, side, false, loc);
    return flags;
}

void unlock(const char* op, rwlock_t* lock, Side side, std::source_location loc,
            Beside beside = Beside::nothing, unsigned long flags = 0, bool restore = false) {
    this_execution().visible(op, lock, loc, nullptr, {}, read_side_change);
    task_struct* me = current();
    if (side == Side::write) {
        if (lock->writer != me) report_bad_unlock(op, lock, lock->holder(), loc);
        lock->writer = nullptr;
    } else {
        if (!contains(lock->readers, me->id())) report_bad_unlock(op, lock, lock->holder(), loc);
        lock->readers &= ~task_bit(me->id());
    }
    // Readers leave in any order: a release that is a read-modify-write of the lock's count.
    if (weak_memory::on()) [[unlikely]]
        weak_memory::rwsem_released(*lock);
    if (lock_released(me, lock)) --me->preempt_count;
    rcu_atomic_changed(me);
    beside_unlock(me, beside, op, lock, flags, restore, loc);
    resume_on_any_cpu();
}

int trylock(const char* op, rwlock_t* lock, Side side, std::source_location loc) {
    this_execution().visible(op, lock, loc, nullptr, {}, read_side_change);
    task_struct* me = current();
    const int taken =
        side == Side::write ? rw_holders::unheld(lock, *me) : rw_holders::no_writer(lock, *me);
    if (taken) {
        lock_acquire(op, lock, &lock->dep_map, 0, true, loc, lockdep_irqs_off::none,
                     lockdep_mode(side));
        take(lock, me, side, true, loc);
    } else {
        if (weak_memory::on()) [[unlikely]]
            weak_memory::lock_attempt_failed(*lock);
        this_execution().attempt_failed();
    }
    this_execution().note(taken);
    return observed(taken);
}

} // namespace

void rwlock_init(rwlock_t* lock) {
    lock->writer = nullptr;
    lock->readers = 0;
}

void read_lock(rwlock_t* l, std::source_location loc) {
    lock("read_lock", l, Side::read, loc);
}
void read_unlock(rwlock_t* l, std::source_location loc) {
    unlock("read_unlock", l, Side::read, loc);
}
void write_lock(rwlock_t* l, std::source_location loc) {
    lock("write_lock", l, Side::write, loc);
}
void write_unlock(rwlock_t* l, std::source_location loc) {
    unlock("write_unlock", l, Side::write, loc);
}
int read_trylock(rwlock_t* l, std::source_location loc) {
    return trylock("read_trylock", l, Side::read, loc);
}
int write_trylock(rwlock_t* l, std::source_location loc) {
    return trylock("write_trylock", l, Side::write, loc);
}

void read_lock_irq(rwlock_t* l, std::source_location loc) {
    lock("read_lock_irq", l, Side::read, loc, Beside::irqs);
}
void read_unlock_irq(rwlock_t* l, std::source_location loc) {
    unlock("read_unlock_irq", l, Side::read, loc, Beside::irqs);
}
void write_lock_irq(rwlock_t* l, std::source_location loc) {
    lock("write_lock_irq", l, Side::write, loc, Beside::irqs);
}
void write_unlock_irq(rwlock_t* l, std::source_location loc) {
    unlock("write_unlock_irq", l, Side::write, loc, Beside::irqs);
}
void read_lock_irqsave(rwlock_t* l, unsigned long& flags, std::source_location loc) {
    flags = lock("read_lock_irqsave", l, Side::read, loc, Beside::irqs);
}
void read_unlock_irqrestore(rwlock_t* l, unsigned long flags, std::source_location loc) {
    unlock("read_unlock_irqrestore", l, Side::read, loc, Beside::irqs, flags, true);
}
void write_lock_irqsave(rwlock_t* l, unsigned long& flags, std::source_location loc) {
    flags = lock("write_lock_irqsave", l, Side::write, loc, Beside::irqs);
}
void write_unlock_irqrestore(rwlock_t* l, unsigned long flags, std::source_location loc) {
    unlock("write_unlock_irqrestore", l, Side::write, loc, Beside::irqs, flags, true);
}
void read_lock_bh(rwlock_t* l, std::source_location loc) {
    lock("read_lock_bh", l, Side::read, loc, Beside::bh);
}
void read_unlock_bh(rwlock_t* l, std::source_location loc) {
    unlock("read_unlock_bh", l, Side::read, loc, Beside::bh);
}
void write_lock_bh(rwlock_t* l, std::source_location loc) {
    lock("write_lock_bh", l, Side::write, loc, Beside::bh);
}
void write_unlock_bh(rwlock_t* l, std::source_location loc) {
    unlock("write_unlock_bh", l, Side::write, loc, Beside::bh);
}

} // namespace lockcheck::detail
