// What orders the model's objects under --memory-model lkmm beyond the barriers and atomics the
// litmus tests cover: a list_head's fields, accessed as include/linux/list.h accesses them; the
// readers of an rw_semaphore, whose up_read() releases reach the next writer through the
// count's read-modify-writes; the atomic sections of the tasks of one CPU, one after another
// with a context switch between them; a task and the one it spawns. Each ordered model
// verifies, and the same accesses without the ordering are a data race by LKMM's definition.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::testing;

namespace {

struct Lists {
    list_head head{"head"};
    list_head a{"a"};
    list_head b{"b"};
    spinlock_t lock{"lock"};
    struct rw_semaphore sem {
        "sem"
    };
    shared<int> x{"x"};
    shared<int> y{"y"};
};

SearchResult check_lkmm(const Setup& setup) {
    CheckOptions options;
    options.memory_model = MemoryModel::lkmm;
    return check_model(setup, options);
}

void expect_no_race(const Setup& setup, const std::string& what) {
    const SearchResult r = check_lkmm(setup);
    expect_verified(r, what);
    CHECK_TEXT(r.stats.executions > 1, what.c_str());
}

const Violation& expect_race_on(const SearchResult& r, const std::string& object) {
    const Violation& v = only_violation(r, object);
    CHECK_EQUAL(ViolationKind::data_race, v.kind);
    CHECK_EQUAL("data race on " + object, v.property);
    return v;
}

} // namespace

TEST_GROUP(LkmmOrdering){};

TEST(LkmmOrdering, two_tasks_adding_to_one_list_without_a_lock_race_on_its_head) {
    const SearchResult r = check_lkmm([] {
        auto& l = this_execution().make<Lists>();
        spawn("one", [&l] { list_add_tail(&l.a, &l.head); });
        spawn("two", [&l] { list_add_tail(&l.b, &l.head); });
    });
    // Under sc a list operation is one atomic step; LKMM sees its plain stores.
    expect_race_on(r, "head");
    expect_verified(check_model([] {
        auto& l = this_execution().make<Lists>();
        spawn("one", [&l] { list_add_tail(&l.a, &l.head); });
        spawn("two", [&l] { list_add_tail(&l.b, &l.head); });
    }));
}

TEST(LkmmOrdering, list_operations_under_one_spinlock_never_race) {
    expect_no_race(
        [] {
            auto& l = this_execution().make<Lists>();
            spawn("adder", [&l] {
                spin_lock(&l.lock);
                list_add_tail(&l.a, &l.head);
                spin_unlock(&l.lock);
            });
            spawn("deleter", [&l] {
                spin_lock(&l.lock);
                if (!list_empty(&l.head)) list_del_init(l.head.next);
                spin_unlock(&l.lock);
            });
        },
        "a list under a spinlock");
}

// list_empty() is READ_ONCE(head->next) and list_add()'s store to it WRITE_ONCE(): no race, and
// with no barrier on either side the peeker may see the flag set after the add and the list
// still empty (message passing without barriers), as sequential consistency never lets it.
TEST(LkmmOrdering, a_lockless_list_empty_may_see_an_older_list_without_a_race) {
    const Setup setup = [] {
        auto& l = this_execution().make<Lists>();
        spawn("adder", [&l] {
            list_add(&l.a, &l.head);
            WRITE_ONCE(l.x, 1);
        });
        spawn("peeker", [&l] {
            const int added = READ_ONCE(l.x);
            if (added && list_empty(&l.head)) l.y.write_once(1);
        });
        final_check("the flag implies the entry", [&l] { return l.y.peek() == 0; });
    };
    expect_verified(check_model(setup), "list_empty under sc");
    const SearchResult r = check_lkmm(setup);
    CHECK_EQUAL(ViolationKind::final_check, only_violation(r, "list_empty under lkmm").kind);
}

TEST(LkmmOrdering, readers_leaving_in_any_order_are_all_ordered_before_the_next_writer) {
    expect_no_race(
        [] {
            auto& l = this_execution().make<Lists>();
            spawn("reader0", [&l] {
                down_read(&l.sem);
                l.x.write(1); // exclusive of the writer only: it alone writes x under read
                up_read(&l.sem);
            });
            spawn("reader1", [&l] {
                down_read(&l.sem);
                l.y.write(1);
                up_read(&l.sem);
            });
            spawn("writer", [&l] {
                down_write(&l.sem);
                l.x.write(l.x.read() + l.y.read());
                up_write(&l.sem);
            });
        },
        "rwsem readers then a writer");
}

TEST(LkmmOrdering, tasks_on_one_cpu_take_turns_in_atomic_context_and_are_ordered) {
    const Setup setup = [] {
        auto& l = this_execution().make<Lists>();
        for (const char* name : {"a", "b"})
            spawn(name, [&l] {
                preempt_disable();
                l.x.write(l.x.read() + 1);
                preempt_enable();
            });
        final_check("both counted", [&l] { return l.x.peek() == 2; });
    };
    expect_no_race(setup, "one CPU, preemption off");
}

TEST(LkmmOrdering, preempt_disable_waits_for_another_tasks_atomic_section_on_the_cpu) {
    const SearchResult r = check_lkmm([] {
        auto& l = this_execution().make<Lists>();
        spawn("a", [&l] {
            preempt_disable();
            WRITE_ONCE(l.y, 1);
            WRITE_ONCE(l.y, 0);
            preempt_enable();
        });
        spawn("b", [&l] {
            preempt_disable();
            WRITE_ONCE(l.x, READ_ONCE(l.y));
            preempt_enable();
        });
        final_check("b never ran inside a's section", [&l] { return l.x.peek() == 0; });
    });
    expect_verified(r, "a CPU runs one atomic section at a time");
}

TEST(LkmmOrdering, what_a_task_did_before_spawning_another_is_ordered_before_it) {
    const SearchResult r = check_lkmm([] {
        auto& l = this_execution().make<Lists>();
        spawn("parent", [&l] {
            l.x.write(1);
            spawn("child", [&l] { l.y.write(l.x.read()); });
        });
        final_check("the child read the parent's write", [&l] { return l.y.peek() == 1; });
    });
    expect_verified(r, "spawn");
}
