// The block layer's request completion in hardirq or BLOCK_SOFTIRQ (see blk_mq.hpp).
#include "blk_mq.hpp"

namespace lockcheck::protocols {

namespace {

struct blk_mq_state {
    percpu<list_head> blk_cpu_done{"blk_cpu_done"};
    percpu<list_head> local_list{"local_list"}; // blk_done_softirq()'s list on its stack
};

// For the softirq action, which has no argument; set anew by every execution's set-up.
thread_local blk_mq_state* the_blk_mq = nullptr;

void blk_done_softirq() {
    list_head* local_list = this_cpu_ptr(&the_blk_mq->local_list);
    local_irq_disable();
    list_splice_init(this_cpu_ptr(&the_blk_mq->blk_cpu_done), local_list);
    local_irq_enable();
    while (!list_empty(local_list)) {
        request* rq = list_first_entry(local_list, request, ipi_list);
        list_del_init(&rq->ipi_list);
        rq->end_io(rq);
    }
}

} // namespace

void blk_mq_init() {
    the_blk_mq = &model_state<blk_mq_state>();
    open_softirq(BLOCK_SOFTIRQ, blk_done_softirq);
}

void blk_mq_complete_request(request* rq) {
    if (!rq->in_softirq) {
        rq->end_io(rq);
        return;
    }
    list_add_tail(&rq->ipi_list, this_cpu_ptr(&the_blk_mq->blk_cpu_done));
    raise_softirq_irqoff(BLOCK_SOFTIRQ);
}

irqreturn_t blk_mq_queue_irq(int, void* rq) {
    blk_mq_complete_request(static_cast<request*>(rq));
    return IRQ_HANDLED;
}

} // namespace lockcheck::protocols
