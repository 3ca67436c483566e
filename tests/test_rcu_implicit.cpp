// Implicit RCU readers (issue 40): since the RCU flavours were consolidated, a grace period also
// waits for code that runs with preemption, bottom halves or interrupts off, and for interrupt
// and softirq handlers (kernel/rcu/tree.c, call_rcu()'s comment). A reader that relies on it
// verifies under every search and both memory models; one that leaves its region before it
// dereferences is KASAN's use-after-free; a grace period that waits for a CPU spinning with
// preemption off on what the waiter does after it never ends.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct item {
    explicit item(const std::string& name) : data(name + ".data", 42) {}
    shared<int> data;
    rcu_head rcu;
};

struct table {
    item* old = kmalloc<item>("old", "old");
    shared<item*> gp{"gp", old};
    spinlock_t lock{"lock"};
    rwlock_t rwlock{"rwlock"};
};

// The region the reader looks the item up in, instead of rcu_read_lock().
enum class Region { preempt, spin_lock, read_lock, bh, irqsave, irq_handler, none };

void look_up(table& t) {
    if (item* it = READ_ONCE(t.gp)) check(READ_ONCE(it->data) == 42, "the item is filled");
}

void reader(table& t, Region region) {
    unsigned long flags = 0;
    switch (region) {
    case Region::preempt:
        preempt_disable();
        look_up(t);
        preempt_enable();
        break;
    case Region::spin_lock:
        spin_lock(&t.lock);
        look_up(t);
        spin_unlock(&t.lock);
        break;
    case Region::read_lock:
        read_lock(&t.rwlock);
        look_up(t);
        read_unlock(&t.rwlock);
        break;
    case Region::bh:
        local_bh_disable();
        look_up(t);
        local_bh_enable();
        break;
    case Region::irqsave:
        local_irq_save(flags);
        look_up(t);
        local_irq_restore(flags);
        break;
    case Region::irq_handler:
    case Region::none:
        look_up(t);
        break;
    }
}

table* the_table = nullptr;

irqreturn_t dev_irq(int, void*) {
    reader(*the_table, Region::irq_handler);
    return IRQ_HANDLED;
}

// synchronize_rcu_then_clear: the updater also clears the item's data with a plain store
// between the grace period and the free, which the grace period orders after the reader's read.
enum class Retire { synchronize_rcu, synchronize_rcu_then_clear, kfree_rcu };

// `readers` readers in `region` and an updater that unpublishes the item and frees it after a
// grace period; the handler's region is an interrupt that fires once on the reader's CPU.
Setup lookup_and_free(Region region, Retire how, int readers = 1) {
    return [region, how, readers] {
        set_nr_cpus(2);
        table& t = model_state<table>();
        if (region == Region::irq_handler) {
            the_table = &t;
            request_irq(17, dev_irq, 0, "dev", nullptr);
            irq_fires(17, 0);
        } else {
            for (int i = 0; i < readers; ++i)
                spawn(i ? "reader" + std::to_string(i + 1) : std::string("reader"),
                      [&t, region] { reader(t, region); });
        }
        spawn_on(1, "updater", [&t, how] {
            item* it = rcu_dereference_protected(t.gp, true);
            RCU_INIT_POINTER(t.gp, nullptr);
            if (how != Retire::kfree_rcu) {
                synchronize_rcu();
                if (how == Retire::synchronize_rcu_then_clear) it->data.write(0);
                kfree(it);
            } else {
                kfree_rcu(it, &item::rcu);
            }
        });
    };
}

CheckOptions lkmm() {
    CheckOptions o;
    o.memory_model = MemoryModel::lkmm;
    return o;
}

const char* name(Region r) {
    switch (r) {
    case Region::preempt:
        return "preempt_disable()";
    case Region::spin_lock:
        return "spin_lock()";
    case Region::read_lock:
        return "read_lock()";
    case Region::bh:
        return "local_bh_disable()";
    case Region::irqsave:
        return "local_irq_save()";
    case Region::irq_handler:
        return "a hardirq handler";
    case Region::none:
        return "no region";
    }
    return "";
}

constexpr Region kRegions[] = {Region::preempt, Region::spin_lock, Region::read_lock,
                               Region::bh,      Region::irqsave,   Region::irq_handler};

} // namespace

TEST_GROUP(RcuImplicitReaders){};

TEST(RcuImplicitReaders,
     a_grace_period_waits_for_regions_with_preemption_bottom_halves_or_interrupts_off) {
    for (Region r : kRegions) {
        expect_verified_by_every_search(lookup_and_free(r, Retire::synchronize_rcu),
                                        std::string("synchronize_rcu(), reader in ") + name(r));
        expect_verified_by_every_search(lookup_and_free(r, Retire::kfree_rcu),
                                        std::string("kfree_rcu(), reader in ") + name(r));
    }
}

TEST(RcuImplicitReaders, under_lkmm_an_implicit_reader_is_ordered_by_the_grace_period) {
    for (Region r : kRegions)
        expect_verified(check_model(lookup_and_free(r, Retire::synchronize_rcu), lkmm()),
                        std::string("lkmm, reader in ") + name(r));
}

// The grace period orders what the reader did in its region before what the updater does after
// it, for the race detector as for KASAN: the reader's READ_ONCE() of the data and the
// updater's plain store that clears it never race. Outside any region they do.
TEST(RcuImplicitReaders, a_grace_period_orders_a_readers_accesses_before_the_updaters_next_ones) {
    for (Region r : kRegions)
        expect_verified_by_every_search(lookup_and_free(r, Retire::synchronize_rcu_then_clear),
                                        std::string("clear after synchronize_rcu(), reader in ") +
                                            name(r));
    expect_found_by_every_search(lookup_and_free(Region::none, Retire::synchronize_rcu_then_clear),
                                 ViolationKind::data_race, "data race on old.data", "no region");
}

// Outside any region the free does not wait: the reader's read is KASAN's use-after-free.
TEST(RcuImplicitReaders, a_reader_outside_any_region_is_not_waited_for) {
    expect_found_by_every_search(lookup_and_free(Region::none, Retire::synchronize_rcu),
                                 ViolationKind::use_after_free, "use-after-free of old",
                                 "no region");
}

// A grace period that starts while a task spins with preemption off, waiting for what the
// waiter does after synchronize_rcu(), never ends: a hang. Every search finds it, though the
// waiter is spawned first and the spinner's region is no step of the RCU state: the grace
// period's start reads every task's preemption count.
TEST(RcuImplicitReaders, synchronize_rcu_waits_for_a_cpu_spinning_with_preemption_off) {
    struct flag {
        shared<int> done{"done"};
        spinlock_t priv{"priv"};
    };
    for (const bool spinlock : {false, true})
        expect_found_by_every_search(
            [spinlock] {
                set_nr_cpus(2);
                flag& f = model_state<flag>();
                spawn("waiter", [&f] {
                    synchronize_rcu();
                    WRITE_ONCE(f.done, 1);
                });
                spawn_on(1, "spinner", [&f, spinlock] {
                    if (spinlock)
                        spin_lock(&f.priv);
                    else
                        preempt_disable();
                    while (!READ_ONCE(f.done))
                        cpu_relax();
                    if (spinlock)
                        spin_unlock(&f.priv);
                    else
                        preempt_enable();
                });
            },
            ViolationKind::hang, "hang",
            spinlock ? "spinner holding a spinlock" : "spinner with preemption off");
}

// The differential test against DFS is a group of its own: its exhaustive DFS of two readers
// under lkmm is the group's whole cost, which the sanitizer run leaves out as it leaves out
// Dpor's (tools/test.sh).
TEST_GROUP(RcuImplicitReadersDpor){};

// The grace period's start reads every task's preemption count and interrupts, which no object
// of the readers' steps stands for: DPOR still reaches every final state and violation DFS
// does, with the reader in each region, and with a region that ends before the look-up; with
// two readers in a task's region, whose entries and exits DPOR does not order against each
// other; under sc and lkmm.
TEST(RcuImplicitReadersDpor, dpor_reaches_what_dfs_reaches_with_implicit_readers) {
    for (MemoryModel mm : {MemoryModel::sc, MemoryModel::lkmm}) {
        for (Region r : kRegions)
            for (Retire how : {Retire::synchronize_rcu, Retire::kfree_rcu}) {
                expect_dpor_reaches_what_dfs_does(lookup_and_free(r, how), name(r), 200, mm);
                if (r != Region::irq_handler)
                    expect_dpor_reaches_what_dfs_does(lookup_and_free(r, how, 2),
                                                      std::string("two readers in ") + name(r), 200,
                                                      mm);
            }
        expect_dpor_reaches_what_dfs_does(lookup_and_free(Region::none, Retire::synchronize_rcu),
                                          name(Region::none), 200, mm);
    }
}
