// Workqueues (include/linux/workqueue.h, kernel/workqueue.c): work items run in process
// context by worker tasks named as the kernel's ("kworker/1:0" for CPU 1's pool's,
// "kworker/u4:0" for an unbound one's), made when the work is initialised or the queue
// allocated, and idle while they have nothing to run: a model whose work is never queued ends
// as any other, and one whose work is queued ends only once it ran.
//
// Workers. An item queued on a queue that runs items side by side (system_wq, any
// alloc_workqueue() but an ordered one) runs on a worker of its own in the pool of the CPU that
// queued it (queue_work()) or was named (queue_work_on()), made by INIT_WORK() on every CPU and
// bound there, as the kernel's per-CPU kworkers are: it runs on that CPU, interrupted by that
// CPU's handlers, with that CPU's per-CPU data. In the kernel whichever idle worker of the pool
// takes it, which no model can tell apart, so one worker an item and CPU gives every
// interleaving the pool allows with no choice of worker to search. An unbound queue's item runs
// on its own unbound worker ("kworker/u4:0"), which starts on CPU 0 and may move. max_active bounds
// how many of the queue's items run at once on a CPU (on an unbound queue, at all); which waiting
// item starts when one finishes is the search's choice (the kernel starts them in queue order: a
// superset). An ordered queue (alloc_ordered_workqueue(), or WQ_UNBOUND with max_active 1, which
// the kernel long ordered implicitly) has one unbound worker, made with it, which runs its items
// one at a time in queue order.
//
// Semantics: queue_work() on a pending item returns false and queues nothing; PENDING is
// cleared as a worker starts the item, which may then be queued again while it runs and runs
// again after; an item never runs beside itself, on any queue; flush_work() waits for the last
// queueing instance to finish; cancel_work() takes a pending item off its queue;
// cancel_work_sync() also waits for a running one. Every call is one scheduling point on the
// work (on an ordered queue's list, one that depends on every other step).
//
// Lockdep, as kernels 6.0 to 6.8 annotate it: the worker holds the queue's map
// ("(wq_completion)name") and the work's ("(work_completion)(name)") around the function;
// flush_work() and cancel_work_sync() pass through the work's map whether or not it is pending
// (6.9 does only when it is), flush_work() of an item on an ordered queue and flush_workqueue()
// through the queue's. So flushing under a lock the function takes is reported from any
// execution in which both happened, deadlocked or not.
//
// A delayed work arms its timer (model/timer.hpp) and is queued when it expires. Freeing
// memory that holds a pending work or an armed timer is ODEBUG's report at the kfree()
// (model/debugobjects.hpp); a worker's or callback's step on freed memory is KASAN's.
#pragma once

#include <cstdint>
#include <source_location>
#include <vector>

#include "timer.hpp"

namespace lockcheck::detail {

struct work_struct;
struct workqueue_struct;
struct delayed_work;
using work_func_t = void (*)(work_struct* work);

struct work_struct final : Object {
    // `name` stands for the kernel's stringified work ("fs->work"): its lockdep class is
    // "(work_completion)(name)", shared by every work of that name.
    explicit work_struct(std::string name);
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override;
    // What a flush or a cancel waits for: the worker that runs the item, or will.
    const Task* holder_for(const Task& waiter) const override;

    work_func_t func = nullptr;
    struct lockdep_map lockdep_map;
    workqueue_struct* wq = nullptr; // the queue it is queued on, or last was
    bool pending = false;           // WORK_STRUCT_PENDING: queued, or its timer armed
    bool queued = false;            // on its queue's list (not waiting for its timer)
    int cpu = 0;                    // the CPU that queued it, whose worker runs it
    // Its own workers (INIT_WORK): one on each CPU, then an unbound one.
    std::vector<const Task*> workers;
    const Task* running = nullptr; // the worker running it now
    // Instances: queued so far (each queueing, and each timer's expiry, is one), the one
    // running or last started, and the last that finished or was cancelled.
    std::uint32_t instances = 0;
    std::uint32_t started = 0;
    std::uint32_t done = 0;
    // The queue's count of queueings (workqueue_struct::instances) when the pending instance
    // was queued, and when the running one was: what flush_workqueue() waits for.
    std::uint32_t queued_as = 0;
    std::uint32_t started_as = 0;
    delayed_work* dwork = nullptr; // the delayed work it belongs to, if one
};

struct delayed_work {
    explicit delayed_work(std::string name);
    work_struct work;
    timer_list timer;
    workqueue_struct* wq = nullptr;
    int cpu = 0;
};

enum : unsigned {
    WQ_BH = 1 << 0,
    WQ_UNBOUND = 1 << 1,
    WQ_FREEZABLE = 1 << 2,
    WQ_MEM_RECLAIM = 1 << 3,
    WQ_HIGHPRI = 1 << 4,
    WQ_CPU_INTENSIVE = 1 << 5,
    WQ_SYSFS = 1 << 6,
    WQ_POWER_EFFICIENT = 1 << 7,
    __WQ_ORDERED = 1 << 17,
};

struct workqueue_struct final : Object {
    workqueue_struct(std::string name, unsigned flags, int max_active);
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override;
    const Task* holder_for(const Task& waiter) const override;

    unsigned flags;
    int max_active;
    struct lockdep_map lockdep_map;
    bool ordered() const {
        return (flags & __WQ_ORDERED) || ((flags & WQ_UNBOUND) && max_active == 1);
    }
    // Bounds how many of its items run at once on a CPU (max_active 0: the kernel's default, 256,
    // more than any model queues).
    bool limited() const { return !ordered() && max_active > 0; }
    const Task* worker = nullptr;           // an ordered queue's
    const work_struct* in_flight = nullptr; // the item its worker runs
    std::vector<work_struct*> list;         // an ordered queue's items, in order
    std::uint32_t instances = 0;            // queueings onto it so far
    std::uint32_t destroyed_at = 0;         // the step of destroy_workqueue(), 0 while it lives
};

// The kernel's system workqueue ("events"), one for each execution.
extern workqueue_struct* const system_wq;

// Set-up or task code, no scheduling point. INIT_WORK() makes the item's workers once (one
// per CPU and an unbound one); an item past the smallest max_active of a queue that bounds it
// is made at set-up (the workers' starts then depend on every step).
void INIT_WORK(work_struct* work, work_func_t func);
void INIT_DELAYED_WORK(delayed_work* dwork, work_func_t func);
// Set-up or task code, no scheduling point: a queue as the kernel makes it. WQ_UNBOUND with
// max_active 1, or alloc_ordered_workqueue(), is ordered; another with max_active above 0 runs at
// most that many of its items at once on a CPU, and is made at set-up only.
workqueue_struct* alloc_workqueue(const char* name, unsigned flags, int max_active);
workqueue_struct* alloc_ordered_workqueue(const char* name, unsigned flags);
// Drains the queue; a later operation on it uses freed memory.
void destroy_workqueue(workqueue_struct* wq,
                       std::source_location loc = std::source_location::current());

bool queue_work(workqueue_struct* wq, work_struct* work,
                std::source_location loc = std::source_location::current());
// On `cpu`'s pool, whichever CPU the caller runs on.
bool queue_work_on(int cpu, workqueue_struct* wq, work_struct* work,
                   std::source_location loc = std::source_location::current());
bool schedule_work(work_struct* work, std::source_location loc = std::source_location::current());
bool flush_work(work_struct* work, std::source_location loc = std::source_location::current());
bool cancel_work(work_struct* work, std::source_location loc = std::source_location::current());
bool cancel_work_sync(work_struct* work,
                      std::source_location loc = std::source_location::current());
bool work_pending(const work_struct* work,
                  std::source_location loc = std::source_location::current());
// Wait until every item queued on `wq` before the call has finished; drain_workqueue() until
// the queue is empty, items it queues on itself included.
void flush_workqueue(workqueue_struct* wq,
                     std::source_location loc = std::source_location::current());
void drain_workqueue(workqueue_struct* wq,
                     std::source_location loc = std::source_location::current());

// The delay is abstract: a delay of 0 queues at once, any other arms the work's timer.
bool queue_delayed_work(workqueue_struct* wq, delayed_work* dwork, unsigned long delay,
                        std::source_location loc = std::source_location::current());
bool queue_delayed_work_on(int cpu, workqueue_struct* wq, delayed_work* dwork, unsigned long delay,
                           std::source_location loc = std::source_location::current());
bool schedule_delayed_work(delayed_work* dwork, unsigned long delay,
                           std::source_location loc = std::source_location::current());
// Takes it off its timer or queue, then queues it with `delay`; returns whether it was pending.
bool mod_delayed_work(workqueue_struct* wq, delayed_work* dwork, unsigned long delay,
                      std::source_location loc = std::source_location::current());
bool cancel_delayed_work(delayed_work* dwork,
                         std::source_location loc = std::source_location::current());
bool cancel_delayed_work_sync(delayed_work* dwork,
                              std::source_location loc = std::source_location::current());
// Queues it now if its timer is armed, then flush_work().
bool flush_delayed_work(delayed_work* dwork,
                        std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
