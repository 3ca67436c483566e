// Completions after kernel/sched/completion.c.
#include "completion.hpp"

#include "sched.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {
bool is_done(const Object* obj, const Task&) {
    return static_cast<const struct completion*>(obj)->done > 0;
}

// What a step does to `done` under x->wait.lock, which under lkmm is the lock's acquisition
// and release around a read of `done` and its write (weak_memory::locked_update()): so what a
// complete() follows, the wait that consumes it sees.
void set_done(struct completion* x, unsigned done) {
    if (weak_memory::on()) [[unlikely]]
        weak_memory::locked_update(*x, x->done, done);
    x->done = done;
}
void consume(struct completion* x) {
    if (x->done != UINT_MAX)
        set_done(x, x->done - 1);
    else
        set_done(x, x->done);
}

// The lockless READ_ONCE(x->done) try_wait_for_completion() and completion_done() begin with:
// under lkmm it may see an older count.
unsigned done_seen(const struct completion* x) {
    if (!weak_memory::on()) return x->done;
    return static_cast<unsigned>(weak_memory::load(*x, x->done, Ordering::relaxed));
}
} // namespace

void completion::describe(std::string& out) const {
    out += done == UINT_MAX ? std::string("done = all") : "done = " + std::to_string(done);
}

void init_completion(struct completion* x, std::source_location loc) {
    reinit_completion(x, loc);
}

void reinit_completion(struct completion* x, std::source_location loc) {
    this_execution().visible("reinit_completion", x, loc);
    // x->done = 0, a plain store with no lock.
    if (!weak_memory::on() || weak_memory::store(*x, x->done, 0, Ordering::relaxed)) x->done = 0;
}

void wait_for_completion(struct completion* x, std::source_location loc) {
    might_sleep("wait_for_completion", x, loc);
    this_execution().visible("wait_for_completion", x, loc, &is_done);
    count_sleep_if_blocked(x);
    consume(x);
}

bool try_wait_for_completion(struct completion* x, std::source_location loc) {
    this_execution().visible("try_wait_for_completion", x, loc);
    // A count of 0 seen without the lock returns at once; else it is checked again under it.
    bool ok = false;
    if (done_seen(x) > 0) {
        ok = x->done > 0;
        if (ok)
            consume(x);
        else
            set_done(x, x->done);
    }
    if (!ok) this_execution().nothing_written();
    this_execution().note(ok);
    return observed(ok);
}

bool completion_done(struct completion* x, std::source_location loc) {
    this_execution().visible_read("completion_done", x, loc);
    // A count seen nonzero waits for complete() to release the lock: taking it and letting go.
    const bool done = done_seen(x) > 0;
    if (done && weak_memory::on()) weak_memory::locked_update(*x, x->done, x->done);
    this_execution().note(done);
    return observed(done);
}

// complete() is a full barrier when it wakes a sleeper (try_to_wake_up()), none when nobody
// sleeps. Under lkmm it is none: a task blocked in wait_for_completion() here may, in the
// kernel, not have queued itself yet (nothing it does between its previous step and its sleep
// is seen by anyone), and then finds `done` set and takes it under x->wait.lock without
// sleeping; that execution has the same steps, no barrier, and every outcome the one with the
// wake-up has (docs/memory-model.md).
void complete(struct completion* x, std::source_location loc) {
    this_execution().visible("complete", x, loc);
    set_done(x, x->done != UINT_MAX ? x->done + 1 : x->done);
}

void complete_all(struct completion* x, std::source_location loc) {
    this_execution().visible("complete_all", x, loc);
    set_done(x, UINT_MAX);
}

} // namespace lockcheck::detail
