// Completions after kernel/sched/completion.c.
#include "completion.hpp"

#include "sched.hpp"

namespace lockcheck {

namespace {
bool is_done(const Object* obj, const Task&) {
    return static_cast<const struct completion*>(obj)->done > 0;
}
void consume(struct completion* x) {
    if (x->done != UINT_MAX) --x->done;
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
    x->done = 0;
}

void wait_for_completion(struct completion* x, std::source_location loc) {
    might_sleep("wait_for_completion", x, loc);
    this_execution().visible("wait_for_completion", x, loc, &is_done);
    count_sleep_if_blocked(x);
    consume(x);
}

bool try_wait_for_completion(struct completion* x, std::source_location loc) {
    this_execution().visible("try_wait_for_completion", x, loc);
    bool ok = x->done > 0;
    if (ok)
        consume(x);
    else
        this_execution().nothing_written();
    this_execution().note(ok);
    return observed(ok);
}

bool completion_done(struct completion* x, std::source_location loc) {
    this_execution().visible_read("completion_done", x, loc);
    this_execution().note(x->done > 0);
    return observed(x->done > 0);
}

void complete(struct completion* x, std::source_location loc) {
    this_execution().visible("complete", x, loc);
    if (x->done != UINT_MAX) ++x->done;
}

void complete_all(struct completion* x, std::source_location loc) {
    this_execution().visible("complete_all", x, loc);
    x->done = UINT_MAX;
}

} // namespace lockcheck
