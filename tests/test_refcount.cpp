// refcount_t, kref and atomic_dec_and_lock: each operation does what include/linux/refcount.h,
// kref.h and lib/dec_and_lock.c do, the kernel's WARNs are `refcount` violations, the
// dec-and-lock family takes its steps one scheduling point at a time, and the lookup-against-
// final-put models of Documentation/core-api/kref.rst come out as the kernel says: a get that
// may see 0 is a bug, kref_get_unless_zero() or a put that drops the last reference under the
// lookup's lock is not. Every search that runs every execution finds the same.
#include <climits>
#include <string>

#include "checker/trace.hpp"

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// Runs `body` as the one task of a model, handing it the string it reports into, and returns
// that string. A test cannot assert inside task code, so the task only records.
template <class Body> std::string one_task(Body body) {
    std::string seen = "(the task never finished)";
    const SearchResult r = check_model([&seen, body] {
        spawn("t", [&seen, body] {
            seen.clear();
            body(seen);
        });
    });
    expect_verified(r);
    return seen;
}

void say(std::string& out, const std::string& what, long long value) {
    out += (out.empty() ? "" : " ") + what + "=" + std::to_string(value);
}

// "t op(args, object) -> value" for each step, comma-separated.
std::string steps_of(const Trace& trace) {
    std::string out;
    for (const TraceStep& s : trace.steps) {
        out += (out.empty() ? "" : ", ") + s.task + " " + s.operation + "(";
        for (std::int64_t a : s.args)
            out += std::to_string(a) + ", ";
        out += s.object + ")";
        if (s.value) out += " -> " + std::to_string(*s.value);
    }
    return out;
}

// A model of one refcount_t and the WARN a single task makes it give.
struct Warning {
    const char* what;
    int start;
    void (*op)(refcount_t* r);
    const char* property;
    const char* message;
};

} // namespace

TEST_GROUP(Refcount){};

TEST(Refcount, gets_and_puts_count_as_the_kernel_does) {
    const std::string seen = one_task([](std::string& out) {
        auto* r = &this_execution().make<refcount_t>("r", 1);
        refcount_inc(r);
        refcount_add(2, r);
        say(out, "after inc and add 2", refcount_read(r));
        say(out, "sub 3 is last", refcount_sub_and_test(3, r));
        say(out, "inc_not_zero", refcount_inc_not_zero(r));
        say(out, "add_not_zero 2", refcount_add_not_zero(2, r));
        refcount_dec(r);
        say(out, "dec_not_one at 3", refcount_dec_not_one(r));
        say(out, "dec_not_one at 2", refcount_dec_not_one(r));
        say(out, "dec_not_one at 1", refcount_dec_not_one(r));
        say(out, "dec_and_test at 1", refcount_dec_and_test(r));
        say(out, "inc_not_zero at 0", refcount_inc_not_zero(r));
        say(out, "read", refcount_read(r));
        refcount_set(r, 7);
        say(out, "set", r->peek());
    });
    CHECK_EQUAL("after inc and add 2=4 sub 3 is last=0 inc_not_zero=1 add_not_zero 2=1 "
                "dec_not_one at 3=1 dec_not_one at 2=1 dec_not_one at 1=0 dec_and_test at 1=1 "
                "inc_not_zero at 0=0 read=0 set=7",
                seen);
}

TEST(Refcount, each_warning_of_the_kernel_is_a_refcount_violation_in_its_words) {
    const Warning warnings[] = {
        {"inc at 0", 0, [](refcount_t* r) { refcount_inc(r); }, "addition-on-0",
         "refcount_t: addition on 0; use-after-free. refcount_inc(r) by t"},
        {"add at 0", 0, [](refcount_t* r) { refcount_add(2, r); }, "addition-on-0",
         "refcount_t: addition on 0; use-after-free. refcount_add(r) by t"},
        {"dec_and_test at 0", 0, [](refcount_t* r) { (void)refcount_dec_and_test(r); }, "underflow",
         "refcount_t: underflow; use-after-free. refcount_dec_and_test(r) by t"},
        {"sub_and_test below 0", 1, [](refcount_t* r) { (void)refcount_sub_and_test(2, r); },
         "underflow", "refcount_t: underflow; use-after-free. refcount_sub_and_test(r) by t"},
        {"dec_not_one at 0", 0, [](refcount_t* r) { (void)refcount_dec_not_one(r); }, "underflow",
         "refcount_t: underflow; use-after-free. refcount_dec_not_one(r) by t"},
        {"dec of the last reference", 1, [](refcount_t* r) { refcount_dec(r); }, "decrement-hit-0",
         "refcount_t: decrement hit 0; leaking memory. refcount_dec(r) by t"},
        {"inc past INT_MAX", INT_MAX, [](refcount_t* r) { refcount_inc(r); }, "saturated",
         "refcount_t: saturated; leaking memory. refcount_inc(r) by t"},
        {"inc_not_zero past INT_MAX", INT_MAX,
         [](refcount_t* r) { (void)refcount_inc_not_zero(r); }, "saturated",
         "refcount_t: saturated; leaking memory. refcount_inc_not_zero(r) by t"},
    };
    for (const Warning& w : warnings) {
        const SearchResult r = check_model([&w] {
            auto* count = &this_execution().make<refcount_t>("r", w.start);
            spawn("t", [&w, count] { w.op(count); });
        });
        const Violation& v = only_violation(r, w.what);
        CHECK_EQUAL_TEXT(ViolationKind::refcount, v.kind, w.what);
        CHECK_EQUAL_TEXT(w.property, v.property, w.what);
        CHECK_EQUAL_TEXT(w.message, v.message, w.what);
    }
}

TEST(Refcount, a_warning_saturates_the_count) {
    std::string state;
    (void)check_model([&state] {
        auto* r = &this_execution().make<refcount_t>("r");
        spawn("t", [r, &state] {
            state = "not yet";
            try {
                refcount_inc(r);
            } catch (...) {
                state = std::to_string(r->peek());
                throw; // the execution's unwinding goes on
            }
        });
    });
    CHECK_EQUAL(std::to_string(REFCOUNT_SATURATED), state);
}

TEST(Refcount, dec_and_lock_takes_the_lock_only_for_the_last_reference) {
    const std::string seen = one_task([](std::string& out) {
        auto* r = &this_execution().make<refcount_t>("r", 2);
        auto* lock = &this_execution().make<spinlock_t>("lock");
        auto* m = &this_execution().make<struct mutex>("m");
        say(out, "spin at 2", refcount_dec_and_lock(r, lock));
        say(out, "held", lock->owner != nullptr);
        say(out, "spin at 1", refcount_dec_and_lock(r, lock));
        say(out, "held", lock->owner == current());
        say(out, "count", r->peek());
        spin_unlock(lock);
        refcount_set(r, 2);
        say(out, "mutex at 2", refcount_dec_and_mutex_lock(r, m));
        say(out, "held", m->owner != nullptr);
        say(out, "mutex at 1", refcount_dec_and_mutex_lock(r, m));
        say(out, "held", m->owner == current());
        mutex_unlock(m);
    });
    CHECK_EQUAL("spin at 2=0 held=0 spin at 1=1 held=1 count=0 mutex at 2=0 held=0 mutex at 1=1 "
                "held=1",
                seen);
}

TEST(Refcount, atomic_dec_and_lock_takes_the_lock_only_when_the_count_reaches_zero) {
    const std::string seen = one_task([](std::string& out) {
        auto* v = &this_execution().make<atomic_t>("v", 2);
        auto* lock = &this_execution().make<spinlock_t>("lock");
        say(out, "at 2", atomic_dec_and_lock(v, lock));
        say(out, "held", lock->owner != nullptr);
        say(out, "at 1", atomic_dec_and_lock(v, lock));
        say(out, "held", lock->owner == current());
        say(out, "count", v->peek());
        spin_unlock(lock);
        say(out, "add_unless at 0", atomic_add_unless(v, 5, 0));
        say(out, "add_unless at 0 unless 1", atomic_add_unless(v, 5, 1));
        say(out, "inc_not_zero at 5", atomic_inc_not_zero(v));
        atomic_set(v, 0);
        say(out, "inc_not_zero at 0", atomic_inc_not_zero(v));
        say(out, "count", v->peek());
    });
    CHECK_EQUAL("at 2=0 held=0 at 1=1 held=1 count=0 add_unless at 0=0 add_unless at 0 unless "
                "1=1 inc_not_zero at 5=1 inc_not_zero at 0=0 count=0",
                seen);
}

TEST(Refcount, dec_and_lock_is_three_scheduling_points_where_another_get_can_come_in) {
    // The last reference's put: its fast path fails at 1, a lookup takes a reference under
    // the lock before the put gets the lock, and the put's locked decrement is then not the
    // last after all, as in the kernel.
    struct Model {
        atomic_t count{"count", 1};
        refcount_t refs{"refs", 1};
        spinlock_t lock{"lock"};
    };
    for (bool refcount : {false, true}) {
        const std::string what = refcount ? "refcount_dec_and_lock" : "atomic_dec_and_lock";
        int last = -1;
        const Setup setup = [refcount, &last] {
            auto& m = this_execution().make<Model>();
            spawn("put", [&m, refcount, &last] {
                last = refcount ? refcount_dec_and_lock(&m.refs, &m.lock)
                                : atomic_dec_and_lock(&m.count, &m.lock);
            });
            spawn("lookup", [&m, refcount] {
                spin_lock(&m.lock);
                if (refcount)
                    refcount_inc(&m.refs);
                else
                    atomic_inc(&m.count);
                spin_unlock(&m.lock);
            });
        };
        const ReplayResult rr = replay(setup, Schedule{0, 1, 1, 1, 0, 0, 0}, CheckOptions{});
        CHECK_TEXT(rr.ok, (what + ": " + rr.error).c_str());
        CHECK_TEXT(rr.outcome.end == End::finished, what.c_str());
        CHECK_EQUAL_TEXT(refcount ? "put refcount_dec_not_one(refs) -> 1, lookup spin_lock(lock), "
                                    "lookup refcount_inc(refs) -> 2, lookup spin_unlock(lock), "
                                    "put spin_lock(lock), put refcount_dec_and_test(refs) -> 1, "
                                    "put spin_unlock(lock)"
                                  : "put atomic_add_unless(-1, 1, count) -> 1, lookup "
                                    "spin_lock(lock), lookup atomic_inc(count) -> 2, lookup "
                                    "spin_unlock(lock), put spin_lock(lock), put "
                                    "atomic_dec_and_test(count) -> 1, put spin_unlock(lock)",
                         steps_of(rr.trace), what.c_str());
        CHECK_EQUAL_TEXT(0, last, what.c_str());
    }
}

TEST(Refcount, kref_steps_are_traced_under_the_kref_names) {
    const Setup setup = [] {
        auto& k = this_execution().make<struct kref>("k");
        spawn("t", [&k] {
            kref_init(&k);
            kref_get(&k);
            (void)kref_get_unless_zero(&k);
            (void)kref_read(&k);
            kref_put(&k, [](struct kref*) {});
        });
    };
    const ReplayResult rr = replay(setup, Schedule{0, 0, 0, 0, 0}, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    CHECK_EQUAL("t kref_init(k) -> 1, t kref_get(k) -> 2, t kref_get_unless_zero(k) -> 3, "
                "t kref_read(k) -> 3, t kref_put(k) -> 2",
                steps_of(rr.trace));
}

namespace {

// Documentation/core-api/kref.rst's lookup: a table of one object, found under the table's
// lock, against the puts of its references, the last of which removes it from the table and
// frees it.
enum class Get { unless_zero, plain };
enum class Put { kref_put, kref_put_lock };

struct table;

struct object {
    object(const std::string& name, table* in)
        : ref(name + ".ref", 1), data(name + ".data"), owner(in) {}
    struct kref ref;
    atomic_t data;
    table* owner;
};

struct table {
    spinlock_t lock{"table.lock"};
    shared<bool> present{"table.present", true};
    object* entry = nullptr; // set at set-up, never changed: what `present` says is there
};

// kref_put()'s release: takes the table's lock to remove the object, then frees it.
void release(struct kref* k) {
    object* o = container_of(k, &object::ref);
    spin_lock(&o->owner->lock);
    WRITE_ONCE(o->owner->present, false);
    spin_unlock(&o->owner->lock);
    kfree(o);
}

// kref_put_lock()'s release: the table's lock is held already.
void release_locked(struct kref* k) {
    object* o = container_of(k, &object::ref);
    WRITE_ONCE(o->owner->present, false);
    spin_unlock(&o->owner->lock);
    kfree(o);
}

void put(object* o, Put how) {
    if (how == Put::kref_put)
        kref_put(&o->ref, release);
    else
        kref_put_lock(&o->ref, release_locked, &o->owner->lock);
}

Setup lookup_against_put(Get get, Put how, bool lookup_locked) {
    return [=] {
        auto& t = this_execution().make<table>();
        t.entry = kmalloc<object>("obj", "obj", &t);
        spawn("lookup", [&t, get, how, lookup_locked] {
            object* found = nullptr;
            if (lookup_locked) spin_lock(&t.lock);
            if (READ_ONCE(t.present)) {
                if (get == Get::plain) {
                    kref_get(&t.entry->ref);
                    found = t.entry;
                } else if (kref_get_unless_zero(&t.entry->ref)) {
                    found = t.entry;
                }
            }
            if (lookup_locked) spin_unlock(&t.lock);
            if (!found) return;
            atomic_inc(&found->data);
            put(found, how);
        });
        spawn("put", [&t, how] { put(t.entry, how); });
    };
}

} // namespace

TEST(Refcount, kref_get_unless_zero_under_the_lock_is_safe_against_the_final_kref_put) {
    const Setup setup = lookup_against_put(Get::unless_zero, Put::kref_put, true);
    expect_verified_by_every_search(setup, "get_unless_zero, kref_put");
    expect_dpor_reaches_what_dfs_does(setup, "get_unless_zero, kref_put");
}

TEST(Refcount, kref_get_under_the_lock_against_the_final_kref_put_is_an_addition_on_zero) {
    const Setup setup = lookup_against_put(Get::plain, Put::kref_put, true);
    expect_found_by_every_search(setup, ViolationKind::refcount, "addition-on-0",
                                 "kref_get, kref_put");
    expect_dpor_reaches_what_dfs_does(setup, "kref_get, kref_put");
}

TEST(Refcount, kref_get_under_the_lock_is_safe_against_kref_put_lock) {
    const Setup setup = lookup_against_put(Get::plain, Put::kref_put_lock, true);
    expect_verified_by_every_search(setup, "kref_get, kref_put_lock");
    expect_dpor_reaches_what_dfs_does(setup, "kref_get, kref_put_lock");
}

TEST(Refcount, a_lookup_without_the_lock_uses_the_object_after_the_final_put_freed_it) {
    const Setup setup = lookup_against_put(Get::unless_zero, Put::kref_put, false);
    expect_found_by_every_search(setup, ViolationKind::use_after_free, "use-after-free of obj",
                                 "unlocked lookup");
    expect_dpor_reaches_what_dfs_does(setup, "unlocked lookup");
}

namespace {

// The same lookup with a bare atomic_t count, as lib/dec_and_lock.c's users write it: the
// lookup's atomic_inc() under the lock is safe only if the count reaches 0 under that lock.
struct counted {
    explicit counted(const std::string& name) : refs(name + ".refs", 1), data(name + ".data") {}
    atomic_t refs;
    atomic_t data;
};

struct counted_table {
    spinlock_t lock{"table.lock"};
    shared<bool> present{"table.present", true};
    counted* entry = nullptr;
};

void put_counted(counted_table& t, bool dec_and_lock) {
    if (dec_and_lock) {
        if (!atomic_dec_and_lock(&t.entry->refs, &t.lock)) return;
    } else {
        if (!atomic_dec_and_test(&t.entry->refs)) return;
        spin_lock(&t.lock);
    }
    WRITE_ONCE(t.present, false);
    spin_unlock(&t.lock);
    kfree(t.entry);
}

Setup counted_lookup(bool dec_and_lock) {
    return [=] {
        auto& t = this_execution().make<counted_table>();
        t.entry = kmalloc<counted>("obj", "obj");
        spawn("lookup", [&t, dec_and_lock] {
            spin_lock(&t.lock);
            const bool found = READ_ONCE(t.present);
            if (found) atomic_inc(&t.entry->refs);
            spin_unlock(&t.lock);
            if (!found) return;
            atomic_inc(&t.entry->data);
            put_counted(t, dec_and_lock);
        });
        spawn("put", [&t, dec_and_lock] { put_counted(t, dec_and_lock); });
    };
}

} // namespace

TEST(Refcount, atomic_dec_and_lock_makes_a_lookup_under_the_lock_safe) {
    expect_verified_by_every_search(counted_lookup(true), "atomic_dec_and_lock");
    expect_dpor_reaches_what_dfs_does(counted_lookup(true), "atomic_dec_and_lock");
}

TEST(Refcount, atomic_dec_and_test_before_the_lock_lets_a_lookup_revive_a_freed_object) {
    // Of the object's refs or data, as the search happens to come to it first.
    expect_found_by_every_search(counted_lookup(false), ViolationKind::use_after_free, "",
                                 "dec_and_test, then lock");
    expect_dpor_reaches_what_dfs_does(counted_lookup(false), "dec_and_test, then lock");
}
