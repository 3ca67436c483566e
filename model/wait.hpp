// wait_queue_head_t: the kernel's wait queues. prepare_to_wait queues the task and sets its
// sleep state; schedule() then sleeps until a wake_up sets it running. A task that tests its
// condition before prepare_to_wait can miss the wake-up and sleep for ever, exactly as in the
// kernel; the checker reports that as a hang.
#pragma once

#include "sched.hpp"

namespace lockcheck::detail {

enum : unsigned { WQ_FLAG_EXCLUSIVE = 0x01 };

struct wait_queue_entry;
// Returns nonzero if it woke the task (for exclusive wake-up accounting).
using wait_queue_func_t = int (*)(wait_queue_entry* wq_entry, unsigned mode, int flags, void* key);

int default_wake_function(wait_queue_entry* wq_entry, unsigned mode, int flags, void* key);
// default_wake_function, and removes the entry from its queue if it woke the task.
int autoremove_wake_function(wait_queue_entry* wq_entry, unsigned mode, int flags, void* key);

struct wait_queue_head_t;

// An entry on a wait queue; it leaves its queue when it goes out of scope.
struct wait_queue_entry {
    explicit wait_queue_entry(task_struct* task, wait_queue_func_t fn = autoremove_wake_function)
        : private_(task), func(fn) {}
    ~wait_queue_entry();
    wait_queue_entry(const wait_queue_entry&) = delete;
    wait_queue_entry& operator=(const wait_queue_entry&) = delete;

    unsigned flags = 0;
    task_struct* private_;
    wait_queue_func_t func;
    // Intrusive list links: a queue never allocates.
    wait_queue_head_t* head = nullptr;
    wait_queue_entry* prev = nullptr;
    wait_queue_entry* next = nullptr;
};

#define DEFINE_WAIT(name) ::lockcheck::detail::wait_queue_entry name(::lockcheck::detail::current())
#define DEFINE_WAIT_FUNC(name, function)                                                           \
    ::lockcheck::detail::wait_queue_entry name(::lockcheck::detail::current(), function)

struct wait_queue_head_t final : Object {
    explicit wait_queue_head_t(std::string name) : Object(std::move(name)) { unwatched(); }
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override;
    // The task its sleepers wait for, where the queue says (see waited_for).
    const Task* holder() const override;

    void add(wait_queue_entry* e);      // at the head, as __add_wait_queue
    void add_tail(wait_queue_entry* e); // as __add_wait_queue_entry_tail
    static void remove(wait_queue_entry* e);

    wait_queue_entry* first = nullptr;
    wait_queue_entry* last = nullptr;
    // The tasks whose progress its sleepers wait for, where a model knows them (the tasks
    // with direct I/O in flight, for inode_dio_wait): edges of the wait-for graph, so that a
    // sleeper waiting on a lock holder that waits on it is reported as a deadlock.
    TaskSet waited_for = 0;
};

void prepare_to_wait(wait_queue_head_t* wq_head, wait_queue_entry* wq_entry, long state,
                     std::source_location loc = std::source_location::current());
void prepare_to_wait_exclusive(wait_queue_head_t* wq_head, wait_queue_entry* wq_entry, long state,
                               std::source_location loc = std::source_location::current());
void finish_wait(wait_queue_head_t* wq_head, wait_queue_entry* wq_entry,
                 std::source_location loc = std::source_location::current());
// Wakes every non-exclusive waiter and one exclusive waiter; returns how many it woke.
int wake_up(wait_queue_head_t* wq_head, std::source_location loc = std::source_location::current());
int wake_up_all(wait_queue_head_t* wq_head,
                std::source_location loc = std::source_location::current());
bool waitqueue_active(wait_queue_head_t* wq_head,
                      std::source_location loc = std::source_location::current());
// waitqueue_active after a full barrier; the same here, where every step is ordered.
bool wq_has_sleeper(wait_queue_head_t* wq_head,
                    std::source_location loc = std::source_location::current());

// wait_event(wq, condition): sleeps until `condition` (re-evaluated after each wake-up) holds.
// Its steps name the model's line of wait_event(); so do the condition's, a lambda written there.
template <class Condition>
void wait_event_fn(wait_queue_head_t* wq_head, Condition condition,
                   std::source_location loc = std::source_location::current()) {
    might_sleep("wait_event", wq_head, loc);
    if (condition()) return;
    DEFINE_WAIT(wait);
    for (;;) {
        prepare_to_wait(wq_head, &wait, TASK_UNINTERRUPTIBLE, loc);
        if (condition()) break;
        schedule(loc);
    }
    finish_wait(wq_head, &wait, loc);
}

#define wait_event(wq_head, condition)                                                             \
    ::lockcheck::detail::wait_event_fn(&(wq_head), [&]() -> bool { return (condition); })

// The loop of the _timeout forms (___wait_event() with schedule_timeout()), on the queue
// `queue()` returns (made only if the task sleeps): 0 if the timeout expired with `condition`
// false, else the time left, at least 1 (___wait_cond_timeout()).
template <class Queue, class Condition>
long wait_timeout_loop(Queue queue, Condition condition, long timeout, std::source_location loc) {
    long ret = timeout;
    const auto cond_timeout = [&] {
        const bool c = condition();
        if (c && !ret) ret = 1;
        return c || !ret;
    };
    if (cond_timeout()) return ret;
    wait_queue_head_t* wq_head = queue();
    DEFINE_WAIT(wait);
    for (;;) {
        prepare_to_wait(wq_head, &wait, TASK_UNINTERRUPTIBLE, loc);
        if (cond_timeout()) break;
        ret = schedule_timeout(ret, loc);
    }
    finish_wait(wq_head, &wait, loc);
    return ret;
}

// wait_event_timeout(wq, condition, timeout): wait_event() whose sleep the timeout may end
// (schedule_timeout()): 0 if it did with `condition` still false, else at least 1.
template <class Condition>
long wait_event_timeout_fn(wait_queue_head_t* wq_head, Condition condition, long timeout,
                           std::source_location loc = std::source_location::current()) {
    might_sleep("wait_event_timeout", wq_head, loc);
    return wait_timeout_loop([wq_head] { return wq_head; }, condition, timeout, loc);
}

#define wait_event_timeout(wq_head, condition, timeout)                                            \
    ::lockcheck::detail::wait_event_timeout_fn(                                                    \
        &(wq_head), [&]() -> bool { return (condition); }, (timeout))

} // namespace lockcheck::detail
