// handshake: one task waits for a flag another sets, with wait_event()/wake_up(), the most
// common sleep/wake pattern of the kernel. The broken variant tests the flag before it queues
// itself (the "lost wake-up" that include/linux/wait.h's comments warn about): the waker can
// set the flag and wake an empty queue between the test and the sleep.
#include <lockcheck/lockcheck.hpp>

namespace handshake {

using namespace lockcheck;

struct work {
    wait_queue_head_t done_wait{"done_wait"};
    shared<int> done{"done"};
};

// The waiter as the kernel writes it: wait_event() queues the task before it tests the flag.
void wait_for_done(work* w) {
    wait_event(w->done_wait, READ_ONCE(w->done));
}

// The mistake: test, then queue and sleep. A wake-up in between finds no one to wake.
void wait_for_done_racy(work* w) {
    if (READ_ONCE(w->done)) return;
    DEFINE_WAIT(wait);
    prepare_to_wait(&w->done_wait, &wait, TASK_UNINTERRUPTIBLE);
    schedule();
    finish_wait(&w->done_wait, &wait);
}

void complete_work(work* w) {
    WRITE_ONCE(w->done, 1);
    wake_up(&w->done_wait);
}

void setup(std::size_t variant, const ParameterValues& sizes) {
    work& w = model_state<work>();
    for (int i = 0; i < sizes[0]; ++i)
        spawn("waiter" + std::to_string(i),
              [&w, variant] { variant == 0 ? wait_for_done(&w) : wait_for_done_racy(&w); });
    spawn("worker", [&w] { complete_work(&w); });
}

Protocol model() {
    return Protocol{
        .name = "handshake",
        .summary = "a waiter sleeps until a worker sets a flag and wakes it",
        .variants = {{"wait-event", "wait_event(): queued before the flag is tested",
                      Expectation::verified()},
                     {"test-then-sleep", "the flag is tested before prepare_to_wait()",
                      Expectation::violation(ViolationKind::hang, "hang")}},
        .parameters = {{"waiters", "tasks waiting for the flag", 1, 1, 4}},
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(model);

} // namespace handshake
