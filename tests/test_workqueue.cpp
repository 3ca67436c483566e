// Workqueues: queue_work() of a pending item queues nothing, an item never runs beside itself,
// one queued again while it runs runs again, an ordered queue runs its items in order, flushes
// and cancels wait; a work never queued ends the execution. The findings: an item freed while
// queued (ODEBUG at the kfree) or run after its memory is freed (KASAN), and flush_work() or
// cancel_work_sync() under a lock the function takes (lockdep through the work's map, from an
// execution that does not deadlock; the deadlock itself without lockdep). Every exhaustive
// search finds the same.
#include <string>

#include "checker/trace.hpp"

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct fs_info {
    struct mutex lock {
        "fs->lock"
    };
    work_struct work{"fs->work"};
    shared<int> runs{"fs->runs"};
    shared<int> inside{"fs->inside"}; // instances running now
    struct completion started {
        "fs->started"
    };
};

// The function most tests queue: counts its runs, and checks that it is alone.
void count_run(work_struct* work) {
    fs_info* fs = container_of(work, &fs_info::work);
    check(fs->inside.read() == 0, "the work runs beside itself");
    fs->inside.write(1);
    complete(&fs->started);
    fs->runs.write(fs->runs.read() + 1);
    fs->inside.write(0);
}

void locked_run(work_struct* work) {
    fs_info* fs = container_of(work, &fs_info::work);
    mutex_lock(&fs->lock);
    fs->runs.write(fs->runs.read() + 1);
    mutex_unlock(&fs->lock);
}

fs_info& set_up_fs(work_func_t fn) {
    fs_info& fs = model_state<fs_info>();
    INIT_WORK(&fs.work, fn);
    return fs;
}

// umount: the work is queued, then stopped with `stop` (nothing, flush_work, cancel_work_sync)
// and the memory freed; the work's function counts in the freed structure.
enum class Stop { nothing, flush, cancel, cancel_sync };
Setup umount(Stop stop) {
    return [stop] {
        spawn("umount", [stop] {
            fs_info* fs = kmalloc<fs_info>("fs");
            INIT_WORK(&fs->work, count_run);
            queue_work(system_wq, &fs->work);
            switch (stop) {
            case Stop::nothing:
                break;
            case Stop::flush:
                flush_work(&fs->work);
                break;
            case Stop::cancel:
                cancel_work(&fs->work);
                break;
            case Stop::cancel_sync:
                cancel_work_sync(&fs->work);
                break;
            }
            kfree(fs);
        });
    };
}

// The work's function takes fs->lock; the task flushes (or cancels) it holding that lock.
// With `ran_first`, the work has run and been flushed before, so the flush under the lock has
// nothing to wait for and no execution deadlocks.
Setup flush_under_lock(bool cancel, bool ran_first) {
    return [cancel, ran_first] {
        fs_info& fs = set_up_fs(locked_run);
        spawn("umount", [&fs, cancel, ran_first] {
            queue_work(system_wq, &fs.work);
            if (ran_first) flush_work(&fs.work);
            mutex_lock(&fs.lock);
            if (cancel)
                cancel_work_sync(&fs.work);
            else
                flush_work(&fs.work);
            mutex_unlock(&fs.lock);
        });
    };
}

} // namespace

TEST_GROUP(Workqueue){};

TEST(Workqueue, queue_work_of_a_pending_item_returns_false_and_the_item_runs_once_a_queueing) {
    static thread_local int refused = 0;
    refused = 0;
    struct queued {
        shared<int> n{"queued"};
    };
    const Setup setup = [] {
        fs_info& fs = set_up_fs(count_run);
        queued& q = model_state<queued>();
        spawn("t", [&fs, &q] {
            for (int i = 0; i < 2; ++i) {
                if (queue_work(system_wq, &fs.work))
                    q.n.write(q.n.read() + 1);
                else
                    ++refused;
            }
        });
        final_check("one run a successful queue_work",
                    [&fs, &q] { return fs.runs.peek() == q.n.peek(); });
    };
    expect_verified_by_every_search(setup, "queue twice");
    CHECK(refused > 0);
}

TEST(Workqueue, an_item_never_runs_beside_itself_though_queued_again_while_it_runs) {
    const Setup setup = [] {
        fs_info& fs = set_up_fs(count_run);
        for (const char* name : {"a", "b"})
            spawn(name, [&fs] {
                queue_work(system_wq, &fs.work);
                queue_work(system_wq, &fs.work);
            });
    };
    expect_verified_by_every_search(setup, "two queuers");
    expect_dpor_reaches_what_dfs_does(setup, "two queuers");
}

TEST(Workqueue, an_item_queued_again_while_it_runs_runs_again) {
    // PENDING is cleared before the function runs: the second queue_work() succeeds.
    const Setup setup = [] {
        fs_info& fs = set_up_fs(count_run);
        spawn("t", [&fs] {
            queue_work(system_wq, &fs.work);
            wait_for_completion(&fs.started);
            check(queue_work(system_wq, &fs.work), "queue_work of a running item refused");
        });
        final_check("ran twice", [&fs] { return fs.runs.peek() == 2; });
    };
    expect_verified_by_every_search(setup, "requeue while running");
}

TEST(Workqueue, an_ordered_queue_runs_its_items_one_at_a_time_in_queue_order) {
    struct items {
        work_struct a{"a"};
        work_struct b{"b"};
        shared<int> order{"order"};
        shared<int> inside{"inside"};
    };
    static thread_local items* it = nullptr;
    auto run = [](work_struct* w) {
        check(it->inside.read() == 0, "two items of an ordered queue overlap");
        it->inside.write(1);
        it->order.write(it->order.read() * 10 + (w == &it->a ? 1 : 2));
        it->inside.write(0);
    };
    for (bool ordered : {true, false}) {
        static thread_local int b_first = 0;
        b_first = 0;
        const Setup setup = [ordered, run] {
            it = &model_state<items>();
            INIT_WORK(&it->a, run);
            INIT_WORK(&it->b, run);
            workqueue_struct* wq =
                ordered ? alloc_ordered_workqueue("fs-ordered", 0) : alloc_workqueue("fs", 0, 0);
            spawn("t", [wq] {
                queue_work(wq, &it->a);
                queue_work(wq, &it->b);
            });
            final_check("a before b", [] {
                if (it->order.peek() == 21) ++b_first;
                return it->order.peek() == 12;
            });
        };
        if (ordered) {
            expect_verified_by_every_search(setup, "ordered");
            CHECK_EQUAL(0, b_first);
        } else {
            // Items of a queue that runs them side by side overlap and come in either order.
            const SearchResult r = check_keep_going(setup);
            CHECK(!r.findings.empty());
        }
    }
}

TEST(Workqueue, the_ordered_queues_worker_is_an_unbound_kworker_and_a_works_a_per_cpu_one) {
    for (bool ordered : {true, false}) {
        const Setup setup = [ordered] {
            fs_info& fs = set_up_fs([](work_struct*) { check(false, "the work ran"); });
            workqueue_struct* wq = ordered ? alloc_ordered_workqueue("fs-ordered", 0) : system_wq;
            spawn("t", [&fs, wq] { queue_work(wq, &fs.work); });
        };
        const SearchResult r = check_model(setup);
        const Violation& v = only_violation(r);
        CHECK_EQUAL(ViolationKind::check_failed, v.kind);
        const ReplayResult rr = replay(setup, r.findings.front().schedule, CheckOptions{});
        CHECK_TEXT(rr.ok, rr.error.c_str());
        std::string started;
        for (const TraceStep& step : rr.trace.steps)
            if (step.operation == "workqueue_execute_start") started = step.task;
        // The work's own unbound worker, made first, is kworker/u2:0.
        CHECK_EQUAL(std::string(ordered ? "kworker/u2:1" : "kworker/0:0"), started);
    }
}

TEST(Workqueue, flush_work_waits_for_the_queued_instance_and_cancel_work_sync_for_a_running_one) {
    for (bool cancel : {false, true}) {
        const Setup setup = [cancel] {
            fs_info& fs = set_up_fs(count_run);
            spawn("t", [&fs, cancel] {
                queue_work(system_wq, &fs.work);
                if (cancel) {
                    wait_for_completion(&fs.started);
                    cancel_work_sync(&fs.work);
                } else {
                    flush_work(&fs.work);
                }
                check(fs.runs.read() == 1 && fs.inside.read() == 0,
                      "the flush returned before the work finished");
            });
        };
        expect_verified_by_every_search(setup, cancel ? "cancel_work_sync" : "flush_work");
    }
}

TEST(Workqueue, a_work_never_queued_ends_the_execution_with_its_worker_idle) {
    const Setup setup = [] {
        set_up_fs(count_run);
        spawn("t", [] { cpu_relax(); });
    };
    for (Search search : kExhaustiveSearches) {
        const SearchResult r = check_model(setup, search, {});
        expect_verified(r, search_name(search));
        CHECK_EQUAL_TEXT(1u, r.stats.executions, search_name(search));
    }
}

TEST(Workqueue, freeing_an_item_still_queued_is_odebugs_report_at_the_kfree) {
    expect_found_by_every_search(umount(Stop::nothing), ViolationKind::use_after_free,
                                 "use-after-free of fs", "kfree with the work queued");
    const SearchResult r = check_model(umount(Stop::nothing));
    const Violation& v = only_violation(r);
    CHECK_TEXT(contains(v.message, "ODEBUG: free active object type: work_struct: kfree(fs) by "
                                   "umount at step"),
               v.message.c_str());
    CHECK_TEXT(contains(v.message, "frees fs->work, queued by umount at step"), v.message.c_str());
    // cancel_work() takes a queued item off, but not one that runs: its function goes on in
    // freed memory (KASAN, through the same object).
    expect_found_by_every_search(umount(Stop::cancel), ViolationKind::use_after_free,
                                 "use-after-free of fs", "cancel_work then kfree");
    expect_verified_by_every_search(umount(Stop::flush), "flush_work then kfree");
    expect_verified_by_every_search(umount(Stop::cancel_sync), "cancel_work_sync then kfree");
}

TEST(Workqueue, a_work_running_after_its_memory_is_freed_is_kasans_use_after_free) {
    const SearchResult r = check_keep_going(umount(Stop::cancel));
    bool kasan = false;
    for (const Finding& f : r.findings)
        kasan = kasan || contains(f.violation.message, "BUG: KASAN: use-after-free in");
    CHECK_TEXT(kasan, describe(r).c_str());
}

TEST(Workqueue, flush_work_or_cancel_work_sync_under_a_lock_the_work_takes_is_lockdeps_report) {
    for (bool cancel : {false, true}) {
        const std::string what = cancel ? "cancel_work_sync" : "flush_work";
        expect_found_by_every_search(flush_under_lock(cancel, false), ViolationKind::lock_order,
                                     "circular-locking-dependency", what);
        // From the dependencies of an execution that cannot deadlock: the work ran before.
        const SearchResult r = check_model(flush_under_lock(cancel, true));
        const Violation& v = only_violation(r, what);
        CHECK_EQUAL(std::string("circular-locking-dependency"), v.property);
        CHECK_TEXT(contains(v.message, "(work_completion)(fs->work)"), v.message.c_str());
        CHECK_TEXT(contains(v.message, "fs->lock"), v.message.c_str());
    }
}

TEST(Workqueue, without_lockdep_the_flush_under_the_lock_is_the_deadlock_itself) {
    CheckOptions options;
    options.lockdep = false;
    const SearchResult r = check_model(flush_under_lock(false, false), options);
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::deadlock, v.kind);
    CHECK_TEXT(contains(v.message, "kworker/0:0 -> umount -> kworker/0:0"), v.message.c_str());
    bool waits = false;
    for (const std::string& line : v.details)
        waits = waits || contains(line, "umount: blocked in wait_for_completion(fs->work)");
    CHECK_TEXT(waits, describe(r).c_str());
    expect_verified(check_model(flush_under_lock(false, true), options), "ran first");
}

TEST(Workqueue, flush_work_from_its_own_function_is_recursive_locking) {
    const Setup setup = [] {
        fs_info& fs = set_up_fs([](work_struct* w) { flush_work(w); });
        spawn("t", [&fs] { queue_work(system_wq, &fs.work); });
    };
    expect_found_by_every_search(setup, ViolationKind::lock_order, "recursive-locking",
                                 "self-flush");
}

TEST(Workqueue, a_delayed_work_runs_once_its_timer_expires_and_cancel_delayed_work_sync_stops_it) {
    struct dev {
        delayed_work dwork{"dev->dwork"};
        shared<int> runs{"dev->runs"};
    };
    for (bool sync : {false, true}) {
        const Setup setup = [sync] {
            spawn("remove", [sync] {
                dev* d = kmalloc<dev>("dev");
                INIT_DELAYED_WORK(&d->dwork, [](work_struct* w) {
                    dev* d = container_of(container_of(w, &delayed_work::work), &dev::dwork);
                    d->runs.write(d->runs.read() + 1);
                });
                schedule_delayed_work(&d->dwork, HZ);
                // flush_work() does not wait for the timer (its item is not queued yet).
                flush_work(&d->dwork.work);
                if (sync)
                    cancel_delayed_work_sync(&d->dwork);
                else
                    cancel_delayed_work(&d->dwork);
                kfree(d);
            });
        };
        if (sync)
            expect_verified_by_every_search(setup, "cancel_delayed_work_sync");
        else
            expect_found_by_every_search(setup, ViolationKind::use_after_free,
                                         "use-after-free of dev", "cancel_delayed_work");
    }
}

TEST(Workqueue, flush_delayed_work_runs_the_item_now_and_waits_for_it) {
    struct dev {
        delayed_work dwork{"dev->dwork"};
        shared<int> runs{"dev->runs"};
    };
    static thread_local dev* d = nullptr;
    const Setup setup = [] {
        d = &model_state<dev>();
        INIT_DELAYED_WORK(&d->dwork, [](work_struct*) { d->runs.write(d->runs.read() + 1); });
        spawn("t", [] {
            queue_delayed_work(system_wq, &d->dwork, HZ);
            flush_delayed_work(&d->dwork);
            check(d->runs.read() == 1, "flush_delayed_work returned before the work ran");
        });
    };
    expect_verified_by_every_search(setup, "flush_delayed_work");
}

namespace {

// Two CPUs; a task on CPU `from` queues the work (on CPU `on` with queue_work_on() when it is
// not -1); the function records the CPU it runs on before and after a preemption point.
struct where {
    work_struct work{"where->work"};
    atomic_t cpu{"where->cpu"};
    atomic_t moved{"where->moved"};
};

void record_cpu(work_struct* work) {
    where* w = container_of(work, &where::work);
    const int cpu = raw_smp_processor_id();
    atomic_set(&w->cpu, cpu);
    cond_resched();
    if (raw_smp_processor_id() != cpu) atomic_set(&w->moved, 1);
}

Setup queued_from(int from, int on) {
    return [from, on] {
        set_nr_cpus(2);
        where& w = model_state<where>();
        INIT_WORK(&w.work, record_cpu);
        spawn_on(from, "t", [&w, on] {
            if (on < 0)
                queue_work(system_wq, &w.work);
            else
                queue_work_on(on, system_wq, &w.work);
        });
        final_check("ran on the CPU it was queued on, and stayed", [&w, cpu = on < 0 ? from : on] {
            return w.cpu.peek() == cpu && w.moved.peek() == 0;
        });
    };
}

std::string worker_that_started(const Setup& setup, const SearchResult& r) {
    const ReplayResult rr = replay(setup, r.findings.front().schedule, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    std::string started;
    for (const TraceStep& step : rr.trace.steps)
        if (step.operation == "workqueue_execute_start") started = step.task;
    return started;
}

} // namespace

TEST(Workqueue, a_bound_item_runs_on_the_queueing_cpus_kworker_and_stays_on_that_cpu) {
    for (int from : {0, 1})
        expect_verified_by_every_search(queued_from(from, -1),
                                        "queued from CPU " + std::to_string(from));
    // The trace names the worker by its pool's CPU.
    const Setup setup = [] {
        set_nr_cpus(2);
        fs_info& fs = set_up_fs([](work_struct*) { check(false, "the work ran"); });
        spawn_on(1, "t", [&fs] { queue_work(system_wq, &fs.work); });
    };
    const SearchResult r = check_model(setup);
    CHECK_EQUAL(ViolationKind::check_failed, only_violation(r).kind);
    CHECK_EQUAL(std::string("kworker/1:0"), worker_that_started(setup, r));
}

TEST(Workqueue, queue_work_on_runs_the_item_on_the_named_cpus_kworker) {
    for (int from : {0, 1})
        for (int on : {0, 1})
            expect_verified_by_every_search(queued_from(from, on),
                                            "queue_work_on(" + std::to_string(on) + ") from CPU " +
                                                std::to_string(from));
}

namespace {

// `items` works on one queue with max_active `max_active`, queued from CPU 0, or each from
// its own CPU with `spread`; each counts how many run at once.
struct limited {
    work_struct works[3] = {work_struct{"w0"}, work_struct{"w1"}, work_struct{"w2"}};
    atomic_t running{"running"};
    atomic_t most{"most"};
};
thread_local limited* the_limited = nullptr;

void count_overlap(work_struct*) {
    limited& l = *the_limited;
    const int now = atomic_inc_return(&l.running);
    if (now > atomic_read(&l.most)) atomic_set(&l.most, now);
    atomic_dec(&l.running);
}

Setup queued_on_limited(unsigned flags, int max_active, int items, bool spread) {
    return [flags, max_active, items, spread] {
        set_nr_cpus(spread ? items : 1);
        limited& l = model_state<limited>();
        the_limited = &l;
        workqueue_struct* wq = alloc_workqueue("fs", flags, max_active);
        for (int i = 0; i < items; ++i)
            INIT_WORK(&l.works[i], count_overlap);
        if (spread) {
            for (int i = 0; i < items; ++i)
                spawn_on(i, "t" + std::to_string(i), [&l, wq, i] { queue_work(wq, &l.works[i]); });
        } else {
            spawn("t", [&l, wq, items] {
                for (int i = 0; i < items; ++i)
                    queue_work(wq, &l.works[i]);
            });
        }
    };
}

// The most items that ran at once in any execution of `setup`.
int most_at_once(const Setup& setup) {
    static thread_local int most = 0;
    most = 0;
    const Setup observed_setup = [setup] {
        setup();
        final_check("record", [] {
            most = std::max(most, the_limited->most.peek());
            return true;
        });
    };
    // Every trace of the items' overlaps: DFS's interleavings of three workers are millions.
    expect_verified(check_model(observed_setup, Search::dpor, {}));
    return most;
}

} // namespace

TEST(Workqueue, max_active_bounds_the_items_of_a_queue_running_at_once_on_a_cpu) {
    CHECK_EQUAL(3, most_at_once(queued_on_limited(0, 0, 3, false)));
    CHECK_EQUAL(2, most_at_once(queued_on_limited(0, 2, 3, false)));
    CHECK_EQUAL(1, most_at_once(queued_on_limited(0, 1, 2, false)));
    // Per CPU: items queued from two CPUs on a max_active 1 queue run side by side.
    CHECK_EQUAL(2, most_at_once(queued_on_limited(0, 1, 2, true)));
    // An unbound queue bounds them all; with max_active 1 it is ordered.
    CHECK_EQUAL(1, most_at_once(queued_on_limited(WQ_UNBOUND, 1, 2, true)));
    CHECK_EQUAL(2, most_at_once(queued_on_limited(WQ_UNBOUND, 2, 3, false)));
    for (bool spread : {false, true})
        expect_dpor_reaches_what_dfs_does(queued_on_limited(0, 1, 2, spread),
                                          spread ? "max_active 1, two CPUs" : "max_active 1");
}

TEST(Workqueue, a_queue_bounding_max_active_is_made_at_set_up) {
    const SearchResult r = check_model([] { spawn("t", [] { alloc_workqueue("fs", 0, 1); }); });
    CHECK_TEXT(contains(describe(r), "a queue that bounds max_active is made at set-up"),
               describe(r).c_str());
}
