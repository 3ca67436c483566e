// Interrupt contexts: a hardirq handler may run at every step its CPU takes interrupts, and at
// none; what it interrupts waits for it; spin_lock_irq*() and local_irq_*() keep it out; the
// kernel's findings about contexts (the handler that spins on its own CPU's lock, sleeping in
// a handler, interrupts turned on inside a section that needs them off, a restore of flags
// never saved); softirqs run once raised and never while bottom halves are off. Every
// exhaustive search finds the same.
#include <string>

#include "checker/trace.hpp"

#include "harness.hpp"
#include "trace_classes.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// A device whose completion interrupt and a task both count completions under one lock.
struct dev {
    spinlock_t lock{"dev->lock"};
    shared<int> completed{"dev->completed"};
};

// How the task takes the lock the handler also takes.
enum class Locking { plain, irq, irqsave, irqsave_then_unlock_irq };

irqreturn_t dev_irq(int, void* data) {
    auto* d = static_cast<dev*>(data);
    spin_lock(&d->lock);
    d->completed.write(d->completed.read() + 1);
    spin_unlock(&d->lock);
    return IRQ_HANDLED;
}

Setup counter_shared_with_irq(Locking locking) {
    return [locking] {
        dev& d = model_state<dev>();
        // Lockdep reports the plain lock's inconsistent state before any deadlock
        // (LockdepIrq): here the deadlock itself.
        if (locking == Locking::plain) lockdep_off();
        request_irq(17, dev_irq, 0, "dev", &d);
        irq_may_fire(17);
        spawn("submit", [&d, locking] {
            unsigned long flags = 0;
            switch (locking) {
            case Locking::plain:
                spin_lock(&d.lock);
                break;
            case Locking::irq:
                spin_lock_irq(&d.lock);
                break;
            case Locking::irqsave:
                spin_lock_irqsave(&d.lock, flags);
                break;
            case Locking::irqsave_then_unlock_irq:
                local_irq_save(flags);
                spin_lock_irq(&d.lock);
                break;
            }
            d.completed.write(d.completed.read() + 1);
            switch (locking) {
            case Locking::plain:
                spin_unlock(&d.lock);
                break;
            case Locking::irq:
                spin_unlock_irq(&d.lock);
                break;
            case Locking::irqsave:
                spin_unlock_irqrestore(&d.lock, flags);
                break;
            case Locking::irqsave_then_unlock_irq:
                spin_unlock_irq(&d.lock);
                local_irq_restore(flags);
                break;
            }
        });
    };
}

} // namespace

TEST_GROUP(Irq){};

TEST(Irq, a_handler_that_spins_on_the_lock_the_task_it_interrupted_holds_is_a_deadlock) {
    for (Search search : kExhaustiveSearches) {
        const SearchResult r = check_model(counter_shared_with_irq(Locking::plain), search, {});
        const Violation& v = only_violation(r, search_name(search));
        CHECK_EQUAL(ViolationKind::deadlock, v.kind);
        CHECK_TEXT(contains(v.message, "irq/17-dev -> submit -> irq/17-dev"), v.message.c_str());
        bool interrupted = false;
        for (const std::string& line : v.details)
            interrupted = interrupted || contains(line, "submit: interrupted by irq/17-dev");
        CHECK_TEXT(interrupted, describe(r).c_str());
    }
}

TEST(Irq, spin_lock_irq_keeps_the_handler_out_and_every_search_verifies_it) {
    expect_verified_by_every_search(counter_shared_with_irq(Locking::irq), "spin_lock_irq");
    expect_verified_by_every_search(counter_shared_with_irq(Locking::irqsave), "irqsave");
}

TEST(Irq, spin_unlock_irq_inside_local_irq_save_turns_interrupts_on_too_early) {
    expect_found_by_every_search(counter_shared_with_irq(Locking::irqsave_then_unlock_irq),
                                 ViolationKind::irq_flags, "irq-enabled-in-section",
                                 "spin_unlock_irq inside local_irq_save");
}

TEST(Irq, the_handler_runs_at_every_step_and_at_none_steps_plus_one_executions) {
    // Three steps of a task the handler does not touch: it fires before each, or never.
    const Setup setup = [] {
        dev& d = model_state<dev>();
        request_irq(17, dev_irq, 0, "dev", &d);
        irq_may_fire(17);
        spawn("t", [] {
            shared<int>& x = model_state<shared<int>>("x");
            for (int i = 0; i < 3; ++i)
                x.write(i);
        });
    };
    for (Search search : kExhaustiveSearches) {
        const SearchResult r = check_model(setup, search, {});
        expect_verified(r, search_name(search));
        CHECK_EQUAL_TEXT(4u, r.stats.executions, search_name(search));
    }
}

TEST(Irq, a_handler_that_never_fires_leaves_no_task_behind_and_no_handler_fires_after_the_end) {
    // The handler records that it ran; with no task the execution is over before it can.
    int fired = 0;
    int executions = 0;
    const Setup setup = [&] {
        ++executions;
        request_irq(
            3,
            [](int, void* counter) {
                ++*static_cast<int*>(counter);
                return IRQ_HANDLED;
            },
            0, "idle", &fired);
        irq_may_fire(3, 0, 2);
    };
    const SearchResult r = check_model(setup);
    expect_verified(r);
    CHECK_EQUAL(1u, r.stats.executions);
    CHECK_EQUAL(0, fired);
}

TEST(Irq, sleeping_in_a_hardirq_handler_is_reported_in_its_context) {
    struct state {
        struct mutex m {
            "m"
        };
    };
    const Setup setup = [] {
        state& s = model_state<state>();
        request_irq(
            9,
            [](int, void* p) {
                mutex_lock(&static_cast<state*>(p)->m);
                mutex_unlock(&static_cast<state*>(p)->m);
                return IRQ_HANDLED;
            },
            0, "sleepy", &s);
        irq_may_fire(9);
        shared<int>& x = model_state<shared<int>>("x");
        spawn("t", [&x] { x.write(1); });
    };
    const SearchResult r = check_model(setup);
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::sleep_in_atomic, v.kind);
    CHECK_TEXT(contains(v.message, "irq/9-sleepy calls mutex_lock(m) while atomic (in hardirq "
                                   "context)"),
               v.message.c_str());
}

TEST(Irq, local_irq_restore_of_flags_never_saved_is_reported) {
    const Setup setup = [] {
        spawn("t", [] {
            unsigned long flags = 0;
            local_irq_disable();
            local_irq_restore(flags);
        });
    };
    const SearchResult r = check_model(setup);
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::irq_flags, v.kind);
    CHECK_EQUAL(std::string("irq-restore-unsaved"), v.property);
}

TEST(Irq, the_contexts_answer_in_hardirq_in_softirq_and_in_task) {
    static thread_local std::string seen;
    const Setup setup = [] {
        seen.clear();
        set_nr_cpus(1);
        open_softirq(BLOCK_SOFTIRQ, [] {
            seen += std::string("softirq:") + (in_serving_softirq() ? "serving " : "") +
                    (in_interrupt() ? "interrupt " : "") + (in_hardirq() ? "hardirq " : "");
        });
        request_irq(
            1,
            [](int, void*) {
                seen += std::string("hardirq:") + (in_hardirq() ? "hardirq " : "") +
                        (irqs_disabled() ? "irqs-off " : "") + (in_task() ? "task " : "");
                raise_softirq(BLOCK_SOFTIRQ);
                return IRQ_HANDLED;
            },
            0, "raiser", nullptr);
        irq_may_fire(1);
        spawn("t", [] {
            local_bh_disable();
            seen +=
                std::string("task:") + (in_softirq() ? "bh-off " : "") + (in_task() ? "task " : "");
            local_bh_enable();
        });
    };
    // Every order: the softirq comes after the hardirq that raised it and never while the task
    // has bottom halves off.
    const SearchResult r = check_model(setup);
    expect_verified(r);
    const Schedule fire_first{1, 1, 1, 0, 0, 2, 2};
    const ReplayResult rr = replay(setup, fire_first, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    CHECK_EQUAL(std::string("hardirq:hardirq irqs-off softirq:serving interrupt task:bh-off "),
                seen);
    CHECK_EQUAL(std::string("irq_handler_entry"), rr.trace.steps[0].operation);
    CHECK_EQUAL(std::string("cpu0"), rr.trace.steps[0].object);
    CHECK_EQUAL(std::string("in hardirq irq/1-raiser, interrupting t"), rr.trace.steps[0].state);
}

TEST(Irq, a_softirq_that_takes_a_lock_the_task_holds_with_bottom_halves_on_deadlocks) {
    struct state {
        spinlock_t lock{"lock"};
    };
    static thread_local state* s = nullptr;
    for (bool bh : {false, true}) {
        const Setup setup = [bh] {
            s = &model_state<state>();
            if (!bh) lockdep_off(); // else its inconsistent lock state comes first (LockdepIrq)
            open_softirq(NET_RX_SOFTIRQ, [] {
                spin_lock(&s->lock);
                spin_unlock(&s->lock);
            });
            spawn("t", [bh] {
                if (bh)
                    spin_lock_bh(&s->lock);
                else
                    spin_lock(&s->lock);
                raise_softirq(NET_RX_SOFTIRQ);
                if (bh)
                    spin_unlock_bh(&s->lock);
                else
                    spin_unlock(&s->lock);
            });
        };
        const SearchResult r = check_model(setup);
        if (bh) {
            expect_verified(r, "spin_lock_bh");
        } else {
            CHECK_EQUAL(ViolationKind::deadlock, only_violation(r, "spin_lock").kind);
        }
    }
}

TEST(Irq,
     a_task_that_waits_for_an_interrupt_that_may_never_fire_hangs_and_one_that_fires_does_not) {
    struct state {
        struct completion done {
            "done"
        };
    };
    for (bool must : {false, true}) {
        const Setup setup = [must] {
            state& s = model_state<state>();
            request_irq(
                5,
                [](int, void* p) {
                    complete(&static_cast<state*>(p)->done);
                    return IRQ_HANDLED;
                },
                0, "disk", &s);
            if (must)
                irq_fires(5);
            else
                irq_may_fire(5);
            spawn("reader", [&s] { wait_for_completion(&s.done); });
        };
        for (Search search : kExhaustiveSearches) {
            const SearchResult r = check_model(setup, search, {});
            if (must) {
                expect_verified(r, search_name(search));
            } else {
                CHECK_EQUAL(ViolationKind::hang, only_violation(r, search_name(search)).kind);
            }
        }
    }
}

// Under lkmm as under sc: the handler that spins on the lock its CPU's task holds deadlocks,
// and spin_lock_irq() keeps it out (the handler's order with its CPU's task: LkmmOrdering).
TEST(Irq, under_lkmm_the_self_deadlock_is_found_and_spin_lock_irq_verifies) {
    CheckOptions lkmm;
    lkmm.memory_model = MemoryModel::lkmm;
    const SearchResult plain = check_model(counter_shared_with_irq(Locking::plain), lkmm);
    CHECK_EQUAL(ViolationKind::deadlock, only_violation(plain).kind);
    expect_verified(check_model(counter_shared_with_irq(Locking::irq), lkmm), "spin_lock_irq");
}

namespace {

// Two CPUs, each with a task and a handler that count into one variable under one lock, taken
// with `take`/`drop` in process context (the handlers use spin_lock()); CPU 1's handler hands
// its count to a softirq when `soft`.
struct two_cpus {
    spinlock_t lock{"lock"};
    shared<int> count{"count"};
};
thread_local two_cpus* the_cpus = nullptr;

void count_one(two_cpus& c) {
    spin_lock(&c.lock);
    c.count.write(c.count.read() + 1);
    spin_unlock(&c.lock);
}

Setup two_cpus_with_handlers(bool irqsave, bool soft) {
    return [irqsave, soft] {
        set_nr_cpus(2);
        two_cpus& c = model_state<two_cpus>();
        the_cpus = &c;
        open_softirq(NET_RX_SOFTIRQ, [] { count_one(*the_cpus); });
        for (int cpu = 0; cpu < 2; ++cpu) {
            const bool raise = soft && cpu == 1;
            request_irq(static_cast<unsigned>(10 + cpu),
                        raise ? irq_handler_t{[](int, void*) {
                            raise_softirq(NET_RX_SOFTIRQ);
                            return IRQ_HANDLED;
                        }}
                              : irq_handler_t{[](int, void* p) {
                                    count_one(*static_cast<two_cpus*>(p));
                                    return IRQ_HANDLED;
                                }},
                        0, cpu ? "one" : "zero", &c);
            irq_may_fire(static_cast<unsigned>(10 + cpu), cpu);
            spawn_on(cpu, "t" + std::to_string(cpu), [&c, irqsave] {
                unsigned long flags = 0;
                if (irqsave)
                    spin_lock_irqsave(&c.lock, flags);
                else
                    spin_lock(&c.lock);
                c.count.write(c.count.read() + 1);
                if (irqsave)
                    spin_unlock_irqrestore(&c.lock, flags);
                else
                    spin_unlock(&c.lock);
            });
        }
    };
}

} // namespace

TEST(Irq, dpor_and_optimal_dpor_reach_what_dfs_reaches_with_handlers_on_two_cpus) {
    for (bool irqsave : {false, true})
        for (bool soft : {false, true})
            expect_dpor_reaches_what_dfs_does(two_cpus_with_handlers(irqsave, soft),
                                              std::string(irqsave ? "irqsave" : "spin_lock") +
                                                  (soft ? ", softirq" : ", hardirqs"));
}

// A task that may move to CPU 1 at cond_resched() (its scheduling point is on CPU 0) while
// CPU 1's handler may fire: moved there before the handler enters, the handler interrupts it;
// after, it waits for the handler (joined_cpu()). Either way it steps on after the handler, and
// its steps on CPU 1 depend on the handler's entry: DPOR reaches every state DFS reaches.
TEST(Irq, dpor_reaches_what_dfs_reaches_when_a_task_moves_onto_a_cpu_a_handler_may_enter) {
    for (bool irqsave : {false, true}) {
        const Setup setup = [irqsave] {
            set_nr_cpus(2);
            two_cpus& c = model_state<two_cpus>();
            request_irq(
                11,
                [](int, void* p) {
                    count_one(*static_cast<two_cpus*>(p));
                    return IRQ_HANDLED;
                },
                0, "one", &c);
            irq_may_fire(11, 1);
            spawn_on(0, "mover", [&c, irqsave] {
                cond_resched();
                unsigned long flags = 0;
                if (irqsave)
                    spin_lock_irqsave(&c.lock, flags);
                else
                    spin_lock(&c.lock);
                c.count.write(c.count.read() + 100);
                if (irqsave)
                    spin_unlock_irqrestore(&c.lock, flags);
                else
                    spin_unlock(&c.lock);
            });
        };
        expect_dpor_reaches_what_dfs_does(setup, irqsave ? "mover, irqsave" : "mover, spin_lock");
        // Moved to CPU 1, the mover holding the lock with interrupts on is interrupted by a
        // handler that spins on it: the deadlock the search must reach through the move.
        CheckOptions no_lockdep;
        no_lockdep.lockdep = false;
        const SearchResult r = check_model(setup, Search::dfs, no_lockdep);
        if (irqsave) {
            expect_verified(r, "mover, irqsave");
            continue;
        }
        const Violation& v = only_violation(r, "mover, spin_lock");
        CHECK_EQUAL(ViolationKind::deadlock, v.kind);
        STRCMP_CONTAINS("irq/11-one -> mover", v.message.c_str());
    }
}

TEST(Irq, every_trace_with_handlers_on_two_cpus_is_run_by_both_dpors_and_optimal_once) {
    const Setup setup = two_cpus_with_handlers(true, true);
    const TraceClasses all = count_traces(setup, Search::dfs, 200);
    const TraceClasses source = count_traces(setup, Search::dpor, 200);
    const TraceClasses optimal = count_traces(setup, Search::optimal_dpor, 200);
    CHECK(all.traces > 1);
    CHECK_EQUAL(all.traces, source.traces);
    CHECK_EQUAL(all.traces, optimal.traces);
    CHECK_EQUAL(optimal.traces, optimal.finished);
}
