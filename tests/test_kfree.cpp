// kmalloc and kfree with KASAN's checks: after kfree() the scheduling point of an operation on
// any object inside the freed memory is a use-after-free naming the object, the task, the
// operation and the step that freed it; a second kfree() is a double-free, kfree() of a
// pointer kmalloc() did not return an invalid-free, kfree(NULL) nothing. Objects outside the
// memory, and the memory itself (its quarantine), are untouched. DFS, source and optimal DPOR
// find the same, and allocations keep optimal DPOR at one execution per trace.
#include <string>

#include "checker/trace.hpp"
#include "harness.hpp"
#include "trace_classes.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// One of everything a model shares, in one allocation.
struct item {
    explicit item(const std::string& name)
        : count(name + ".count"), lock(name + ".lock"), m{name + ".mutex"}, refs(name + ".refs", 1),
          ref(name + ".ref", 1), value(name + ".value"), node(name + ".node"), done(name + ".done"),
          wq(name + ".wq") {}
    atomic_t count;
    spinlock_t lock;
    struct mutex m;
    refcount_t refs;
    struct kref ref;
    shared<int> value;
    list_head node;
    completion done;
    wait_queue_head_t wq;
};

// The violation of a single task that allocates an item, frees it, then runs `use` on it.
Violation use_after_kfree(void (*use)(item* it), const std::string& what) {
    const SearchResult r = check_model([use] {
        spawn("t", [use] {
            item* it = kmalloc<item>("it", "it");
            kfree(it);
            use(it);
        });
    });
    return only_violation(r, what);
}

} // namespace

TEST_GROUP(Kfree){};

TEST(Kfree, an_operation_on_an_object_in_freed_memory_is_a_use_after_free_naming_both_steps) {
    const SearchResult r = check_model([] {
        auto* it = kmalloc<item>("obj", "obj"); // at set-up: no scheduling point
        spawn("user", [it] {
            atomic_inc(&it->count);
            atomic_inc(&it->count);
        });
        spawn("freer", [it] { kfree(it); });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::use_after_free, v.kind);
    // The property names the freed object, the detail line the field used.
    CHECK_EQUAL("use-after-free of obj", v.property);
    CHECK_EQUAL(1u, v.details.size());
    CHECK_EQUAL("field used after the free: obj.count", v.details.front());
    // DFS runs user first: its first increment, then freer's kfree, then the second increment.
    CHECK_EQUAL("BUG: KASAN: use-after-free in atomic_inc(obj.count) by user at step 3; obj: "
                "freed by freer at step 2",
                v.message);
    CHECK_EQUAL(3u, v.step);
}

TEST(Kfree, every_kind_of_object_inside_the_freed_memory_is_checked) {
    struct Use {
        const char* object;
        void (*use)(item* it);
    };
    const Use uses[] = {
        {"it.count", [](item* it) { (void)atomic_read(&it->count); }},
        {"it.lock", [](item* it) { spin_lock(&it->lock); }},
        {"it.mutex", [](item* it) { mutex_lock(&it->m); }},
        {"it.refs", [](item* it) { refcount_inc(&it->refs); }},
        {"it.ref", [](item* it) { (void)kref_get_unless_zero(&it->ref); }},
        {"it.value", [](item* it) { it->value.write(1); }},
        {"it.node", [](item* it) { INIT_LIST_HEAD(&it->node); }},
        {"it.done", [](item* it) { complete(&it->done); }},
        {"it.wq", [](item* it) { wake_up(&it->wq); }},
    };
    for (const Use& u : uses) {
        const Violation v = use_after_kfree(u.use, u.object);
        CHECK_EQUAL_TEXT(ViolationKind::use_after_free, v.kind, u.object);
        CHECK_EQUAL_TEXT(std::string("use-after-free of it"), v.property, u.object);
        CHECK_EQUAL_TEXT(std::string("field used after the free: ") + u.object, v.details.front(),
                         u.object);
    }
}

TEST(Kfree, objects_outside_the_freed_memory_live_on) {
    // `outer` allocates `inner` in its constructor: inner registers among outer's objects,
    // but lives in memory of its own.
    struct outer {
        outer() : lock("outer.lock"), inner(kmalloc<item>("inner", "inner")) {}
        spinlock_t lock;
        item* inner;
    };
    const SearchResult r = check_model([] {
        auto& kept = this_execution().make<atomic_t>("kept");
        spawn("t", [&kept] {
            outer* o = kmalloc<outer>("outer");
            item* other = kmalloc<item>("other", "other");
            item* inner = o->inner;
            kfree(o);
            atomic_inc(&kept);
            spin_lock(&inner->lock);
            spin_unlock(&inner->lock);
            atomic_inc(&other->count);
            kfree(inner);
            kfree(other);
        });
    });
    expect_verified(r);
}

TEST(Kfree, freed_memory_stays_in_quarantine_until_the_execution_ends) {
    // A final check may peek at freed objects (the model's own business): they hold what
    // they held when freed.
    const SearchResult r = check_model([] {
        auto** freed = &this_execution().make<item*>(nullptr);
        spawn("t", [freed] {
            item* it = kmalloc<item>("it", "it");
            atomic_set(&it->count, 42);
            kfree(it);
            *freed = it;
        });
        final_check("freed memory still holds its values", [freed] {
            return (*freed)->count.peek() == 42 && (*freed)->lock.name() == "it.lock";
        });
    });
    expect_verified(r);
}

TEST(Kfree, a_second_kfree_is_a_double_free) {
    const SearchResult r = check_model([] {
        spawn("t", [] {
            item* it = kmalloc<item>("obj", "obj");
            kfree(it);
            kfree(it);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::use_after_free, v.kind);
    CHECK_EQUAL("double-free of obj", v.property);
    CHECK_EQUAL("BUG: KASAN: double-free in kfree(obj) by t at step 3; obj: freed by t at step 2",
                v.message);
}

TEST(Kfree, kfree_of_a_pointer_inside_an_allocation_is_an_invalid_free) {
    const Setup setup = [] {
        spawn("t", [] {
            item* it = kmalloc<item>("obj", "obj");
            kfree(&it->lock);
        });
    };
    expect_found_by_every_search(setup, ViolationKind::invalid_free, "invalid-free", "inside");
    const SearchResult r = check_model(setup);
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::invalid_free, v.kind);
    CHECK_EQUAL("invalid-free", v.property);
    CHECK_EQUAL("BUG: KASAN: invalid-free in kfree(obj) by t at step 2: " +
                    std::to_string(member_offset(&item::lock)) + " bytes inside obj, not its start",
                v.message);
}

TEST(Kfree, kfree_of_memory_kmalloc_did_not_allocate_is_an_invalid_free) {
    const SearchResult r = check_model([] {
        auto& made = this_execution().make<item>("made");
        spawn("t", [&made] { kfree(&made); });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::invalid_free, v.kind);
    CHECK_EQUAL("BUG: KASAN: invalid-free in kfree by t at step 1: not a pointer kmalloc returned",
                v.message);
}

TEST(Kfree, kfree_of_null_does_nothing_and_is_no_scheduling_point) {
    const SearchResult r = check_model([] { spawn("t", [] { kfree(nullptr); }); });
    expect_verified(r);
    CHECK_EQUAL(0u, r.stats.steps);
}

TEST(Kfree, kmalloc_in_a_task_is_a_scheduling_point_and_kfree_shows_the_allocation) {
    const Setup setup = [] {
        (void)kmalloc<item>("early", "early");
        spawn("t", [] {
            item* it = kzalloc<item>("late", "late");
            kfree(it);
        });
    };
    const ReplayResult rr = replay(setup, Schedule{0, 0}, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    CHECK_EQUAL(2ul, rr.trace.steps.size());
    CHECK_EQUAL("kmalloc", rr.trace.steps[0].operation);
    CHECK_EQUAL("slab", rr.trace.steps[0].object);
    CHECK_EQUAL("in use: early, late", rr.trace.steps[0].state);
    CHECK_EQUAL("kfree", rr.trace.steps[1].operation);
    CHECK_EQUAL("late", rr.trace.steps[1].object);
    CHECK_EQUAL("freed by t at step 2", rr.trace.steps[1].state);
}

TEST(Kfree, the_trace_marks_the_state_of_an_object_in_freed_memory) {
    const Setup setup = [] {
        auto* it = kmalloc<item>("obj", "obj");
        spawn("t", [it] {
            kfree(it);
            atomic_inc(&it->count);
        });
    };
    const ReplayResult rr = replay(setup, Schedule{0, 0}, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    CHECK_EQUAL(2ul, rr.trace.steps.size());
    CHECK_EQUAL("= 0 (freed)", rr.trace.steps[1].state);
}

TEST(Kfree, kmalloc_value_initializes_a_plain_struct) {
    struct plain {
        int a;
        long b;
    };
    bool zero = false;
    expect_verified(check_model([&zero] {
        spawn("t", [&zero] {
            plain* p = kmalloc<plain>("p");
            zero = p->a == 0 && p->b == 0;
            kfree(p);
        });
    }));
    CHECK(zero);
}

namespace {

// Two tasks share an allocation; one frees it while the other may still use it.
Setup free_while_in_use() {
    return [] {
        auto* it = kmalloc<item>("obj", "obj");
        spawn("user", [it] {
            spin_lock(&it->lock);
            it->value.write(1);
            spin_unlock(&it->lock);
        });
        spawn("freer", [it] { kfree(it); });
    };
}

// Both tasks drop a reference kept outside the object, and each frees the object if it
// then reads the count 0: both can.
Setup racy_put() {
    return [] {
        auto& refs = this_execution().make<atomic_t>("refs", 2);
        auto* it = kmalloc<item>("obj", "obj");
        for (const char* name : {"put0", "put1"})
            spawn(name, [&refs, it] {
                atomic_dec(&refs);
                if (atomic_read(&refs) == 0) kfree(it);
            });
    };
}

} // namespace

TEST(Kfree, every_exhaustive_search_finds_a_use_after_free_and_a_double_free) {
    struct Case {
        const char* what;
        Setup setup;
        const char* property;
    };
    const Case cases[] = {{"free while in use", free_while_in_use(), "use-after-free of obj"},
                          {"racy put", racy_put(), "double-free of obj"}};
    for (const Case& c : cases) {
        expect_found_by_every_search(c.setup, ViolationKind::use_after_free, c.property, c.what);
        expect_dpor_reaches_what_dfs_does(c.setup, c.what);
    }
}

TEST(Kfree, a_use_after_free_only_an_unlikely_order_reaches_is_found_by_every_search) {
    // The user touches the object last, after steps on objects the free does not touch: DPOR
    // must see that kfree conflicts with that last step although no earlier step of the user
    // touches the freed memory.
    const Setup setup = [] {
        auto& flag = this_execution().make<atomic_t>("flag");
        auto* it = kmalloc<item>("obj", "obj");
        spawn("user", [&flag, it] {
            atomic_inc(&flag);
            atomic_inc(&flag);
            atomic_inc(&it->count);
        });
        spawn("freer", [&flag, it] {
            if (atomic_read(&flag) == 0) kfree(it);
        });
    };
    expect_found_by_every_search(setup, ViolationKind::use_after_free, "use-after-free of obj",
                                 "unlikely order");
    expect_dpor_reaches_what_dfs_does(setup, "unlikely order");
}

TEST(Kfree, dpor_reaches_every_trace_of_tasks_that_allocate_and_share_what_they_allocate) {
    // Two tasks allocate, so the objects inside get their ids in the order of the
    // allocations; one publishes its object under a lock, and a third task uses what it finds
    // there. Ids that differed between equivalent executions would make DPOR confuse objects.
    struct table {
        spinlock_t lock{"table.lock"};
        item* slot = nullptr; // under `lock`
        // A step of each allocating task before it allocates: independent steps that run in
        // either order, so that the allocations can too.
        atomic_t a_started{"a_started"};
        atomic_t b_started{"b_started"};
    };
    const Setup setup = [] {
        auto& t = this_execution().make<table>();
        spawn("a", [&t] {
            atomic_inc(&t.a_started);
            item* it = kmalloc<item>("a", "a");
            spin_lock(&t.lock);
            t.slot = it;
            spin_unlock(&t.lock);
        });
        spawn("b", [&t] {
            atomic_inc(&t.b_started);
            item* it = kmalloc<item>("b", "b");
            atomic_inc(&it->count);
        });
        spawn("c", [&t] {
            spin_lock(&t.lock);
            item* found = t.slot;
            spin_unlock(&t.lock);
            if (found) atomic_inc(&found->count);
        });
    };
    const TraceClasses all = count_traces(setup, Search::dfs, 200);
    const TraceClasses source = count_traces(setup, Search::dpor, 200);
    const TraceClasses optimal = count_traces(setup, Search::optimal_dpor, 200);
    CHECK(all.traces > 1);
    CHECK_EQUAL(all.traces, source.traces);
    CHECK_EQUAL(all.traces, optimal.traces);
    CHECK_EQUAL(optimal.traces, optimal.finished);
    CHECK_EQUAL(0u, optimal.sleep_blocked);
    expect_dpor_reaches_what_dfs_does(setup, "allocating tasks");
}
