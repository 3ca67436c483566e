// The kernel's memory barriers (Documentation/memory-barriers.txt). None is a scheduling point:
// a barrier touches no shared state, it orders the task's own accesses. Under --memory-model sc
// they change nothing; under lkmm each is a fence of linux-kernel.def (weak_memory.hpp).
#pragma once

#include <source_location>

#include "shared.hpp"

namespace lockcheck::detail {

void smp_mb();
void smp_rmb();
void smp_wmb();
// Upgrade the next (before) or the last (after) unordered RMW (atomic_inc, set_bit, a failed
// cmpxchg) to full ordering.
void smp_mb__before_atomic();
void smp_mb__after_atomic();
// Makes the lock acquisition before it a full barrier.
void smp_mb__after_spinlock();
// Makes an unlock followed by a lock (of any lock, on this CPU) a full barrier.
void smp_mb__after_unlock_lock();

// WRITE_ONCE(var, value) then smp_mb(), as set_current_state() uses it.
template <class T, class V>
void smp_store_mb(shared<T>& var, V value,
                  std::source_location loc = std::source_location::current()) {
    var.write_once(static_cast<T>(value), "smp_store_mb", loc);
    smp_mb();
}

} // namespace lockcheck::detail
