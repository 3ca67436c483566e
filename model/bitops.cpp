// Bit operations: each one scheduling point on the word, noting the bit's old value.
#include "bitops.hpp"

namespace lockcheck {

namespace {
enum class BitOp { set, clear, test };

bool bit_op(const char* name, long nr, bitmap_word* addr, BitOp how) {
    this_execution().visible_data(name, addr, how != BitOp::test, DataAccess::atomic,
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

bool test_bit(long nr, const bitmap_word* addr) {
    return bit_op("test_bit", nr, const_cast<bitmap_word*>(addr), BitOp::test);
}
void set_bit(long nr, bitmap_word* addr) {
    bit_op("set_bit", nr, addr, BitOp::set);
}
void clear_bit(long nr, bitmap_word* addr) {
    bit_op("clear_bit", nr, addr, BitOp::clear);
}
bool test_and_set_bit(long nr, bitmap_word* addr) {
    return bit_op("test_and_set_bit", nr, addr, BitOp::set);
}
bool test_and_clear_bit(long nr, bitmap_word* addr) {
    return bit_op("test_and_clear_bit", nr, addr, BitOp::clear);
}

} // namespace lockcheck
