// Workqueues after kernel/workqueue.c: queueing, the workers' loops, flushing and cancelling,
// delayed work on timers (workqueue.hpp).
#include "workqueue.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "debugobjects.hpp"
#include "irq.hpp"
#include "percpu.hpp"
#include "sched.hpp"
#include "slab.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

// The system workqueue's stand-in: system_wq points here, and every operation looks the
// execution's "events" queue up instead.
alignas(workqueue_struct) std::byte system_wq_tag[sizeof(void*)];

struct workqueues {
    workqueue_struct* events = nullptr;
    std::vector<work_struct*> works; // every work of the execution, for flush_workqueue()
    std::vector<int> bound_workers;  // workers made so far on each CPU's pool
    int unbound_workers = 0;
    // The smallest max_active of a queue that bounds its running items (limited()). Once the
    // execution has more items than that, whether an item can start may depend on the other
    // items' starts, and each start depends on every step.
    int tightest = 0;
    bool limits() const { return tightest && static_cast<int>(works.size()) > tightest; }
};

workqueues& state() {
    Execution& ex = this_execution();
    workqueues& s = ex.local<workqueues>();
    if (!s.events) s.events = &ex.make<workqueue_struct>("events", 0U, 0);
    return s;
}

workqueue_struct* resolve(workqueue_struct* wq) {
    return wq == system_wq ? state().events : wq;
}

const std::source_location kWorker{};

task_struct* as_task(const Task* t) {
    return static_cast<task_struct*>(const_cast<Task*>(t));
}

// The worker that runs `w` once it is queued, and whether it waits for something to run (a
// worker's idle flag changes only there: one in the middle of an item keeps the execution
// going).
const Task* runner(const work_struct& w) {
    if (w.wq && w.wq->ordered()) return w.wq->worker;
    if (w.wq && (w.wq->flags & WQ_UNBOUND)) return w.workers.back();
    return w.workers[static_cast<std::size_t>(w.cpu)];
}
void set_idle(const Task* worker, bool idle) {
    if (idle)
        as_task(worker)->set_idle(true);
    else
        as_task(worker)->wake();
}
// Whether worker `me` of `w` has it to run.
bool has_work(const work_struct& w, const Task* me) {
    return w.queued && !w.wq->ordered() && runner(w) == me;
}
void update_idle(const work_struct& w) {
    for (const Task* worker : w.workers)
        if (w.running != worker) set_idle(worker, !has_work(w, worker));
}
void update_idle(const workqueue_struct& wq) {
    if (wq.worker && !wq.in_flight) set_idle(wq.worker, wq.list.empty());
}

void check_alive(const char* op, const workqueue_struct* wq, std::source_location loc) {
    if (!wq->destroyed_at) return;
    this_execution().fail(ViolationKind::use_after_free, "use-after-free of " + wq->name(),
                          "BUG: KASAN: use-after-free in " + std::string(op) + "(" + wq->name() +
                              ") by " + current()->name() + "; " + wq->name() +
                              ": freed by destroy_workqueue() at step " +
                              std::to_string(wq->destroyed_at),
                          loc);
}

// The step that queues `w` on `wq` (queue_work(), a delayed work's timer): one on the work,
// and against every step for an ordered queue, whose list orders its items.
void declare_queueing(const char* op, workqueue_struct* wq, work_struct* w,
                      std::source_location loc) {
    if (wq->ordered())
        this_execution().visible_global(op, w, loc);
    else
        this_execution().visible(op, w, loc);
}

// __queue_work(), at the step that queues.
void enqueue(workqueue_struct* wq, work_struct* w, int cpu) {
    w->wq = wq;
    w->pending = true;
    w->queued = true;
    w->cpu = cpu;
    ++w->instances;
    w->queued_as = ++wq->instances;
    debug_object_activate(w, "work_struct");
    if (weak_memory::on()) [[unlikely]]
        weak_memory::handed_off(w);
    if (wq->ordered()) {
        wq->list.push_back(w);
        update_idle(*wq);
    } else {
        update_idle(*w);
    }
}

// Takes a pending `w` off its queue or timer (try_to_grab_pending()); whether it was pending.
bool grab_pending(work_struct* w) {
    if (!w->pending) return false;
    if (w->dwork && w->dwork->timer.armed) {
        timer_list& t = w->dwork->timer;
        t.armed = false;
        debug_object_deactivate(&t);
        softirq_changed(t.cpu);
    }
    if (w->queued) {
        w->queued = false;
        debug_object_deactivate(w);
        if (w->wq->ordered()) {
            std::erase(w->wq->list, w);
            update_idle(*w->wq);
        } else {
            update_idle(*w);
        }
        if (!w->running) w->done = w->instances;
    }
    w->pending = false;
    return true;
}

// process_one_work(), from the step that started `w` on worker `me`.
void process_one_work(task_struct* me, work_struct* w) {
    Execution& ex = this_execution();
    workqueue_struct* wq = w->wq;
    if (weak_memory::on()) [[unlikely]]
        weak_memory::taken_over(w);
    w->pending = false;
    w->queued = false;
    if (wq->ordered()) {
        std::erase(wq->list, w);
        wq->in_flight = w;
    }
    w->running = me;
    w->started = w->instances;
    w->started_as = w->queued_as;
    debug_object_deactivate(w);
    // The kernel holds a copy of the work's map, so that the function may free the work.
    lock_map_acquire(wq, &wq->lockdep_map, kWorker);
    lock_map_acquire(w, &w->lockdep_map, kWorker);
    const int depth = me->lockdep_depth;
    w->func(w);
    if (me->lockdep_depth != depth) me->on_exit(); // "BUG: workqueue leaked lock"
    lock_map_release(w);
    lock_map_release(wq);
    // Not a step on the work, which the function may have freed (the kernel allows it).
    ex.visible_global("workqueue_execute_end", wq, kWorker);
    // What the function did is seen by a flush or cancel that finds the item done (the pool's
    // lock, which the worker takes after the function and they take, orders it in the kernel):
    // a hand-off of its own, as a queue_work() during the run is the next start's.
    if (weak_memory::on()) [[unlikely]]
        weak_memory::handed_off(&w->lockdep_map);
    w->running = nullptr;
    w->done = w->queued ? w->started : w->instances;
    wq->in_flight = nullptr;
    update_idle(*w);
}

// Whether fewer than max_active of `wq`'s items run on `cpu` (on an unbound queue, anywhere).
bool below_max_active(const workqueue_struct& wq, int cpu) {
    if (!wq.limited()) return true;
    int active = 0;
    for (const work_struct* w : state().works)
        if (w->wq == &wq && w->running && ((wq.flags & WQ_UNBOUND) || w->running->cpu() == cpu))
            ++active;
    return active < wq.max_active;
}

bool can_start_work(const Object* obj, const Task& me) {
    const auto* w = static_cast<const work_struct*>(obj);
    return has_work(*w, &me) && !w->running && below_max_active(*w->wq, w->cpu);
}

bool can_start_ordered(const Object* obj, const Task&) {
    const auto* wq = static_cast<const workqueue_struct*>(obj);
    return !wq->list.empty() && !wq->list.front()->running;
}

void work_worker(work_struct* w) {
    task_struct* me = current();
    for (;;) {
        me->set_idle(!has_work(*w, me));
        if (state().limits())
            this_execution().visible_global("workqueue_execute_start", w, kWorker, &can_start_work);
        else
            this_execution().visible("workqueue_execute_start", w, kWorker, &can_start_work);
        me->set_idle(false);
        process_one_work(me, w);
    }
}

void ordered_worker(workqueue_struct* wq) {
    task_struct* me = current();
    for (;;) {
        me->set_idle(wq->list.empty());
        this_execution().visible_global("workqueue_execute_start", wq, kWorker, &can_start_ordered);
        me->set_idle(false);
        process_one_work(me, wq->list.front());
    }
}

// The instance a flush of `w` waits for (0: none), decided at its step.
std::uint32_t flush_target(const work_struct& w) {
    return w.queued ? w.instances : w.running ? w.started : 0;
}

bool flushed(const Object* obj, const Task& waiter) {
    const auto* w = static_cast<const work_struct*>(obj);
    return w->done >= static_cast<std::uint32_t>(waiter.pending().args.v[0]);
}

// Passes through `map` (lock_map_acquire() and lock_map_release() at once) after the step of
// `op` on `obj`.
void touch(const char* op, const Object* obj, const lockdep_map* map, std::source_location loc) {
    lock_acquire(op, obj, map, 0, false, loc);
    task_struct* me = current();
    if (me->lockdep_asked) lockdep_acquired(me);
}

// __flush_work() once `w`'s step decided `target`: waits for that instance.
bool wait_for(work_struct* w, std::uint32_t target, std::source_location loc) {
    if (target) {
        // Against every step, as the worker's end is: what the item did happens before the
        // return.
        this_execution().visible_global("wait_for_completion", w, loc, &flushed,
                                        OpArgs{{static_cast<std::int64_t>(target), 0}, 0});
        count_sleep_if_blocked(w);
    }
    // Waited for or found done, the item's last run is ordered before the return under lkmm.
    if (weak_memory::on()) [[unlikely]]
        weak_memory::taken_over(&w->lockdep_map);
    return target != 0;
}

// cancel_work_sync(), cancel_delayed_work_sync().
bool cancel_sync(const char* op, work_struct* w, std::source_location loc) {
    might_sleep(op, w, loc);
    lock_acquire(op, w, &w->lockdep_map, 0, false, loc);
    // Against every step, as the worker's end is (wait_for()).
    this_execution().visible_global(op, w, loc);
    task_struct* me = current();
    if (me->lockdep_asked) lockdep_acquired(me);
    const bool was = grab_pending(w);
    wait_for(w, w->running ? w->started : 0, loc);
    return observed(was);
}

void delayed_work_timer_fn(timer_list* t) {
    auto* dwork = container_of(t, &delayed_work::timer);
    work_struct* w = &dwork->work;
    workqueue_struct* wq = dwork->wq;
    declare_queueing("__queue_work", wq, w, kWorker);
    // A cancel between the expiry and this step took it off.
    if (w->pending && !w->queued) enqueue(wq, w, dwork->cpu);
}

// queue_delayed_work_on(), once `w` was found not pending at the step: on `cpu`'s pool, its
// timer on that CPU (add_timer_on()).
void queue_delayed(workqueue_struct* wq, delayed_work* dwork, unsigned long delay, int cpu) {
    work_struct* w = &dwork->work;
    if (!delay) {
        enqueue(wq, w, cpu);
        return;
    }
    w->wq = wq;
    w->pending = true;
    dwork->wq = wq;
    dwork->cpu = cpu;
    timer_list& t = dwork->timer;
    t.armed = true;
    t.periodic = false;
    t.cpu = cpu;
    debug_object_activate(&t, "timer_list");
    if (weak_memory::on()) [[unlikely]]
        weak_memory::handed_off(&t);
    softirq_changed(t.cpu);
}

} // namespace

workqueue_struct* const system_wq = reinterpret_cast<workqueue_struct*>(system_wq_tag);

work_struct::work_struct(std::string name)
    : Object(name), lockdep_map("(work_completion)(" + name + ")") {
    unwatched();
}

void work_struct::describe(std::string& out) const {
    out += queued    ? "queued on " + wq->name()
           : pending ? std::string("pending, its timer armed")
                     : std::string("idle");
    if (running) out += ", running on " + running->name();
}

void work_struct::fingerprint(StateHasher& h) const {
    h.add(pending);
    h.add(queued);
    h.add(wq ? wq->id() : -1);
    h.add(static_cast<std::uint64_t>(cpu));
    h.add(running ? running->id() : kNoTask);
    // What flushes wait for: how far behind the last instance the finished one is.
    h.add(instances - done);
    h.add(instances - started);
}

const Task* work_struct::holder_for(const Task&) const {
    return running ? running : workers.empty() ? nullptr : runner(*this);
}

delayed_work::delayed_work(std::string name) : work(name), timer(name + ".timer") {
    timer.conflicts_with(work);
}

workqueue_struct::workqueue_struct(std::string name, unsigned flags, int max_active)
    : Object(name), flags(flags), max_active(max_active), lockdep_map("(wq_completion)" + name) {
    unwatched();
}

void workqueue_struct::describe(std::string& out) const {
    if (destroyed_at) {
        out += "destroyed";
        return;
    }
    out += ordered() ? std::to_string(list.size()) + " queued" : std::string("running");
}

void workqueue_struct::fingerprint(StateHasher& h) const {
    h.add(destroyed_at != 0);
    for (const work_struct* w : list)
        h.add(w->id());
}

const Task* workqueue_struct::holder_for(const Task&) const {
    if (ordered()) return worker;
    for (const work_struct* w : state().works)
        if (w->wq == this && (w->queued || w->running)) return w->running ? w->running : runner(*w);
    return nullptr;
}

void INIT_WORK(work_struct* work, work_func_t func) {
    workqueues& s = state();
    work->func = func;
    if (!work->workers.empty()) return;
    s.works.push_back(work);
    // The workers that declared their starts before would miss the limit.
    if (this_execution().in_task() && s.tightest &&
        static_cast<int>(s.works.size()) == s.tightest + 1)
        throw std::invalid_argument("INIT_WORK(" + work->name() +
                                    "): more items than a queue's max_active are made at set-up");
    s.bound_workers.resize(static_cast<std::size_t>(nr_cpu_ids()));
    for (int cpu = 0; cpu < nr_cpu_ids(); ++cpu) {
        int& made = s.bound_workers[static_cast<std::size_t>(cpu)];
        spawn_on(cpu, "kworker/" + std::to_string(cpu) + ":" + std::to_string(made++),
                 [work] { work_worker(work); });
        auto& worker = static_cast<task_struct&>(*this_execution().tasks().back());
        worker.flags |= PF_NO_SETAFFINITY; // kthread_bind(): it stays on its CPU
        work->workers.push_back(&worker);
    }
    // The unbound pools' (ids after the per-CPU pools', two a CPU), which may run anywhere.
    spawn("kworker/u" + std::to_string(2 * nr_cpu_ids()) + ":" +
              std::to_string(s.unbound_workers++),
          [work] { work_worker(work); });
    work->workers.push_back(this_execution().tasks().back().get());
}

void INIT_DELAYED_WORK(delayed_work* dwork, work_func_t func) {
    INIT_WORK(&dwork->work, func);
    dwork->work.dwork = dwork;
    timer_setup(&dwork->timer, &delayed_work_timer_fn, TIMER_IRQSAFE);
}

workqueue_struct* alloc_workqueue(const char* name, unsigned flags, int max_active) {
    workqueues& s = state();
    Execution& ex = this_execution();
    auto& wq = ex.make<workqueue_struct>(name, flags, max_active);
    if (wq.limited()) {
        // A start already declared as one on its work alone would miss the limit.
        if (ex.in_task())
            throw std::invalid_argument(std::string("alloc_workqueue(") + name + ", " +
                                        std::to_string(flags) + ", " + std::to_string(max_active) +
                                        "): a queue that bounds max_active is made at set-up");
        s.tightest = s.tightest ? std::min(s.tightest, max_active) : max_active;
    }
    if (wq.ordered()) {
        // Unbound pools' ids follow the per-CPU pools', two a CPU.
        spawn("kworker/u" + std::to_string(2 * nr_cpu_ids()) + ":" +
                  std::to_string(s.unbound_workers++),
              [w = &wq] { ordered_worker(w); });
        wq.worker = ex.tasks().back().get();
    }
    return &wq;
}

workqueue_struct* alloc_ordered_workqueue(const char* name, unsigned flags) {
    return alloc_workqueue(name, flags | WQ_UNBOUND | __WQ_ORDERED, 1);
}

namespace {

int checked_cpu(const char* op, int cpu) {
    if (cpu < 0 || cpu >= nr_cpu_ids())
        throw std::invalid_argument(std::string(op) + "(" + std::to_string(cpu) +
                                    "): the model has CPUs 0.." + std::to_string(nr_cpu_ids() - 1));
    return cpu;
}

bool queue_on(const char* op, int cpu, workqueue_struct* wq, work_struct* work,
              std::source_location loc) {
    wq = resolve(wq);
    declare_queueing(op, wq, work, loc);
    check_alive(op, wq, loc);
    if (work->pending) return observed(false);
    enqueue(wq, work, cpu);
    return observed(true);
}

} // namespace

bool queue_work(workqueue_struct* wq, work_struct* work, std::source_location loc) {
    return queue_on("queue_work", current()->cpu(), wq, work, loc);
}

bool queue_work_on(int cpu, workqueue_struct* wq, work_struct* work, std::source_location loc) {
    return queue_on("queue_work_on", checked_cpu("queue_work_on", cpu), wq, work, loc);
}

bool schedule_work(work_struct* work, std::source_location loc) {
    return queue_work(system_wq, work, loc);
}

bool flush_work(work_struct* work, std::source_location loc) {
    might_sleep("flush_work", work, loc);
    lock_acquire("flush_work", work, &work->lockdep_map, 0, false, loc);
    // Against every step, as the worker's end is (wait_for()).
    this_execution().visible_global("flush_work", work, loc);
    task_struct* me = current();
    if (me->lockdep_asked) lockdep_acquired(me);
    const std::uint32_t target = flush_target(*work);
    // start_flush_work(): a flush on an ordered queue waits behind what the queue runs first.
    if (target && work->wq->ordered()) touch("flush_work", work->wq, &work->wq->lockdep_map, loc);
    return observed(wait_for(work, target, loc));
}

bool cancel_work(work_struct* work, std::source_location loc) {
    this_execution().visible("cancel_work", work, loc);
    return observed(grab_pending(work));
}

bool cancel_work_sync(work_struct* work, std::source_location loc) {
    return cancel_sync("cancel_work_sync", work, loc);
}

bool work_pending(const work_struct* work, std::source_location loc) {
    this_execution().visible_read("work_pending", work, loc);
    this_execution().note(work->pending);
    return observed(work->pending);
}

namespace {

// Whether every item queued on the queue up to its queueing args.v[0] has finished; with
// args.v[0] 0, every item at all (drain_workqueue()).
bool queue_flushed(const Object* obj, const Task& waiter) {
    const auto* wq = static_cast<const workqueue_struct*>(obj);
    const auto upto = static_cast<std::uint32_t>(waiter.pending().args.v[0]);
    for (const work_struct* w : state().works) {
        if (w->wq != wq) continue;
        if (w->queued && (!upto || w->queued_as <= upto)) return false;
        if (w->running && (!upto || w->started_as <= upto)) return false;
    }
    return true;
}

void flush_queue(const char* op, workqueue_struct* wq, bool drain, std::source_location loc) {
    wq = resolve(wq);
    might_sleep(op, wq, loc);
    lock_acquire(op, wq, &wq->lockdep_map, 0, false, loc);
    // Against every step: it reads every item of the queue.
    this_execution().visible_global(op, wq, loc);
    task_struct* me = current();
    if (me->lockdep_asked) lockdep_acquired(me);
    check_alive(op, wq, loc);
    const std::int64_t upto = drain ? 0 : wq->instances;
    this_execution().visible_global("wait_for_completion", wq, loc, &queue_flushed,
                                    OpArgs{{upto, 0}, 0});
    count_sleep_if_blocked(wq);
    if (weak_memory::on()) [[unlikely]]
        for (const work_struct* w : state().works)
            if (w->wq == wq) weak_memory::taken_over(&w->lockdep_map);
}

} // namespace

void flush_workqueue(workqueue_struct* wq, std::source_location loc) {
    flush_queue("flush_workqueue", wq, false, loc);
}

void drain_workqueue(workqueue_struct* wq, std::source_location loc) {
    flush_queue("drain_workqueue", wq, true, loc);
}

void destroy_workqueue(workqueue_struct* wq, std::source_location loc) {
    flush_queue("destroy_workqueue", wq, true, loc);
    resolve(wq)->destroyed_at = this_execution().step();
}

namespace {

bool queue_delayed_on(const char* op, int cpu, workqueue_struct* wq, delayed_work* dwork,
                      unsigned long delay, std::source_location loc) {
    wq = resolve(wq);
    declare_queueing(op, wq, &dwork->work, loc);
    check_alive(op, wq, loc);
    if (dwork->work.pending) return observed(false);
    queue_delayed(wq, dwork, delay, cpu);
    return observed(true);
}

} // namespace

bool queue_delayed_work(workqueue_struct* wq, delayed_work* dwork, unsigned long delay,
                        std::source_location loc) {
    return queue_delayed_on("queue_delayed_work", current()->cpu(), wq, dwork, delay, loc);
}

bool queue_delayed_work_on(int cpu, workqueue_struct* wq, delayed_work* dwork, unsigned long delay,
                           std::source_location loc) {
    return queue_delayed_on("queue_delayed_work_on", checked_cpu("queue_delayed_work_on", cpu), wq,
                            dwork, delay, loc);
}

bool schedule_delayed_work(delayed_work* dwork, unsigned long delay, std::source_location loc) {
    return queue_delayed_work(system_wq, dwork, delay, loc);
}

bool mod_delayed_work(workqueue_struct* wq, delayed_work* dwork, unsigned long delay,
                      std::source_location loc) {
    wq = resolve(wq);
    declare_queueing("mod_delayed_work", wq, &dwork->work, loc);
    check_alive("mod_delayed_work", wq, loc);
    const bool was = grab_pending(&dwork->work);
    queue_delayed(wq, dwork, delay, current()->cpu());
    return observed(was);
}

bool cancel_delayed_work(delayed_work* dwork, std::source_location loc) {
    return cancel_work(&dwork->work, loc);
}

bool cancel_delayed_work_sync(delayed_work* dwork, std::source_location loc) {
    return cancel_sync("cancel_delayed_work_sync", &dwork->work, loc);
}

bool flush_delayed_work(delayed_work* dwork, std::source_location loc) {
    work_struct* w = &dwork->work;
    if (dwork->wq) {
        declare_queueing("flush_delayed_work", dwork->wq, w, loc);
        // del_timer_sync() of an armed timer, then __queue_work() at once.
        if (dwork->timer.armed) {
            grab_pending(w);
            enqueue(dwork->wq, w, dwork->cpu);
        }
    }
    return flush_work(w, loc);
}

} // namespace lockcheck::detail
