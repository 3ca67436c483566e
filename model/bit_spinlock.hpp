// Bit spinlocks (include/linux/bit_spinlock.h): one bit of a word used as a spinlock, as the
// kernel writes them: preemption off while held (sleeping then is reported), a
// test_and_set_bit_lock() that spins with cpu_relax() on test_bit() while another holds it, and
// clear_bit_unlock() to release. lockdep does not see bit locks in the kernel (they have no
// lockdep_map), and does not here: an ABBA deadlock through one is no lockdep report, only
// the hang or livelock of the execution that meets it.
#pragma once

#include "bitops.hpp"

namespace lockcheck::detail {

void bit_spin_lock(int bitnum, bitmap_word* addr,
                   std::source_location loc = std::source_location::current());
// 1 if it took the bit, 0 if another holds it.
int bit_spin_trylock(int bitnum, bitmap_word* addr,
                     std::source_location loc = std::source_location::current());
// Releases the bit; releasing one not held is CONFIG_DEBUG_SPINLOCK's BUG_ON(!test_bit()), a
// lock-misuse report. __bit_spin_unlock() releases with __clear_bit_unlock().
void bit_spin_unlock(int bitnum, bitmap_word* addr,
                     std::source_location loc = std::source_location::current());
void __bit_spin_unlock(int bitnum, bitmap_word* addr,
                       std::source_location loc = std::source_location::current());
int bit_spin_is_locked(int bitnum, bitmap_word* addr,
                       std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
