// Waiting for a bit or a variable (include/linux/wait_bit.h, kernel/sched/wait_bit.c):
// wait_on_bit() sleeps until a bit of a word is clear, wait_on_bit_lock() until it can set it,
// wait_var_event() until a condition on a variable holds; wake_up_bit() and wake_up_var() wake
// them. The kernel hashes the word and bit (the variable) to one of a table of wait queues; here
// each gets a queue of its own, named after it ("bit_waitqueue(flags, 3)",
// "__var_waitqueue(i_count)"), so a waiter nobody wakes is the hang report naming the bit or the
// variable. The wakers test waitqueue_active() without a barrier, as the kernel's do: under
// lkmm the store that satisfies the condition must be followed by smp_mb() (or
// smp_mb__after_atomic() after an atomic one, as clear_and_wake_up_bit() does), or the waker
// may miss a waiter that then sleeps for ever. The kernel's wake_bit_function() skips a waiter
// whose bit is set again; here that waiter wakes, tests the bit and sleeps again, which ends
// the same way.
#pragma once

#include "bitops.hpp"
#include "wait.hpp"

namespace lockcheck::detail {

// The wait queue of a bit of a word, and of a variable (made on first use).
wait_queue_head_t* bit_waitqueue(const bitmap_word* word, int bit);
wait_queue_head_t* __var_waitqueue(const Object* var);

// Sleeps (in `mode`, TASK_UNINTERRUPTIBLE) until bit `bit` of `word` is clear; the last test
// is an acquire. Returns 0.
int wait_on_bit(bitmap_word* word, int bit, unsigned mode,
                std::source_location loc = std::source_location::current());
// Sleeps until it sets the bit itself (test_and_set_bit()), exclusively: each wake-up wakes
// one such waiter. Returns 0.
int wait_on_bit_lock(bitmap_word* word, int bit, unsigned mode,
                     std::source_location loc = std::source_location::current());
// Wakes the waiters of the bit, if waitqueue_active() sees one: those waiting for it to clear
// only once it is.
void wake_up_bit(bitmap_word* word, int bit,
                 std::source_location loc = std::source_location::current());
// clear_bit_unlock(), smp_mb__after_atomic(), wake_up_bit().
void clear_and_wake_up_bit(int bit, bitmap_word* word,
                           std::source_location loc = std::source_location::current());
void wake_up_var(const Object* var, std::source_location loc = std::source_location::current());

// wait_var_event(var, condition): sleeps on __var_waitqueue(var) until `condition` holds.
template <class Condition>
void wait_var_event_fn(const Object* var, Condition condition,
                       std::source_location loc = std::source_location::current()) {
    might_sleep("wait_var_event", var, loc);
    if (condition()) return;
    wait_queue_head_t* wq_head = __var_waitqueue(var);
    DEFINE_WAIT(wait);
    for (;;) {
        prepare_to_wait(wq_head, &wait, TASK_UNINTERRUPTIBLE, loc);
        if (condition()) break;
        schedule(loc);
    }
    finish_wait(wq_head, &wait, loc);
}

#define wait_var_event(var, condition)                                                             \
    ::lockcheck::detail::wait_var_event_fn((var), [&]() -> bool { return (condition); })

// wait_var_event_timeout(var, condition, timeout): wait_var_event() whose sleep the timeout may
// end (schedule_timeout()): 0 if it did with `condition` still false, else at least 1.
template <class Condition>
long wait_var_event_timeout_fn(const Object* var, Condition condition, long timeout,
                               std::source_location loc = std::source_location::current()) {
    might_sleep("wait_var_event_timeout", var, loc);
    return wait_timeout_loop([var] { return __var_waitqueue(var); }, condition, timeout, loc);
}

#define wait_var_event_timeout(var, condition, timeout)                                            \
    ::lockcheck::detail::wait_var_event_timeout_fn((var), [&]() -> bool { return (condition); },   \
                                                   (timeout))

} // namespace lockcheck::detail
