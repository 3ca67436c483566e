// The block layer's completion of a request, for models whose bios complete in interrupt
// context (block/blk-mq.c, block/blk-softirq.c): a hardware queue's interrupt ends its request
// in the hardirq, or hands it to BLOCK_SOFTIRQ on that CPU, which ends it there.
#pragma once

#include <string>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::protocols {

// One request, with the one bio a model gives it: end_io stands for blk_mq_end_request() ->
// bio_endio() -> bio->bi_end_io().
struct request {
    explicit request(const std::string& name) : ipi_list(name + "->ipi_list") {}
    list_head ipi_list;
    bool in_softirq = false; // the driver completes it through BLOCK_SOFTIRQ
    void (*end_io)(request* rq) = nullptr;
};

// Set-up, after set_nr_cpus(): BLOCK_SOFTIRQ and its per-CPU lists of requests to end.
void blk_mq_init();

// A hardware queue's request is done: end it now, or queue it on this CPU's blk_cpu_done list
// and raise BLOCK_SOFTIRQ (interrupts are off, as in a hardirq handler).
void blk_mq_complete_request(request* rq);

// The interrupt handler of a queue with one request in flight (nvme_irq() reduced to that):
// request_irq(irq, blk_mq_queue_irq, 0, name, rq).
irqreturn_t blk_mq_queue_irq(int irq, void* rq);

} // namespace lockcheck::protocols
