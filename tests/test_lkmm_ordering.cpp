// What orders the model's objects under --memory-model lkmm beyond the barriers and atomics the
// litmus tests cover: a list_head's fields, accessed as include/linux/list.h accesses them; the
// readers of an rw_semaphore, whose up_read() releases reach the next writer through the
// count's read-modify-writes; the atomic sections of the tasks of one CPU, one after another
// with a context switch between them; a task and the one it spawns; a percpu_counter's count
// and per-CPU slots; remove_cpu()'s stop_machine() and the online mask. Each ordered model
// verifies, and the same accesses without the ordering are a data race by LKMM's definition.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

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
    bool missed = false; // what a task saw, for a final check
};

// Two CPUs and a percpu_counter (it sizes its slots from them).
struct Counters : Lists {
    percpu_counter nr{"nr"};
};
Counters& counters() {
    set_nr_cpus(2);
    return this_execution().make<Counters>();
}

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

// The one violation is a broken final check: an outcome LKMM allows, seen.
void expect_final_check_broken(const SearchResult& r, const std::string& what) {
    CHECK_EQUAL_TEXT(ViolationKind::final_check, only_violation(r, what).kind, what.c_str());
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
                if (!list_empty(&l.head)) list_del_init(&l.a); // head.next: a is all it holds
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
    expect_final_check_broken(check_lkmm(setup), "list_empty under lkmm");
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

// __percpu_counter_sum() reads other CPUs' slots plainly under fbc->lock; the adding CPU's
// this_cpu_add() takes no lock.
TEST(LkmmOrdering, percpu_counter_sum_races_with_an_add_on_another_cpu_that_nothing_orders) {
    const auto model = [](bool locked) {
        return [locked] {
            auto& c = counters();
            spawn_on(0, "adder", [&c, locked] {
                if (locked) spin_lock(&c.lock);
                percpu_counter_add_batch(&c.nr, 1, 100);
                if (locked) spin_unlock(&c.lock);
            });
            spawn_on(1, "summer", [&c, locked] {
                if (locked) spin_lock(&c.lock);
                static_cast<void>(percpu_counter_sum(&c.nr));
                if (locked) spin_unlock(&c.lock);
            });
        };
    };
    expect_race_on(check_lkmm(model(false)), "nr");
    expect_verified(check_model(model(false)), "sum and add under sc");
    expect_no_race(model(true), "sum and add under a spinlock");
}

// The slot of a CPU is written only by this_cpu operations of its tasks, one at a time.
TEST(LkmmOrdering, adds_of_the_tasks_of_one_cpu_never_race) {
    expect_no_race(
        [] {
            auto& c = counters();
            for (const char* name : {"a", "b"})
                spawn_on(0, name, [&c] { percpu_counter_add_batch(&c.nr, 1, 100); });
            final_check("both counted", [&c] { return c.nr.peek_sum() == 2; });
        },
        "two adders on CPU 0");
}

// percpu_counter_read() is `return fbc->count;`, a plain read with no lock.
TEST(LkmmOrdering, percpu_counter_read_races_with_a_batch_folding_into_the_count) {
    const Setup setup = [] {
        auto& c = counters();
        spawn_on(0, "adder", [&c] { percpu_counter_add_batch(&c.nr, 5, 1); });
        spawn_on(1, "reader", [&c] { static_cast<void>(percpu_counter_read(&c.nr)); });
    };
    expect_race_on(check_lkmm(setup), "nr");
    expect_verified(check_model(setup), "percpu_counter_read under sc");
}

// A writer's plain store, then a flag another task reads with no barrier: the store is ordered
// before the reader's later plain read only if a remove_cpu() stands between them, whose
// stop_machine() every CPU takes part in.
TEST(LkmmOrdering, remove_cpu_orders_what_every_task_did_before_it) {
    const auto model = [](bool hotplug) {
        return [hotplug] {
            auto& c = counters();
            spawn_on(1, "writer", [&c] {
                c.x.write(1);
                WRITE_ONCE(c.y, 1);
            });
            spawn_on(0, "cpuhp", [&c, hotplug] {
                if (!READ_ONCE(c.y)) return;
                if (hotplug) remove_cpu(1);
                static_cast<void>(c.x.read());
            });
        };
    };
    expect_no_race(model(true), "remove_cpu between the flag and the read");
    expect_race_on(check_lkmm(model(false)), "x");
}

// After remove_cpu() no task sees the CPU online; after add_cpu(), which has no stop_machine(),
// a task that read the hotplug task's flag with no barrier may still see it offline.
TEST(LkmmOrdering, only_remove_cpu_makes_every_task_see_the_new_online_mask) {
    const auto model = [](bool bring_up) {
        return [bring_up] {
            auto& c = counters();
            spawn_on(0, "cpuhp", [&c, bring_up] {
                remove_cpu(1);
                if (bring_up) add_cpu(1);
                WRITE_ONCE(c.y, 1);
            });
            spawn_on(0, "reader", [&c, bring_up] {
                if (READ_ONCE(c.y) && cpu_online(1) != bring_up) c.x.write_once(1);
            });
            final_check("the reader saw the mask hotplug left", [&c] { return c.x.peek() == 0; });
        };
    };
    expect_no_race(model(false), "remove_cpu");
    expect_verified(check_model(model(true)), "add_cpu under sc");
    expect_final_check_broken(check_lkmm(model(true)), "add_cpu under lkmm");
}

// Store buffering around `between` in each of two tasks: whether both read 0 (LKMM allows it
// unless what stands between orders a store before a later load).
SearchResult store_buffering_across(void (*between)(spinlock_t*)) {
    return check_lkmm([between] {
        struct Sb {
            shared<int> x{"x"};
            shared<int> y{"y"};
            spinlock_t lock{"lock"};
            int seen[2] = {-1, -1};
        };
        auto& m = this_execution().make<Sb>();
        for (const int i : {0, 1})
            spawn(i == 0 ? "P0" : "P1", [&m, between, i] {
                (i == 0 ? m.x : m.y).write_once(1);
                between(&m.lock);
                m.seen[i] = (i == 0 ? m.y : m.x).read_once();
            });
        final_check("not both read 0", [&m] { return m.seen[0] != 0 || m.seen[1] != 0; });
    });
}

// An operation whose primitive records no accesses of its own (none of the shipped ones) is a
// fully ordered read-modify-write of its object, and the run names it.
TEST(LkmmOrdering, an_operation_whose_primitive_models_no_access_is_fully_ordered_and_named) {
    const SearchResult r = store_buffering_across([](spinlock_t* lock) {
        this_execution().visible("unmodelled_op", lock, std::source_location::current());
    });
    expect_verified(r, "store buffering across an unmodelled operation");
    CHECK_EQUAL(1u, r.stats.fully_ordered.size());
    CHECK_EQUAL("unmodelled_op", r.stats.fully_ordered.front());
}

// kmalloc() and kfree() promise no ordering.
TEST(LkmmOrdering, kmalloc_and_kfree_order_nothing) {
    const SearchResult r = store_buffering_across([](spinlock_t*) { kfree(kmalloc<int>("item")); });
    expect_final_check_broken(r, "store buffering across kmalloc and kfree");
    CHECK(r.stats.fully_ordered.empty());
}

// A write becomes visible to every CPU in finite time: a spin loop that read an older value
// reads the latest once a turn passed with nothing written, and is no hang. The flag's message
// still needs its acquire: reading the data without one may miss it.
TEST(LkmmOrdering, a_spin_loop_sees_a_write_made_before_it_began_and_is_no_hang) {
    const auto model = [](bool acquire) {
        return [acquire] {
            auto& l = this_execution().make<Lists>();
            spawn("writer", [&l] {
                WRITE_ONCE(l.y, 1);
                smp_store_release(&l.x, 1);
            });
            spawn("spinner", [&l, acquire] {
                while (!(acquire ? smp_load_acquire(&l.x) : READ_ONCE(l.x)))
                    cpu_relax();
                if (READ_ONCE(l.y) == 0) l.missed = true;
            });
            final_check("the data was seen", [&l] { return !l.missed; });
        };
    };
    expect_no_race(model(true), "spinning with an acquire");
    expect_final_check_broken(check_lkmm(model(false)), "spinning with READ_ONCE");
}

// The same for a retry loop without cpu_relax(): once nothing was written for --spin-bound
// steps and it repeats its read, the read sees a newer write, and the loop is no livelock.
TEST(LkmmOrdering, a_retry_loop_sees_a_write_made_before_it_began_and_is_no_livelock) {
    expect_no_race(
        [] {
            auto& l = this_execution().make<Lists>();
            spawn("writer", [&l] { WRITE_ONCE(l.x, 1); });
            spawn("retrier", [&l] {
                while (!READ_ONCE(l.x)) {
                }
            });
        },
        "a READ_ONCE() retry loop");
}

// A task waiting in preempt_disable() that hotplug moves off its dying CPU waits again, for the
// task in atomic context on the CPU it is on now.
TEST(LkmmOrdering, a_task_hotplug_moves_while_it_waits_in_preempt_disable_waits_again) {
    const SearchResult r = check_lkmm([] {
        set_nr_cpus(2);
        auto& l = this_execution().make<Lists>();
        spawn_on(0, "holder", [&l] {
            preempt_disable();
            WRITE_ONCE(l.y, 1);
            WRITE_ONCE(l.y, 0);
            preempt_enable();
        });
        spawn_on(1, "first", [] {
            preempt_disable();
            preempt_enable();
        });
        spawn_on(1, "waiter", [&l] {
            preempt_disable();
            // On CPU 1 it may see the holder's stores in any order; on CPU 0 only in turn.
            if (smp_processor_id() == 0 && READ_ONCE(l.y)) l.missed = true;
            preempt_enable();
        });
        spawn_on(0, "cpuhp", [] { remove_cpu(1); });
        final_check("the waiter never ran inside the holder's section", [&l] { return !l.missed; });
    });
    expect_verified(r, "preempt_disable() across a hotplug move");
}

// An execution in which no task can go on is whole: a data race in it is reported before the
// hang, under lkmm as under sc.
TEST(LkmmOrdering, a_data_race_in_an_execution_that_hangs_comes_before_the_hang) {
    const Setup setup = [] {
        struct Stuck {
            shared<int> x{"x"};
            struct completion never {
                "never"
            };
        };
        auto& m = this_execution().make<Stuck>();
        spawn("writer", [&m] {
            m.x.write(1);
            wait_for_completion(&m.never);
        });
        spawn("reader", [&m] { static_cast<void>(m.x.read()); });
    };
    expect_race_on(check_lkmm(setup), "x");
    expect_race_on(check_model(setup), "x");
}

// this_cpu operations need no preempt_disable() and imply no barrier: counts on each CPU add
// up, and a flag set with this_cpu_write() publishes nothing under lkmm.
TEST(LkmmOrdering, this_cpu_operations_count_without_preempt_disable_and_order_nothing) {
    struct PerCpu {
        percpu<shared<int>> count{"count"};
        percpu<shared<int>> flag{"flag"};
        shared<int> data{"data"};
        bool missed = false;
    };
    const Setup counting = [] {
        set_nr_cpus(2);
        auto& m = this_execution().make<PerCpu>();
        for (const int cpu : {0, 1, 1})
            spawn_on(cpu, "adder", [&m] {
                this_cpu_inc(&m.count);
                this_cpu_add(&m.count, 2);
                this_cpu_sub(&m.count, 1);
            });
        final_check("every CPU's count adds up",
                    [&m] { return m.count.at(0)->peek() + m.count.at(1)->peek() == 6; });
    };
    expect_verified(check_model(counting), "this_cpu counting under sc");
    expect_no_race(counting, "this_cpu counting under lkmm");
    const Setup publishing = [] {
        set_nr_cpus(2);
        auto& m = this_execution().make<PerCpu>();
        spawn_on(0, "publisher", [&m] {
            WRITE_ONCE(m.data, 1);
            this_cpu_write(&m.flag, 1);
        });
        spawn_on(1, "reader", [&m] {
            if (per_cpu_ptr(&m.flag, 0)->read_once() && READ_ONCE(m.data) == 0) m.missed = true;
        });
        final_check("the flag implies the data", [&m] { return !m.missed; });
    };
    expect_verified(check_model(publishing), "this_cpu_write under sc");
    expect_final_check_broken(check_lkmm(publishing), "this_cpu_write under lkmm");
}

namespace {

// Message passing into deferred work and interrupt handlers: x and y written by one side, read
// y then x by the other; seeing y's write but not x's is what an order from the hand-off
// forbids.
struct handoff {
    work_struct work{"work"};
    timer_list timer{"timer"};
    atomic_t x{"x"};
    atomic_t y{"y"};
    atomic_t z{"z"};
    shared<int> data{"data"};
};
thread_local handoff* the_handoff = nullptr;

void reads_y_then_x(handoff& h) {
    const int y = atomic_read(&h.y);
    check(!(y == 1 && atomic_read(&h.x) == 0), "saw y's write but not x's");
}

void reads_data(handoff& h) {
    check(h.data.read() == 1, "saw the data written before the hand-off as it was");
}

enum class Deferred { work, ordered_work, timer };

// The task writes the data (plainly), then hands off to `how`, whose function reads it.
Setup data_then_handoff(Deferred how) {
    return [how] {
        handoff& h = model_state<handoff>();
        the_handoff = &h;
        INIT_WORK(&h.work, [](work_struct*) { reads_data(*the_handoff); });
        timer_setup(
            &h.timer, [](timer_list*) { reads_data(*the_handoff); }, 0);
        workqueue_struct* wq =
            how == Deferred::ordered_work ? alloc_ordered_workqueue("ordered", 0) : system_wq;
        spawn("t", [&h, how, wq] {
            h.data.write(1);
            if (how == Deferred::timer)
                mod_timer(&h.timer, jiffies + HZ);
            else
                queue_work(wq, &h.work);
        });
    };
}

} // namespace

TEST(LkmmOrdering, what_a_task_wrote_before_queue_work_or_mod_timer_is_seen_by_the_work) {
    for (Deferred how : {Deferred::work, Deferred::ordered_work, Deferred::timer}) {
        const std::string what = how == Deferred::work           ? "system_wq"
                                 : how == Deferred::ordered_work ? "ordered queue"
                                                                 : "timer";
        expect_verified(check_lkmm(data_then_handoff(how)), what);
    }
}

// flush_work() returns once the work ran: what the work function wrote, plainly, the flusher
// reads after it as written (no data race), as del_timer_sync() after a callback's writes.
TEST(LkmmOrdering, what_the_work_wrote_is_seen_after_flush_work_and_del_timer_sync_return) {
    for (bool timer : {false, true}) {
        const Setup setup = [timer] {
            handoff& h = model_state<handoff>();
            the_handoff = &h;
            INIT_WORK(&h.work, [](work_struct*) { the_handoff->data.write(1); });
            timer_setup(
                &h.timer, [](timer_list*) { the_handoff->data.write(1); }, 0);
            spawn("t", [&h, timer] {
                if (timer) {
                    mod_timer(&h.timer, jiffies + 1);
                    del_timer_sync(&h.timer);
                } else {
                    queue_work(system_wq, &h.work);
                    flush_work(&h.work);
                }
                check(h.data.read() <= 1, "read the work's data");
            });
        };
        expect_no_race(setup, timer ? "del_timer_sync" : "flush_work");
    }
}

TEST(LkmmOrdering, what_a_task_writes_after_queue_work_is_not_ordered_before_the_work) {
    const Setup setup = [] {
        handoff& h = model_state<handoff>();
        the_handoff = &h;
        INIT_WORK(&h.work, [](work_struct*) { reads_y_then_x(*the_handoff); });
        spawn("t", [&h] {
            queue_work(system_wq, &h.work);
            atomic_set(&h.x, 1);
            atomic_set(&h.y, 1);
        });
    };
    expect_verified(check_model(setup), "sc");
    const SearchResult r = check_lkmm(setup);
    CHECK_EQUAL(ViolationKind::check_failed, only_violation(r).kind);
}

namespace {

// A task on CPU 0 and its CPU's interrupt: the task writes x then y and the handler reads
// them, or (`handler_writes`) the other way round.
Setup task_and_its_handler(bool handler_writes) {
    return [handler_writes] {
        handoff& h = model_state<handoff>();
        the_handoff = &h;
        // A step after the writes: the handler may fire only while the task runs.
        const auto writes = [](handoff& hh) {
            atomic_set(&hh.x, 1);
            atomic_set(&hh.y, 1);
            atomic_inc(&hh.z);
        };
        request_irq(17,
                    handler_writes ? irq_handler_t{[](int, void*) {
                        atomic_set(&the_handoff->x, 1);
                        atomic_set(&the_handoff->y, 1);
                        return IRQ_HANDLED;
                    }}
                                   : irq_handler_t{[](int, void*) {
                                         reads_y_then_x(*the_handoff);
                                         return IRQ_HANDLED;
                                     }},
                    0, "dev", &h);
        irq_may_fire(17);
        spawn("t", [&h, handler_writes, writes] {
            if (handler_writes)
                reads_y_then_x(h);
            else
                writes(h);
        });
    };
}

} // namespace

TEST(LkmmOrdering, an_interrupt_handler_and_the_task_it_interrupts_are_in_their_cpus_order) {
    for (bool handler_writes : {false, true}) {
        const std::string what = handler_writes ? "the task reads" : "the handler reads";
        const SearchResult r = check_lkmm(task_and_its_handler(handler_writes));
        expect_verified(r, what);
        CHECK_TEXT(r.stats.executions > 1, what.c_str());
    }
}
