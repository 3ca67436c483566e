// Atomic bit operations on a shared word, as the kernel's set_bit(nr, &flags) family.
#pragma once

#include "shared.hpp"

namespace lockcheck {

using bitmap_word = shared<unsigned long>;

bool test_bit(long nr, const bitmap_word* addr);
void set_bit(long nr, bitmap_word* addr);
void clear_bit(long nr, bitmap_word* addr);
// Return the bit's old value.
bool test_and_set_bit(long nr, bitmap_word* addr);
bool test_and_clear_bit(long nr, bitmap_word* addr);

} // namespace lockcheck
