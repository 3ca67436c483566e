// rcu-lookup: an RCU-protected pointer to a configuration, looked up by a reader inside
// rcu_read_lock() and replaced by an updater, which frees the old one. docs/writing-models.md,
// "11. RCU", shows it: freed without waiting for a grace period, the reader's read is KASAN's
// use-after-free naming the read-side section the free did not wait for; published with a plain
// WRITE_ONCE(), under --memory-model lkmm the reader can find the new object before its fields.
#include <lockcheck/lockcheck.hpp>

namespace rcu_lookup {

using namespace lockcheck;

struct config {
    config(const std::string& name, int t) : timeout(name + ".timeout", t) {}
    shared<int> timeout;
    rcu_head rcu;
};

struct state {
    config* first = kmalloc<config>("old", "old", 30);
    shared<config*> active{"active", first}; // the RCU-protected pointer
    spinlock_t lock{"lock"};                 // serializes updaters
};

// How the updater publishes and retires, as data on one model.
enum class Retire { synchronize_rcu, kfree_rcu, at_once };
struct Policy {
    bool assign = true; // rcu_assign_pointer() of the new config, else WRITE_ONCE()
    Retire retire = Retire::synchronize_rcu;
};

void updater(state* s, const Policy& p) {
    config* c = kmalloc<config>("new", "new", 0);
    WRITE_ONCE(c->timeout, 60);
    spin_lock(&s->lock);
    config* old = rcu_dereference_protected(s->active, lockdep_is_held(&s->lock));
    if (p.assign)
        rcu_assign_pointer(s->active, c);
    else
        WRITE_ONCE(s->active, c);
    spin_unlock(&s->lock);
    if (p.retire == Retire::synchronize_rcu) {
        synchronize_rcu();
        kfree(old);
    } else if (p.retire == Retire::kfree_rcu) {
        kfree_rcu(old, &config::rcu);
    } else {
        kfree(old);
    }
}

void reader(state* s) {
    rcu_read_lock();
    config* c = rcu_dereference(s->active);
    check(READ_ONCE(c->timeout) != 0, "a published config is filled");
    rcu_read_unlock();
}

const Policy kPolicies[] = {{true, Retire::synchronize_rcu},
                            {true, Retire::kfree_rcu},
                            {true, Retire::at_once},
                            {false, Retire::synchronize_rcu}};

void setup(std::size_t variant, const ParameterValues&) {
    state& s = model_state<state>();
    const Policy& p = kPolicies[variant];
    spawn("reader", [&s] { reader(&s); });
    spawn("updater", [&s, &p] { updater(&s, p); });
}

Protocol model() {
    return Protocol{
        .name = "rcu-lookup",
        .summary = "an RCU-protected config looked up by a reader, replaced and freed",
        .variants =
            {{"synchronize-rcu", "rcu_assign_pointer(), and the free after synchronize_rcu()",
              Expectation::verified()},
             {"kfree-rcu", "the old config freed by kfree_rcu()", Expectation::verified()},
             {"free-at-once", "the free does not wait for a grace period",
              Expectation::violation(ViolationKind::use_after_free, "use-after-free of old")},
             {"plain-publish", "the new config published with WRITE_ONCE()",
              Expectation::verified(), 0,
              Expectation::violation(ViolationKind::check_failed, "a published config is filled")}},
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(model);

} // namespace rcu_lookup
