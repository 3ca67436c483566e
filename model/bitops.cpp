// Bit operations: each one scheduling point on the word, noting the bit's old value.
#include "bitops.hpp"

#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {
// clear_store: __clear_bit_unlock()'s non-atomic clear, a load and a release store, which
// writes the word even where the bit was clear already.
enum class BitOp { set, clear, test, clear_store };

// Documentation/atomic_bitops.txt: test_bit is an unordered read, set_bit and clear_bit
// unordered RMWs, test_and_set_bit and test_and_clear_bit fully ordered.
bool bit_op(const char* name, long nr, bitmap_word* addr, BitOp how, Ordering order,
            std::source_location loc) {
    const DataAccess access = how == BitOp::clear_store ? DataAccess::release : DataAccess::atomic;
    this_execution().visible_data(name, addr, loc, how != BitOp::test, access, OpArgs{{nr, 0}, 1});
    unsigned long& word = addr->word();
    const unsigned long mask = 1UL << nr;
    unsigned long seen = word;
    if (weak_memory::on()) [[unlikely]] {
        const auto latest = static_cast<std::int64_t>(word);
        if (how == BitOp::test) {
            seen = static_cast<unsigned long>(weak_memory::load(*addr, latest, order));
        } else if (how == BitOp::clear_store) {
            seen = static_cast<unsigned long>(weak_memory::load(*addr, latest, Ordering::relaxed));
            if (weak_memory::store(*addr, latest, static_cast<std::int64_t>(seen & ~mask), order))
                word = seen & ~mask;
        } else {
            const Update u{how == BitOp::set ? Update::set_bits : Update::clear_bits,
                           static_cast<std::int64_t>(mask)};
            const weak_memory::RmwResult r = weak_memory::rmw(*addr, latest, u, order);
            seen = static_cast<unsigned long>(r.old);
            if (r.latest) word = static_cast<unsigned long>(r.value);
        }
    } else {
        if (how == BitOp::set) word |= mask;
        if (how == BitOp::clear || how == BitOp::clear_store) word &= ~mask;
    }
    const bool old = (seen & mask) != 0;
    if ((how == BitOp::set || how == BitOp::clear) && old == (how == BitOp::set))
        this_execution().nothing_written();
    this_execution().note(old);
    return old;
}
} // namespace

bool test_bit(long nr, const bitmap_word* addr, std::source_location loc) {
    return observed(bit_op("test_bit", nr, const_cast<bitmap_word*>(addr), BitOp::test,
                           Ordering::relaxed, loc));
}
void set_bit(long nr, bitmap_word* addr, std::source_location loc) {
    bit_op("set_bit", nr, addr, BitOp::set, Ordering::noreturn, loc);
}
void clear_bit(long nr, bitmap_word* addr, std::source_location loc) {
    bit_op("clear_bit", nr, addr, BitOp::clear, Ordering::noreturn, loc);
}
bool test_and_set_bit(long nr, bitmap_word* addr, std::source_location loc) {
    return observed(bit_op("test_and_set_bit", nr, addr, BitOp::set, Ordering::full, loc));
}
bool test_and_clear_bit(long nr, bitmap_word* addr, std::source_location loc) {
    return observed(bit_op("test_and_clear_bit", nr, addr, BitOp::clear, Ordering::full, loc));
}
bool test_bit_acquire(long nr, const bitmap_word* addr, std::source_location loc) {
    return observed(bit_op("test_bit_acquire", nr, const_cast<bitmap_word*>(addr), BitOp::test,
                           Ordering::acquire, loc));
}

bool test_and_set_bit_lock(long nr, bitmap_word* addr, std::source_location loc) {
    return observed(bit_op("test_and_set_bit_lock", nr, addr, BitOp::set, Ordering::acquire, loc));
}
bool clear_bit_unlock(long nr, bitmap_word* addr, std::source_location loc) {
    return bit_op("clear_bit_unlock", nr, addr, BitOp::clear, Ordering::release, loc);
}

bool __clear_bit_unlock(long nr, bitmap_word* addr, std::source_location loc) {
    return bit_op("__clear_bit_unlock", nr, addr, BitOp::clear_store, Ordering::release, loc);
}

} // namespace lockcheck::detail
