// What the _irq, _irqsave and _bh forms of a spinning lock (spinlock_t, rwlock_t) do beside the
// lock: at the lock's step interrupts or bottom halves go off (first, as the kernel turns them
// off before it spins), and at the unlock's step back on after the release. Private to model/.
#pragma once

#include <cstdint>
#include <source_location>

#include "lockdep.hpp"

namespace lockcheck::detail {

enum class Beside : std::uint8_t { nothing, irqs, bh };

// What lockdep checks the acquisition with (lock_acquire()'s `turned_off`).
lockdep_irqs_off lockdep_turned_off(Beside beside);
// At the lock's step: turns them off; returns what local_irq_save() would (Beside::irqs).
unsigned long beside_lock(task_struct* me, Beside beside);
// At the unlock's step `op` on `lock`, after the release: turns them back on, or restores
// `flags` (local_irq_restore() rather than local_irq_enable(), with `restore`).
void beside_unlock(task_struct* me, Beside beside, const char* op, const Object* lock,
                   unsigned long flags, bool restore, std::source_location loc);

} // namespace lockcheck::detail
