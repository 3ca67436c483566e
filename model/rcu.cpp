// RCU's read-side sections, grace periods and callbacks on the execution's scheduling points.
// A grace period is the set of tasks inside a read-side section when it started, explicit or
// implicit (preemption, bottom halves or interrupts off); each leaves it when it is inside
// neither any more, and the grace period ends when the set is empty.
#include "rcu.hpp"

#include <algorithm>
#include <vector>

#include "irq.hpp"
#include "lock_misuse.hpp"
#include "sched.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

// A read-side flavour's lockdep map, as the held-lock stack names it.
struct rcu_lock_map final : Object {
    explicit rcu_lock_map(const char* name) : Object(name) { unwatched(); }
    void describe(std::string& out) const override { out += "RCU read-side critical sections"; }
    void fingerprint(StateHasher&) const override {}
};

// A callback queued by call_rcu() or kfree_rcu(): it runs once `readers` is empty.
struct rcu_callback {
    rcu_head* head = nullptr;
    rcu_callback_t func = nullptr;
    const void* kfree_ptr = nullptr; // kfree_rcu(): what to free, with no rcu_head function
    int cpu = 0;                     // the CPU whose RCU_SOFTIRQ runs it
    TaskSet readers = 0;             // the readers its grace period still waits for
    std::uint64_t seq = 0;           // queued as the seq-th callback of the execution
    std::source_location loc{};      // the model's call_rcu() or kfree_rcu()
    bool running = false;            // invoked now: rcu_barrier() still waits for it
};

// A task in synchronize_rcu() or rcu_barrier(), between its start and its end.
struct rcu_waiter {
    const Task* task = nullptr;
    TaskSet readers = 0;       // synchronize_rcu(): the readers it still waits for
    std::uint64_t barrier = 0; // rcu_barrier(): it waits for callbacks up to this seq
};

// Inside an explicit read-side section or an implicit one (rcu_atomic_changed()).
bool rcu_reader(const task_struct& t) {
    return t.rcu_nesting_total() || t.rcu_implicit;
}

struct rcu_state final : Object {
    rcu_state() : Object("rcu") { unwatched(); }

    void describe(std::string& out) const override {
        std::string readers;
        for (const auto& tp : this_execution().tasks()) {
            const auto& t = static_cast<const task_struct&>(*tp);
            if (!t.finished() && rcu_reader(t)) readers += (readers.empty() ? "" : ", ") + t.name();
        }
        out += readers.empty() ? "no readers" : "readers: " + readers;
        if (!callbacks.empty())
            out += ", " + std::to_string(callbacks.size()) + " callbacks queued";
    }
    void fingerprint(StateHasher& h) const override {
        for (const rcu_callback& cb : callbacks) {
            h.add(reinterpret_cast<std::uintptr_t>(cb.func));
            h.add(static_cast<std::uint64_t>(pointer_token(cb.head ? cb.head : cb.kfree_ptr)));
            h.add(static_cast<std::uint64_t>(cb.cpu));
            h.add(cb.readers);
            h.add(cb.running);
            for (const rcu_waiter& w : waiters)
                h.add(w.barrier >= cb.seq);
        }
        for (const rcu_waiter& w : waiters) {
            h.add(w.task->id());
            h.add(w.readers);
        }
    }
    // A waiter waits for the first reader its grace period waits for.
    const Task* holder_for(const Task& waiter) const override {
        if (const rcu_waiter* w = waiter_of(waiter); w && w->readers)
            return this_execution().tasks()[lowest(w->readers)].get();
        return nullptr;
    }

    const rcu_waiter* waiter_of(const Task& t) const {
        for (const rcu_waiter& w : waiters)
            if (w.task == &t) return &w;
        return nullptr;
    }
    // The tasks inside a read-side section now: those a grace period that starts now waits for.
    static TaskSet readers_now() {
        TaskSet readers = 0;
        for (const auto& tp : this_execution().tasks())
            if (!tp->finished() && rcu_reader(static_cast<const task_struct&>(*tp)))
                readers |= task_bit(tp->id());
        return readers;
    }

    std::array<rcu_lock_map, RCU_FLAVOURS> maps{rcu_lock_map("rcu_read_lock"),
                                                rcu_lock_map("rcu_read_lock_bh"),
                                                rcu_lock_map("rcu_read_lock_sched")};
    std::vector<rcu_callback> callbacks; // queued, in order
    std::vector<rcu_waiter> waiters;
    std::uint64_t queued = 0;
    // Where callbacks run: RCU_SOFTIRQ (decided at the first call_rcu()), or else this task.
    bool decided = false;
    bool in_softirq = false;
    task_struct* callback_thread = nullptr;
    std::source_location callback_loc{};
    // Under lkmm: what each callback did is handed off here at its end, to rcu_barrier().
    char callbacks_done = 0;
};

rcu_state& rcu() {
    return this_execution().local<rcu_state>();
}

const char* const kLockNames[RCU_FLAVOURS] = {"rcu_read_lock", "rcu_read_lock_bh",
                                              "rcu_read_lock_sched"};
const char* const kUnlockNames[RCU_FLAVOURS] = {"rcu_read_unlock", "rcu_read_unlock_bh",
                                                "rcu_read_unlock_sched"};

void read_lock(rcu_flavour f, std::source_location loc) {
    rcu_state& s = rcu();
    this_execution().visible(kLockNames[f], &s, loc, nullptr, {}, read_side_entry);
    if (weak_memory::on()) weak_memory::rcu_read_locked();
    task_struct* me = current();
    if (me->rcu_nesting_total() == 0) {
        me->rcu_entered_at = this_execution().step();
        me->rcu_entered_loc = loc;
    }
    ++me->rcu_nesting[f];
    if (f == RCU_BH) bh_disable(me);
    if (f == RCU_SCHED) {
        ++me->preempt_count;
        rcu_atomic_changed(me);
    }
    lock_acquired(me, &s.maps[f], kLockNames[f], nullptr, loc);
}

// The running task left its outermost read-side section: grace periods stop waiting for it.
void left_section(rcu_state& s, const task_struct* me) {
    const TaskSet bit = task_bit(me->id());
    for (rcu_waiter& w : s.waiters)
        w.readers &= ~bit;
    for (rcu_callback& cb : s.callbacks) {
        if (!(cb.readers & bit)) continue;
        cb.readers &= ~bit;
        if (!cb.readers && s.in_softirq) softirq_changed(cb.cpu);
    }
}

void read_unlock(rcu_flavour f, std::source_location loc) {
    rcu_state& s = rcu();
    this_execution().visible(kUnlockNames[f], &s, loc, nullptr, {}, read_side_entry);
    if (weak_memory::on()) weak_memory::rcu_read_unlocked();
    task_struct* me = current();
    if (me->rcu_nesting[f] == 0) {
        report_bad_unlock(kUnlockNames[f], &s.maps[f], nullptr, loc);
        return;
    }
    --me->rcu_nesting[f];
    if (f == RCU_BH) bh_enable(me, kUnlockNames[f], loc);
    if (f == RCU_SCHED) {
        --me->preempt_count;
        rcu_atomic_changed(me);
    }
    lock_released(me, &s.maps[f]);
    if (!rcu_reader(*me)) left_section(s, me);
}

// Inside a read-side section a grace period (or a barrier, which waits for one) never ends.
void check_not_reader(const char* op, std::source_location loc) {
    const task_struct* me = current();
    if (!me->rcu_nesting_total()) return;
    this_execution().fail_attempt(Operation{.name = op, .obj = &rcu(), .location = loc},
                                  ViolationKind::deadlock, "rcu-sync-in-reader",
                                  std::string("WARNING: suspicious RCU usage: Illegal ") + op +
                                      "() in RCU read-side critical section: " + me->name() +
                                      " entered it at step " + std::to_string(me->rcu_entered_at) +
                                      " and would wait for itself",
                                  {}, {me->rcu_entered_at});
}

bool grace_period_over(const Object* obj, const Task& t) {
    const rcu_waiter* w = static_cast<const rcu_state*>(obj)->waiter_of(t);
    return !w || !w->readers;
}

bool barrier_passed(const Object* obj, const Task& t) {
    const auto& s = *static_cast<const rcu_state*>(obj);
    const rcu_waiter* w = s.waiter_of(t);
    return !w || std::none_of(s.callbacks.begin(), s.callbacks.end(),
                              [w](const rcu_callback& cb) { return cb.seq <= w->barrier; });
}

// The start and the end of a wait (synchronize_rcu(), rcu_barrier()), the waiter's record kept
// between them.
// `section`: the end of a grace period reads which readers have left (read_side_census).
void wait_for(const char* op, rcu_waiter waiter, EnabledFn over, ReadSide read_side,
              std::source_location loc) {
    rcu_state& s = rcu();
    Execution& ex = this_execution();
    s.waiters.push_back(waiter);
    ex.visible(op, &s, loc, over, {}, read_side);
    count_sleep_if_blocked(&s, false);
    // synchronize_rcu()'s Sync-rcu came at its start; rcu_barrier() returns after what each
    // callback did.
    if (weak_memory::on()) {
        weak_memory::orders_nothing();
        if (!waiter.readers && waiter.barrier) weak_memory::taken_over(&s.callbacks_done);
    }
    s.waiters.erase(std::find_if(s.waiters.begin(), s.waiters.end(),
                                 [&](const rcu_waiter& w) { return w.task == waiter.task; }));
}

// Runs the callbacks whose grace period ended (on `cpu`; -1: on any), in the order queued,
// as rcu_do_batch() does.
void invoke_callbacks(rcu_state& s, int cpu) {
    for (;;) {
        const auto cb =
            std::find_if(s.callbacks.begin(), s.callbacks.end(), [cpu](const rcu_callback& c) {
                return !c.readers && !c.running && (cpu < 0 || c.cpu == cpu);
            });
        if (cb == s.callbacks.end()) return;
        cb->running = true;
        const rcu_callback run = *cb; // the callback may queue more
        // Under lkmm the callback comes after what its queuer did before call_rcu(), and
        // after a grace period: as if the context running it had called synchronize_rcu().
        const void* key = run.head ? static_cast<const void*>(run.head) : run.kfree_ptr;
        if (weak_memory::on()) {
            weak_memory::taken_over(key);
            // The context running it (a softirq, or rcuop with bottom halves off) is an
            // implicit read-side section, in which LKMM has no Sync-rcu: the section is split
            // around it, the grace period having ended before the callback runs.
            const bool implicit = current()->rcu_implicit;
            if (implicit) weak_memory::rcu_read_unlocked();
            weak_memory::rcu_synchronized();
            if (implicit) weak_memory::rcu_read_locked();
        }
        if (run.func)
            run.func(run.head);
        else
            kfree(run.kfree_ptr, run.loc);
        if (weak_memory::on()) weak_memory::handed_off(&s.callbacks_done);
        s.callbacks.erase(std::find_if(s.callbacks.begin(), s.callbacks.end(),
                                       [&run](const rcu_callback& c) { return c.seq == run.seq; }));
    }
}

bool ready(const rcu_state& s, int cpu) {
    return std::any_of(s.callbacks.begin(), s.callbacks.end(), [cpu](const rcu_callback& cb) {
        return !cb.readers && !cb.running && (cpu < 0 || cb.cpu == cpu);
    });
}

bool callbacks_due(int cpu, const Task&) {
    return ready(rcu(), cpu);
}

bool callbacks_owed(int cpu) {
    const auto& cbs = rcu().callbacks;
    return std::any_of(cbs.begin(), cbs.end(),
                       [cpu](const rcu_callback& cb) { return cb.cpu == cpu; });
}

// RCU_SOFTIRQ's action: the callbacks of the CPU whose grace period ended.
void rcu_core() {
    invoke_callbacks(rcu(), current()->cpu());
}

bool any_ready(const Object* obj, const Task&) {
    return ready(*static_cast<const rcu_state*>(obj), -1);
}

// The callbacks' own task: idle while none is queued, so that an execution may end with it.
void callback_thread(rcu_state& s) {
    task_struct* me = current();
    for (;;) {
        me->set_idle(s.callbacks.empty());
        // Ready once its readers have left; it turns bottom halves off.
        this_execution().visible("rcu_do_batch", &s, s.callback_loc, &any_ready, {},
                                 ReadSide(read_side_census | read_side_change));
        me->set_idle(false);
        // As the rcuo kthreads invoke them: with bottom halves off.
        bh_disable(me);
        invoke_callbacks(s, -1);
        bh_enable(me, "rcu_do_batch", s.callback_loc);
    }
}

void queue_callback(rcu_callback cb, const char* op, std::source_location loc) {
    rcu_state& s = rcu();
    this_execution().visible(op, &s, loc, nullptr, {}, read_side_census);
    if (weak_memory::on())
        weak_memory::handed_off(cb.head ? static_cast<const void*>(cb.head) : cb.kfree_ptr);
    task_struct* me = current();
    cb.cpu = me->cpu();
    cb.readers = rcu_state::readers_now();
    cb.seq = ++s.queued;
    cb.loc = loc;
    s.callbacks.push_back(cb);
    if (!s.decided) {
        s.decided = true;
        s.callback_loc = loc;
        s.in_softirq = softirq_contexts();
        if (s.in_softirq) {
            open_softirq(RCU_SOFTIRQ, &rcu_core);
            softirq_due(RCU_SOFTIRQ, &callbacks_due, &callbacks_owed);
        } else {
            spawn("rcuop", [&s] { callback_thread(s); });
            s.callback_thread = static_cast<task_struct*>(this_execution().tasks().back().get());
        }
    }
    if (s.in_softirq)
        softirq_changed(cb.cpu);
    else
        s.callback_thread->wake();
}

} // namespace

void rcu_atomic_changed(task_struct* me) {
    const bool implicit = me->preempt_count != 0 || me->irqs_off;
    if (implicit == me->rcu_implicit) return;
    me->rcu_implicit = implicit;
    this_execution().changed_section();
    if (weak_memory::on()) [[unlikely]] {
        if (implicit)
            weak_memory::rcu_read_locked();
        else
            weak_memory::rcu_read_unlocked();
    }
    if (rcu_reader(*me)) return;
    // Only a model that uses RCU has its state: none to create here, in a spinlock's step.
    if (rcu_state* s = this_execution().find_local<rcu_state>()) left_section(*s, me);
}

void rcu_read_lock(std::source_location loc) {
    read_lock(RCU_PLAIN, loc);
}
void rcu_read_unlock(std::source_location loc) {
    read_unlock(RCU_PLAIN, loc);
}
void rcu_read_lock_bh(std::source_location loc) {
    read_lock(RCU_BH, loc);
}
void rcu_read_unlock_bh(std::source_location loc) {
    read_unlock(RCU_BH, loc);
}
void rcu_read_lock_sched(std::source_location loc) {
    read_lock(RCU_SCHED, loc);
}
void rcu_read_unlock_sched(std::source_location loc) {
    read_unlock(RCU_SCHED, loc);
}

bool rcu_read_lock_held() {
    return current()->rcu_nesting[RCU_PLAIN] != 0;
}
bool rcu_read_lock_bh_held() {
    const task_struct* me = current();
    return me->rcu_nesting[RCU_BH] || me->bh_disabled || me->irqs_off || me->context != IN_TASK;
}
bool rcu_read_lock_sched_held() {
    const task_struct* me = current();
    return me->rcu_nesting[RCU_SCHED] || me->preempt_count || me->irqs_off;
}
bool rcu_read_lock_any_held() {
    return rcu_read_lock_held() || rcu_read_lock_bh_held() || rcu_read_lock_sched_held();
}

void synchronize_rcu(std::source_location loc) {
    check_not_reader("synchronize_rcu", loc);
    might_sleep("synchronize_rcu", &rcu(), loc);
    rcu_state& s = rcu();
    Execution& ex = this_execution();
    // The start: the readers it waits for are those inside a section at this step.
    ex.visible("synchronize_rcu", &s, loc, nullptr, {}, read_side_census);
    if (weak_memory::on()) weak_memory::rcu_synchronized();
    wait_for("synchronize_rcu", rcu_waiter{current(), rcu_state::readers_now(), 0},
             &grace_period_over, read_side_census, loc);
}

void call_rcu(rcu_head* head, rcu_callback_t func, std::source_location loc) {
    head->func = func;
    queue_callback(rcu_callback{.head = head, .func = func}, "call_rcu", loc);
}

void kfree_rcu_ptr(const void* ptr, std::source_location loc) {
    if (!ptr) return;
    queue_callback(rcu_callback{.kfree_ptr = ptr}, "kfree_rcu", loc);
}

void rcu_barrier(std::source_location loc) {
    check_not_reader("rcu_barrier", loc);
    might_sleep("rcu_barrier", &rcu(), loc);
    rcu_state& s = rcu();
    this_execution().visible("rcu_barrier", &s, loc);
    if (weak_memory::on()) weak_memory::orders_nothing();
    wait_for("rcu_barrier", rcu_waiter{current(), 0, s.queued}, &barrier_passed, read_side_none,
             loc);
}

void rcu_dereference_checked(bool ok, const char* op, const char* where, const Object& p,
                             std::source_location loc) {
    if (ok) return;
    const bool check = std::string_view(op) != "rcu_dereference_protected";
    this_execution().fail_attempt(
        Operation{.name = op, .obj = &p, .location = loc}, ViolationKind::lock_misuse,
        "suspicious-rcu-usage",
        std::string("WARNING: suspicious RCU usage: suspicious ") +
            (check ? "rcu_dereference_check" : "rcu_dereference_protected") +
            "() usage: " + current()->name() + " calls " + op + "(" + p.name() + ") " + where);
}

std::string rcu_unwaited_section(const Task& user, std::uint32_t freed_at,
                                 std::vector<std::uint32_t>& cited) {
    const auto* t = dynamic_cast<const task_struct*>(&user);
    if (!t || !t->rcu_nesting_total() || t->rcu_entered_at >= freed_at) return {};
    cited.insert(cited.begin(), t->rcu_entered_at); // before the kfree: the order of steps
    const CallSite site = call_site(t->rcu_entered_loc);
    return "; " + t->name() + " is inside the RCU read-side critical section it entered at step " +
           std::to_string(t->rcu_entered_at) + (site.known() ? " (" + site.text() + ")" : "") +
           ", which the free did not wait for";
}

} // namespace lockcheck::detail
