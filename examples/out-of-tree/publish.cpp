// publish: a configuration published to a lockless reader through a pointer, and retired. The
// updater fills a new object and publishes it with smp_store_release(); the reader loads the
// pointer with smp_load_acquire() and reads the object through it; the updater then
// unpublishes the object and frees it. docs/writing-models.md, "9. Pointers", shows it: freed
// before the reader is done, the reader's read is KASAN's use-after-free of the object;
// published with a plain WRITE_ONCE(), under --memory-model lkmm the reader can find the
// object before its fields.
#include <lockcheck/lockcheck.hpp>

namespace publish {

using namespace lockcheck;

struct config {
    explicit config(const std::string& name) : timeout(name + ".timeout") {}
    shared<int> timeout;
};

struct state {
    shared<config*> active{"active"}; // the published pointer
    completion reader_done{"reader_done"};
};

// How the updater publishes and retires, as data on one model.
struct Policy {
    bool release = true;         // smp_store_release() of the pointer, else WRITE_ONCE()
    bool wait_for_reader = true; // the free waits for the reader, else it comes at once
};

void updater(state* s, const Policy& p) {
    config* c = kmalloc<config>("cfg", "cfg");
    WRITE_ONCE(c->timeout, 30);
    if (p.release)
        smp_store_release(&s->active, c);
    else
        WRITE_ONCE(s->active, c);
    WRITE_ONCE(s->active, nullptr); // retire it: new readers find none
    if (p.wait_for_reader) wait_for_completion(&s->reader_done);
    kfree(c);
}

void reader(state* s) {
    config* c = smp_load_acquire(&s->active);
    if (c) check(READ_ONCE(c->timeout) == 30, "a published config is filled");
    complete(&s->reader_done);
}

const Policy kPolicies[] = {{true, true}, {true, false}, {false, true}};

void setup(std::size_t variant, const ParameterValues&) {
    state& s = model_state<state>();
    const Policy& p = kPolicies[variant];
    spawn("updater", [&s, &p] { updater(&s, p); });
    spawn("reader", [&s] { reader(&s); });
}

Protocol model() {
    return Protocol{
        .name = "publish",
        .summary = "a config published to a lockless reader by pointer, then retired and freed",
        .variants =
            {{"wait-for-reader", "release, acquire, and the free waits for the reader",
              Expectation::verified()},
             {"free-at-once", "the free does not wait for a reader that found the config",
              Expectation::violation(ViolationKind::use_after_free, "use-after-free of cfg")},
             {"plain-publish", "the pointer published with WRITE_ONCE(), not released",
              Expectation::verified(), 0,
              Expectation::violation(ViolationKind::check_failed, "a published config is filled")}},
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(model);

} // namespace publish
