// Barriers: fences of the execution graph under lkmm, nothing under sc.
#include "barrier.hpp"

#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {
void fence(Barrier kind) {
    if (weak_memory::on()) weak_memory::barrier(kind);
}
} // namespace

void smp_mb() {
    fence(Barrier::mb);
}
void smp_rmb() {
    fence(Barrier::rmb);
}
void smp_wmb() {
    fence(Barrier::wmb);
}
void smp_mb__before_atomic() {
    fence(Barrier::before_atomic);
}
void smp_mb__after_atomic() {
    fence(Barrier::after_atomic);
}
void smp_mb__after_spinlock() {
    fence(Barrier::after_spinlock);
}
void smp_mb__after_unlock_lock() {
    fence(Barrier::after_unlock_lock);
}

} // namespace lockcheck::detail
