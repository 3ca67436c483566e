// Atomic bit operations on a shared word, as the kernel's set_bit(nr, &flags) family, and the
// bit lock operations of include/asm-generic/bitops/lock.h (a bit used as a lock).
#pragma once

#include "shared.hpp"

namespace lockcheck::detail {

using bitmap_word = shared<unsigned long>;

bool test_bit(long nr, const bitmap_word* addr,
              std::source_location loc = std::source_location::current());
void set_bit(long nr, bitmap_word* addr,
             std::source_location loc = std::source_location::current());
void clear_bit(long nr, bitmap_word* addr,
               std::source_location loc = std::source_location::current());
// Return the bit's old value.
bool test_and_set_bit(long nr, bitmap_word* addr,
                      std::source_location loc = std::source_location::current());
bool test_and_clear_bit(long nr, bitmap_word* addr,
                        std::source_location loc = std::source_location::current());
// test_bit() whose read is an acquire (wait_on_bit() ends with it).
bool test_bit_acquire(long nr, const bitmap_word* addr,
                      std::source_location loc = std::source_location::current());

// Documentation/atomic_bitops.txt: test_and_set_bit_lock() is an acquire when it sets the bit
// (one that finds it set is an acquire here too: more order than the kernel promises, never
// less), clear_bit_unlock() a release. __clear_bit_unlock() is the non-atomic form for a
// word no other task writes while the bit is held: a read of the word and a release store of it
// without the bit, as asm-generic writes it. Each returns the bit's old value.
bool test_and_set_bit_lock(long nr, bitmap_word* addr,
                           std::source_location loc = std::source_location::current());
bool clear_bit_unlock(long nr, bitmap_word* addr,
                      std::source_location loc = std::source_location::current());
bool __clear_bit_unlock(long nr, bitmap_word* addr,
                        std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
