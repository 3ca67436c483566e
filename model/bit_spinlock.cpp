// bit_spin_lock() and friends, line for line as include/linux/bit_spinlock.h: the spin is a
// cpu_relax() loop, which waits (sched.hpp) until the word it reads changes.
#include "bit_spinlock.hpp"

#include "forget_reads.hpp"
#include "percpu.hpp"
#include "sched.hpp"

namespace lockcheck::detail {

namespace {

void unlock(const char* op, int bitnum, bitmap_word* addr,
            bool (*clear)(long, bitmap_word*, std::source_location), std::source_location loc) {
    if (!clear(bitnum, addr, loc))
        this_execution().fail(ViolationKind::lock_misuse, "bad-unlock",
                              std::string("kernel BUG: ") + op + "(" + std::to_string(bitnum) +
                                  ", " + addr->name() + ") by " + current()->name() +
                                  ": BUG_ON(!test_bit(bitnum, addr)), the bit is not held",
                              loc);
    preempt_enable(loc);
}

} // namespace

void bit_spin_lock(int bitnum, bitmap_word* addr, std::source_location loc) {
    // It returns nothing, and each turn of its wait starts afresh: a stateful search meets the
    // turns as one state.
    forget_reads reads(loc);
    preempt_disable(loc);
    while (test_and_set_bit_lock(bitnum, addr, loc)) {
        preempt_enable(loc);
        do {
            reads.forget(loc);
            cpu_relax(loc);
        } while (test_bit(bitnum, addr, loc));
        preempt_disable(loc);
    }
}

int bit_spin_trylock(int bitnum, bitmap_word* addr, std::source_location loc) {
    preempt_disable(loc);
    if (test_and_set_bit_lock(bitnum, addr, loc)) {
        preempt_enable(loc);
        return 0;
    }
    return 1;
}

void bit_spin_unlock(int bitnum, bitmap_word* addr, std::source_location loc) {
    unlock("bit_spin_unlock", bitnum, addr, clear_bit_unlock, loc);
}

void __bit_spin_unlock(int bitnum, bitmap_word* addr, std::source_location loc) {
    unlock("__bit_spin_unlock", bitnum, addr, __clear_bit_unlock, loc);
}

int bit_spin_is_locked(int bitnum, bitmap_word* addr, std::source_location loc) {
    return test_bit(bitnum, addr, loc);
}

} // namespace lockcheck::detail
