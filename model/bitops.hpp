// Atomic bit operations on a shared word, as the kernel's set_bit(nr, &flags) family.
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

} // namespace lockcheck::detail
