// Wait queues after kernel/sched/wait.c: the same queue order, the same exclusive wake-up
// accounting, the same autoremove on wake.
#include "wait.hpp"

#include "barrier.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

wait_queue_entry::~wait_queue_entry() {
    if (head) wait_queue_head_t::remove(this);
}

void wait_queue_head_t::add(wait_queue_entry* e) {
    e->head = this;
    e->prev = nullptr;
    e->next = first;
    (first ? first->prev : last) = e;
    first = e;
}

void wait_queue_head_t::add_tail(wait_queue_entry* e) {
    e->head = this;
    e->next = nullptr;
    e->prev = last;
    (last ? last->next : first) = e;
    last = e;
}

void wait_queue_head_t::remove(wait_queue_entry* e) {
    wait_queue_head_t* h = e->head;
    (e->prev ? e->prev->next : h->first) = e->next;
    (e->next ? e->next->prev : h->last) = e->prev;
    e->head = nullptr;
    e->prev = e->next = nullptr;
}

const Task* wait_queue_head_t::holder() const {
    for (TaskSet t = waited_for; t; t &= t - 1) {
        const Task* task = Execution::current().tasks()[lowest(t)].get();
        if (!task->finished()) return task;
    }
    return nullptr;
}

// Each entry in queue order: whom it wakes, how (its flags, its wake function) and so what a
// wake_up() does next.
void wait_queue_head_t::fingerprint(StateHasher& h) const {
    for (const wait_queue_entry* e = first; e; e = e->next) {
        h.add(e->private_ ? e->private_->id() : kNoTask);
        h.add(e->flags);
        h.add(reinterpret_cast<std::uintptr_t>(e->func));
    }
    h.add(waited_for);
}

void wait_queue_head_t::describe(std::string& out) const {
    if (!first) {
        out += "no waiters";
    } else {
        out += "waiters:";
        for (const wait_queue_entry* e = first; e; e = e->next) {
            out += " " + e->private_->name();
            if (e->flags & WQ_FLAG_EXCLUSIVE) out += "(exclusive)";
        }
    }
    if (const Task* t = holder()) out += ", waiting for " + t->name();
}

int default_wake_function(wait_queue_entry* wq_entry, unsigned mode, int, void*) {
    return try_to_wake_up(wq_entry->private_, static_cast<long>(mode));
}

int autoremove_wake_function(wait_queue_entry* wq_entry, unsigned mode, int flags, void* key) {
    int ret = default_wake_function(wq_entry, mode, flags, key);
    if (ret && wq_entry->head) wait_queue_head_t::remove(wq_entry);
    return ret;
}

namespace {

// The list's length: what --memory-model lkmm keeps of it (weak_memory.hpp).
std::int64_t waiters(const wait_queue_head_t* wq_head) {
    std::int64_t n = 0;
    for (const wait_queue_entry* e = wq_head->first; e; e = e->next)
        ++n;
    return n;
}

void queue(const char* op, wait_queue_head_t* wq_head, wait_queue_entry* wq_entry, long state,
           bool exclusive, std::source_location loc) {
    this_execution().visible(op, wq_head, loc);
    const std::int64_t before = waiters(wq_head);
    if (exclusive)
        wq_entry->flags |= WQ_FLAG_EXCLUSIVE;
    else
        wq_entry->flags &= ~WQ_FLAG_EXCLUSIVE;
    if (!wq_entry->head) {
        if (exclusive)
            wq_head->add_tail(wq_entry);
        else
            wq_head->add(wq_entry);
    }
    task_struct* me = current();
    const long was = me->state;
    me->state = state;
    me->sleeping_on = wq_head;
    if (weak_memory::on()) [[unlikely]]
        weak_memory::wait_queue_changed(*wq_head, before, waiters(wq_head),
                                        weak_memory::StateChange{was, state, true});
}

// __wake_up_common: wake in queue order; stop after nr_exclusive exclusive wake-ups.
int wake_up_common(const char* op, wait_queue_head_t* wq_head, int nr_exclusive,
                   std::source_location loc) {
    this_execution().visible(op, wq_head, loc);
    const std::int64_t before = waiters(wq_head);
    int woken = 0;
    std::vector<const Task*> woken_tasks; // under lkmm only: sc allocates nothing here
    wait_queue_entry* next = nullptr;
    for (wait_queue_entry* curr = wq_head->first; curr; curr = next) {
        next = curr->next;
        unsigned flags = curr->flags;
        task_struct* sleeper = curr->private_;
        int ret = curr->func(curr, TASK_NORMAL, 0, nullptr);
        if (ret < 0) break;
        woken += ret != 0;
        if (ret && weak_memory::on()) [[unlikely]]
            woken_tasks.push_back(sleeper);
        if (ret && (flags & WQ_FLAG_EXCLUSIVE) && !--nr_exclusive) break;
    }
    if (weak_memory::on()) [[unlikely]]
        weak_memory::locked_update(*wq_head, before, waiters(wq_head), woken_tasks);
    this_execution().note(woken);
    return observed(woken);
}

} // namespace

void prepare_to_wait(wait_queue_head_t* wq_head, wait_queue_entry* wq_entry, long state,
                     std::source_location loc) {
    queue("prepare_to_wait", wq_head, wq_entry, state, false, loc);
}

void prepare_to_wait_exclusive(wait_queue_head_t* wq_head, wait_queue_entry* wq_entry, long state,
                               std::source_location loc) {
    queue("prepare_to_wait_exclusive", wq_head, wq_entry, state, true, loc);
}

void finish_wait(wait_queue_head_t* wq_head, wait_queue_entry* wq_entry, std::source_location loc) {
    this_execution().visible("finish_wait", wq_head, loc);
    task_struct* me = current();
    const long was = me->state;
    me->state = TASK_RUNNING;
    me->sleeping_on = nullptr;
    const std::int64_t before = waiters(wq_head);
    if (wq_entry->head) wait_queue_head_t::remove(wq_entry);
    if (weak_memory::on()) [[unlikely]] {
        // __set_current_state(TASK_RUNNING), then the entry's removal under the lock.
        weak_memory::task_state_set(was, TASK_RUNNING, false);
        weak_memory::wait_queue_changed(*wq_head, before, waiters(wq_head), std::nullopt);
    }
}

int wake_up(wait_queue_head_t* wq_head, std::source_location loc) {
    return wake_up_common("wake_up", wq_head, 1, loc);
}

int wake_up_all(wait_queue_head_t* wq_head, std::source_location loc) {
    return wake_up_common("wake_up_all", wq_head, 0, loc);
}

bool waitqueue_active(wait_queue_head_t* wq_head, std::source_location loc) {
    this_execution().visible_read("waitqueue_active", wq_head, loc);
    bool active = wq_head->first != nullptr;
    if (weak_memory::on()) [[unlikely]]
        active = weak_memory::wait_queue_seen_active(*wq_head, waiters(wq_head));
    this_execution().note(active);
    return observed(active);
}

// include/linux/wait.h: smp_mb(), then waitqueue_active().
bool wq_has_sleeper(wait_queue_head_t* wq_head, std::source_location loc) {
    smp_mb();
    return waitqueue_active(wq_head, loc);
}

} // namespace lockcheck::detail
