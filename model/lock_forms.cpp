// The _irq, _irqsave and _bh forms of the spinning locks, over model/irq.hpp's sections.
#include "lock_forms.hpp"

#include "irq.hpp"

namespace lockcheck::detail {

lockdep_irqs_off lockdep_turned_off(Beside beside) {
    return beside == Beside::irqs ? lockdep_irqs_off::hardirqs
           : beside == Beside::bh ? lockdep_irqs_off::softirqs
                                  : lockdep_irqs_off::none;
}

unsigned long beside_lock(task_struct* me, Beside beside) {
    if (beside == Beside::irqs) return irq_section_begin(me);
    if (beside == Beside::bh) bh_disable(me);
    return 0;
}

void beside_unlock(task_struct* me, Beside beside, const char* op, const Object* lock,
                   unsigned long flags, bool restore, std::source_location loc) {
    if (beside == Beside::irqs) irq_section_end(me, op, lock, flags, !restore, loc);
    if (beside == Beside::bh) bh_enable(me, op, loc);
}

} // namespace lockcheck::detail
