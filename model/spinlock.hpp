// spinlock_t: a lock that makes its holder atomic (preemption off): sleeping while holding
// one is reported. Spinning on a held lock is modelled as blocking until it is released, so
// a spin never loops in the search (each wait counts as a spin in the summary); checked as
// CONFIG_DEBUG_SPINLOCK and lockdep check it.
#pragma once

#include "lockdep.hpp"

namespace lockcheck::detail {

struct spinlock_t final : Object {
    explicit spinlock_t(std::string name) : Object(name), dep_map(name) { unwatched(); }
    const Task* holder() const override { return owner; }
    const Task* exclusive_holder() const override { return owner; }
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override { h.add(owner ? owner->id() : kNoTask); }

    task_struct* owner = nullptr;
    lockdep_map dep_map;
};

void spin_lock(spinlock_t* lock, std::source_location loc = std::source_location::current());
void spin_lock_nested(spinlock_t* lock, int subclass,
                      std::source_location loc = std::source_location::current());
// 1 if the lock was taken, 0 if it is held.
int spin_trylock(spinlock_t* lock, std::source_location loc = std::source_location::current());
void spin_unlock(spinlock_t* lock, std::source_location loc = std::source_location::current());
// The forms that also turn interrupts (model/irq.hpp) or bottom halves off while the lock is
// held: at the lock's step, and back at the unlock's. spin_unlock_irq() turns interrupts on
// whatever they were before, which inside an enclosing local_irq_save() or in a hardirq
// handler is reported (irq-flags); _irqsave/_irqrestore put back what they found.
void spin_lock_irq(spinlock_t* lock, std::source_location loc = std::source_location::current());
void spin_unlock_irq(spinlock_t* lock, std::source_location loc = std::source_location::current());
void spin_lock_irqsave(spinlock_t* lock, unsigned long& flags,
                       std::source_location loc = std::source_location::current());
void spin_lock_irqsave_nested(spinlock_t* lock, unsigned long& flags, int subclass,
                              std::source_location loc = std::source_location::current());
void spin_unlock_irqrestore(spinlock_t* lock, unsigned long flags,
                            std::source_location loc = std::source_location::current());
void spin_lock_bh(spinlock_t* lock, std::source_location loc = std::source_location::current());
void spin_unlock_bh(spinlock_t* lock, std::source_location loc = std::source_location::current());
bool spin_is_locked(spinlock_t* lock, std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
