// rwlock_t: readers share the lock and a writer excludes them, both spin with preemption off;
// lockdep finds read-write deadlocks and a task-context reader taking it again, lets an
// interrupt's reader in beside the task's (qrwlock's recursive read) and reports an
// interrupt's reader against a task's writer with interrupts on, as the kernel's lockdep does;
// under lkmm the unlocks order a reader's accesses before the next writer's.
#include <bit>
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Table {
    rwlock_t lock{"tbl->lock"};
    spinlock_t other{"other"};
    struct mutex m {
        "m"
    };
    shared<int> x{"x"};
    struct completion irq_seen {
        "irq_seen"
    };
};

SearchResult check_lkmm(const Setup& setup) {
    CheckOptions options;
    options.memory_model = MemoryModel::lkmm;
    return check_model(setup, options);
}

// The handler reads the table under read_lock() and says it ran.
irqreturn_t reader_irq(int, void* data) {
    auto* t = static_cast<Table*>(data);
    read_lock(&t->lock);
    (void)READ_ONCE(t->x);
    read_unlock(&t->lock);
    complete(&t->irq_seen);
    return IRQ_HANDLED;
}

// After the interrupt's read, the task takes the lock as `task_takes` does.
Setup after_an_irq_reader(void (*task_takes)(Table& t)) {
    return [task_takes] {
        Table& t = model_state<Table>();
        request_irq(17, reader_irq, 0, "dev", &t);
        irq_fires(17);
        spawn("task", [&t, task_takes] {
            wait_for_completion(&t.irq_seen);
            task_takes(t);
        });
    };
}

} // namespace

TEST_GROUP(Rwlock){};

TEST(Rwlock, two_readers_hold_the_lock_at_once) {
    const SearchResult r = check_model([] {
        Table& t = model_state<Table>();
        for (const char* name : {"reader0", "reader1"})
            spawn(name, [&t] {
                read_lock(&t.lock);
                read_unlock(&t.lock);
            });
        invariant("one reader at a time", [&t] { return std::popcount(t.lock.readers) < 2; });
    });
    CHECK_EQUAL(ViolationKind::invariant, only_violation(r).kind);
}

TEST(Rwlock, a_writer_excludes_readers_and_a_reader_without_the_lock_sees_its_half_update) {
    auto setup = [](bool reader_locks) {
        return [reader_locks] {
            Table& t = model_state<Table>();
            spawn("writer", [&t] {
                write_lock(&t.lock);
                WRITE_ONCE(t.x, 1);
                WRITE_ONCE(t.x, 0);
                write_unlock(&t.lock);
            });
            spawn("reader", [&t, reader_locks] {
                if (reader_locks) read_lock(&t.lock);
                check(READ_ONCE(t.x) == 0, "no half update seen");
                if (reader_locks) read_unlock(&t.lock);
            });
        };
    };
    expect_verified_by_every_search(setup(true), "read_lock");
    const SearchResult unlocked = check_model(setup(false));
    CHECK_EQUAL(ViolationKind::check_failed, only_violation(unlocked).kind);
}

TEST(Rwlock, trylocks_fail_against_the_other_side) {
    std::string seen;
    expect_verified(check_model([&seen] {
        Table& t = model_state<Table>();
        spawn("t", [&t, &seen] {
            read_lock(&t.lock);
            seen += std::to_string(write_trylock(&t.lock));
            read_unlock(&t.lock);
            seen += std::to_string(write_trylock(&t.lock));
            seen += std::to_string(read_trylock(&t.lock));
            write_unlock(&t.lock);
            seen += std::to_string(read_trylock(&t.lock));
            read_unlock(&t.lock);
        });
    }));
    CHECK_EQUAL("0101", seen);
}

TEST(Rwlock, sleeping_while_holding_either_side_is_reported) {
    for (const bool write : {false, true}) {
        const SearchResult r = check_model([write] {
            Table& t = model_state<Table>();
            spawn("t", [&t, write] {
                write ? write_lock(&t.lock) : read_lock(&t.lock);
                mutex_lock(&t.m);
            });
        });
        const Violation& v = only_violation(r);
        CHECK_EQUAL(ViolationKind::sleep_in_atomic, v.kind);
        CHECK_TEXT(contains(v.message, "calls mutex_lock(m) while atomic"), v.message.c_str());
    }
}

TEST(Rwlock, lockdep_finds_a_read_write_deadlock) {
    const SearchResult r = check_model([] {
        Table& t = model_state<Table>();
        spawn("reader", [&t] {
            read_lock(&t.lock);
            spin_lock(&t.other);
            spin_unlock(&t.other);
            read_unlock(&t.lock);
        });
        spawn("writer", [&t] {
            spin_lock(&t.other);
            write_lock(&t.lock);
            write_unlock(&t.lock);
            spin_unlock(&t.other);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::lock_order, v.kind);
    CHECK_EQUAL("circular-locking-dependency", v.property);
}

TEST(Rwlock, a_task_context_reader_taking_the_lock_again_is_recursive_locking) {
    const SearchResult r = check_model([] {
        Table& t = model_state<Table>();
        spawn("t", [&t] {
            read_lock(&t.lock);
            read_lock(&t.lock);
        });
    });
    CHECK_EQUAL("recursive-locking", only_violation(r).property);
}

TEST(Rwlock, an_interrupts_reader_beside_a_task_reader_with_irqs_on_is_no_lockdep_finding) {
    expect_verified_by_every_search(after_an_irq_reader([](Table& t) {
                                        read_lock(&t.lock);
                                        read_unlock(&t.lock);
                                    }),
                                    "read_lock after the irq's");
    // The interrupt may come while the task reads: qrwlock lets its reader in.
    expect_verified(check_model([] {
        Table& t = model_state<Table>();
        request_irq(17, reader_irq, 0, "dev", &t);
        irq_may_fire(17);
        spawn("task", [&t] {
            read_lock(&t.lock);
            WRITE_ONCE(t.x, 1);
            read_unlock(&t.lock);
        });
    }));
}

TEST(Rwlock, an_interrupts_reader_and_a_task_writer_with_irqs_on_is_an_inconsistent_lock_state) {
    const SearchResult r = check_model(after_an_irq_reader([](Table& t) {
        write_lock(&t.lock);
        write_unlock(&t.lock);
    }));
    const Violation& v = only_violation(r);
    CHECK_EQUAL("inconsistent-lock-state", v.property);
    CHECK_EQUAL("inconsistent lock state: {IN-HARDIRQ-R} -> {HARDIRQ-ON-W} usage of tbl->lock",
                v.message);
    expect_verified(check_model(after_an_irq_reader([](Table& t) {
                        unsigned long flags;
                        write_lock_irqsave(&t.lock, flags);
                        write_unlock_irqrestore(&t.lock, flags);
                        write_lock_irq(&t.lock);
                        write_unlock_irq(&t.lock);
                    })),
                    "write_lock_irqsave");
}

TEST(Rwlock, under_lkmm_read_unlock_orders_the_readers_accesses_before_the_next_writer) {
    auto setup = [](bool locked) {
        return [locked] {
            Table& t = model_state<Table>();
            for (const char* name : {"reader0", "reader1"})
                spawn(name, [&t, locked] {
                    if (locked) read_lock_bh(&t.lock);
                    (void)t.x.read();
                    if (locked) read_unlock_bh(&t.lock);
                });
            spawn("writer", [&t, locked] {
                if (locked) write_lock_bh(&t.lock);
                t.x.write(1);
                if (locked) write_unlock_bh(&t.lock);
            });
        };
    };
    const SearchResult ordered = check_lkmm(setup(true));
    expect_verified(ordered, "locked");
    CHECK(ordered.stats.executions > 1);
    const SearchResult unlocked = check_lkmm(setup(false));
    CHECK_EQUAL(ViolationKind::data_race, only_violation(unlocked).kind);
}

TEST(Rwlock, a_lock_read_in_a_hardirq_taken_before_an_irq_unsafe_one_is_a_safe_to_unsafe_order) {
    const SearchResult r = check_model(after_an_irq_reader([](Table& t) {
        spin_lock(&t.other); // irqs on: other is HARDIRQ-unsafe
        spin_unlock(&t.other);
        read_lock_irq(&t.lock);
        spin_lock(&t.other); // tbl->lock, HARDIRQ-safe for read, -> other
        spin_unlock(&t.other);
        read_unlock_irq(&t.lock);
    }));
    const Violation& v = only_violation(r);
    CHECK_EQUAL("irq-safe-to-unsafe-lock-order", v.property);
    CHECK_TEXT(
        contains(v.message, "connects HARDIRQ-irq-safe tbl->lock to HARDIRQ-irq-unsafe other"),
        v.message.c_str());
}
