// freeze: a request queue frozen against its submitters, as blk-mq freezes one. A submitter
// enters with percpu_ref_tryget_live() on q_usage_counter (blk_queue_enter()), counts its
// request under a bit spinlock and leaves with percpu_ref_put() (blk_queue_exit()); the freezer
// kills the counter (blk_freeze_queue_start()) and waits until it is zero
// (blk_mq_freeze_queue_wait()), woken by the counter's release callback.
// docs/writing-models.md, "10. Bit locks, rwlocks, lockrefs, percpu_refs", shows it: a put too
// many is the kernel's WARN once the switch to atomic mode sums the per-CPU counts.
#include <lockcheck/lockcheck.hpp>

namespace freeze {

using namespace lockcheck;

constexpr int STATS_LOCK = 0; // the bit of stats_flags that locks the statistics

struct queue {
    percpu_ref q_usage_counter{"q_usage_counter"};
    wait_queue_head_t mq_freeze_wq{"mq_freeze_wq"};
    bitmap_word stats_flags{"stats_flags"};
    shared<int> nr_requests{"nr_requests"};
};

// What the submitters do wrong, as data on one model.
struct Policy {
    bool extra_put = false; // the second submitter puts its reference twice
};

void queue_usage_released(percpu_ref* ref) {
    queue* q = container_of(ref, &queue::q_usage_counter);
    wake_up_all(&q->mq_freeze_wq);
}

void submit(queue* q, const Policy& p, bool second) {
    if (!percpu_ref_tryget_live(&q->q_usage_counter)) return; // frozen: the queue is busy
    bit_spin_lock(STATS_LOCK, &q->stats_flags);
    q->nr_requests.write(q->nr_requests.read() + 1);
    bit_spin_unlock(STATS_LOCK, &q->stats_flags);
    percpu_ref_put(&q->q_usage_counter);
    if (p.extra_put && second) percpu_ref_put(&q->q_usage_counter);
}

void freeze_queue(queue* q) {
    percpu_ref_kill(&q->q_usage_counter);
    wait_event(q->mq_freeze_wq, percpu_ref_is_zero(&q->q_usage_counter));
}

const Policy kPolicies[] = {{false}, {true}};

void setup(std::size_t variant, const ParameterValues&) {
    set_nr_cpus(2);
    queue& q = model_state<queue>();
    percpu_ref_init(&q.q_usage_counter, queue_usage_released, 0, 0);
    const Policy& p = kPolicies[variant];
    spawn_on(0, "submit0", [&q, &p] { submit(&q, p, false); });
    spawn_on(1, "submit1", [&q, &p] { submit(&q, p, true); });
    spawn_on(0, "freeze", [&q] { freeze_queue(&q); });
}

Protocol model() {
    return Protocol{
        .name = "freeze",
        .summary = "a request queue frozen against two submitters with a percpu_ref",
        .variants = {{"tryget-live", "submitters enter with percpu_ref_tryget_live() and put once",
                      Expectation::verified()},
                     {"extra-put", "the second submitter puts its reference twice",
                      Expectation::violation(ViolationKind::refcount, "percpu-ref-underflow")}},
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(model);

} // namespace freeze
