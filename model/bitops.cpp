// Bit operations: each one scheduling point on the word, noting the bit's old value.
#include "bitops.hpp"

namespace lockcheck {

namespace {
enum class BitOp { set, clear, test };

bool bit_op(const char* name, long nr, bitmap_word* addr, BitOp how, std::source_location loc) {
    this_execution().visible_data(name, addr, loc, how != BitOp::test, DataAccess::atomic,
                                  OpArgs{{nr, 0}, 1});
    unsigned long& word = addr->word();
    const unsigned long mask = 1UL << nr;
    bool old = (word & mask) != 0;
    if (how == BitOp::set) word |= mask;
    if (how == BitOp::clear) word &= ~mask;
    if (how != BitOp::test && old == (how == BitOp::set)) this_execution().nothing_written();
    this_execution().note(old);
    return old;
}
} // namespace

bool test_bit(long nr, const bitmap_word* addr, std::source_location loc) {
    return observed(bit_op("test_bit", nr, const_cast<bitmap_word*>(addr), BitOp::test, loc));
}
void set_bit(long nr, bitmap_word* addr, std::source_location loc) {
    bit_op("set_bit", nr, addr, BitOp::set, loc);
}
void clear_bit(long nr, bitmap_word* addr, std::source_location loc) {
    bit_op("clear_bit", nr, addr, BitOp::clear, loc);
}
bool test_and_set_bit(long nr, bitmap_word* addr, std::source_location loc) {
    return observed(bit_op("test_and_set_bit", nr, addr, BitOp::set, loc));
}
bool test_and_clear_bit(long nr, bitmap_word* addr, std::source_location loc) {
    return observed(bit_op("test_and_clear_bit", nr, addr, BitOp::clear, loc));
}

} // namespace lockcheck
