// wait_on_bit(), wake_up_bit(), wait_var_event() and wake_up_var() after kernel/sched/wait_bit.c,
// over wait.hpp's queues: one per bit or variable, made on first use and kept per execution.
#include "wait_bit.hpp"

#include <tuple>
#include <vector>

#include "barrier.hpp"

namespace lockcheck::detail {

namespace {

struct wait_bit_table {
    std::vector<std::tuple<const Object*, int, wait_queue_head_t*>> queues;
};

wait_queue_head_t* queue_of(const Object* obj, int bit) {
    Execution& ex = this_execution();
    wait_bit_table& table = ex.local<wait_bit_table>();
    for (const auto& [o, b, wq] : table.queues)
        if (o == obj && b == bit) return wq;
    const std::string name =
        bit < 0 ? "__var_waitqueue(" + obj->name() + ")"
                : "bit_waitqueue(" + obj->name() + ", " + std::to_string(bit) + ")";
    wait_queue_head_t* wq = &ex.make<wait_queue_head_t>(name);
    table.queues.emplace_back(obj, bit, wq);
    return wq;
}

// __wake_up_bit(): wake_up() if waitqueue_active(), with no barrier in between.
void wake_up_queue(wait_queue_head_t* wq_head, std::source_location loc) {
    if (waitqueue_active(wq_head, loc)) wake_up(wq_head, loc);
}

} // namespace

wait_queue_head_t* bit_waitqueue(const bitmap_word* word, int bit) {
    return queue_of(word, bit);
}

wait_queue_head_t* __var_waitqueue(const Object* var) {
    return queue_of(var, -1);
}

// wait_on_bit() and __wait_on_bit() with bit_wait() as the action (schedule()).
int wait_on_bit(bitmap_word* word, int bit, unsigned mode, std::source_location loc) {
    might_sleep("wait_on_bit", word, loc);
    if (!test_bit_acquire(bit, word, loc)) return 0;
    wait_queue_head_t* wq_head = bit_waitqueue(word, bit);
    DEFINE_WAIT(wait);
    do {
        prepare_to_wait(wq_head, &wait, mode, loc);
        if (test_bit(bit, word, loc)) schedule(loc);
    } while (test_bit_acquire(bit, word, loc));
    finish_wait(wq_head, &wait, loc);
    return 0;
}

// wait_on_bit_lock() and __wait_on_bit_lock().
int wait_on_bit_lock(bitmap_word* word, int bit, unsigned mode, std::source_location loc) {
    might_sleep("wait_on_bit_lock", word, loc);
    if (!test_and_set_bit(bit, word, loc)) return 0;
    wait_queue_head_t* wq_head = bit_waitqueue(word, bit);
    DEFINE_WAIT(wait);
    for (;;) {
        prepare_to_wait_exclusive(wq_head, &wait, mode, loc);
        if (test_bit(bit, word, loc)) schedule(loc);
        if (!test_and_set_bit(bit, word, loc)) {
            finish_wait(wq_head, &wait, loc);
            return 0;
        }
    }
}

void wake_up_bit(bitmap_word* word, int bit, std::source_location loc) {
    wake_up_queue(bit_waitqueue(word, bit), loc);
}

void clear_and_wake_up_bit(int bit, bitmap_word* word, std::source_location loc) {
    clear_bit_unlock(bit, word, loc);
    smp_mb__after_atomic();
    wake_up_bit(word, bit, loc);
}

void wake_up_var(const Object* var, std::source_location loc) {
    wake_up_queue(__var_waitqueue(var), loc);
}

} // namespace lockcheck::detail
