// lockdep and recursive reads (issue 40): a dependency is labelled by how its two locks were
// taken, -(ER)->, -(EN)->, -(SR)->, -(SN)-> (Documentation/locking/lockdep-design.rst: E the
// held lock exclusive or a non-recursive read, S a recursive read; R the new lock a recursive
// read, N anything else), and a cycle is a deadlock only if it is strong: no -(*R)-> followed
// by -(S*)->. rwlock_t's read_lock() is a recursive read in interrupt context only (qrwlock lets
// such a reader in unless a writer holds the lock: read_lock_is_recursive()), so two handlers
// that read one rwlock and take a spinlock in either order cannot deadlock, while a writer in
// the cycle still can.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct locks {
    rwlock_t a{"a"};
    spinlock_t b{"b"};
    completion handled{"handled"};
};

// On CPU 0's interrupt: read_lock(a) then spin_lock(b): a -(SN)-> b.
irqreturn_t read_then_lock(int, void* data) {
    auto* l = static_cast<locks*>(data);
    read_lock(&l->a);
    spin_lock(&l->b);
    spin_unlock(&l->b);
    read_unlock(&l->a);
    return IRQ_HANDLED;
}

// On CPU 1's interrupt: spin_lock(b) then read_lock(a): b -(ER)-> a.
irqreturn_t lock_then_read(int, void* data) {
    auto* l = static_cast<locks*>(data);
    spin_lock(&l->b);
    read_lock(&l->a);
    read_unlock(&l->a);
    spin_unlock(&l->b);
    return IRQ_HANDLED;
}

enum class Cpu1 { handler, writer, task_reader };

// The handler of CPU 0; on CPU 1 the other handler, or a task that takes b with interrupts off
// and then a, for write or (in task context: non-recursive) for read: b -(EN)-> a.
Setup handlers(Cpu1 cpu1) {
    return [cpu1] {
        set_nr_cpus(2);
        locks& l = model_state<locks>();
        request_irq(17, read_then_lock, 0, "dev0", &l);
        irq_fires(17, 0);
        if (cpu1 == Cpu1::handler) {
            request_irq(18, lock_then_read, 0, "dev1", &l);
            irq_fires(18, 1);
            return;
        }
        spawn_on(1, "task", [&l, cpu1] {
            unsigned long flags;
            spin_lock_irqsave(&l.b, flags);
            if (cpu1 == Cpu1::writer) {
                write_lock(&l.a);
                write_unlock(&l.a);
            } else {
                read_lock(&l.a);
                read_unlock(&l.a);
            }
            spin_unlock_irqrestore(&l.b, flags);
        });
    };
}

} // namespace

TEST_GROUP(LockdepRecursiveRead){};

// b -(ER)-> a -(SN)-> b: the recursive read of a in CPU 1's handler gets in beside CPU 0's,
// whatever b's holder waits for, so the circle is not strong and lockdep stays quiet.
TEST(LockdepRecursiveRead, a_cycle_through_a_recursive_read_then_a_recursive_readers_lock_is_none) {
    expect_verified_by_every_search(handlers(Cpu1::handler), "two handlers reading a");
}

// b -(EN)-> a -(SN)-> b: the writer waits for the handler's read, which waits for b; so does a
// task-context reader, which qrwlock queues behind a waiting writer.
TEST(LockdepRecursiveRead, a_writer_or_a_task_reader_in_the_cycle_is_still_a_circular_dependency) {
    for (Cpu1 cpu1 : {Cpu1::writer, Cpu1::task_reader}) {
        const char* what = cpu1 == Cpu1::writer ? "a writer" : "a task-context reader";
        const SearchResult r = check_model(handlers(cpu1));
        const Violation& v = only_violation(r, what);
        CHECK_EQUAL(ViolationKind::lock_order, v.kind);
        STRCMP_CONTAINS("circular", v.property.c_str());
    }
}

// Both kinds of b -> a in one execution: the handler's -(ER)-> first, then the task reader's
// -(EN)->, a new kind of a dependency the graph has, which closes the strong circle.
TEST(LockdepRecursiveRead, a_new_kind_of_a_known_dependency_is_checked_again) {
    const SearchResult r = check_model([] {
        set_nr_cpus(2);
        locks& l = model_state<locks>();
        request_irq(17, read_then_lock, 0, "dev0", &l);
        irq_fires(17, 0);
        request_irq(
            18,
            [](int irq, void* data) {
                lock_then_read(irq, data);
                complete(&static_cast<locks*>(data)->handled);
                return IRQ_HANDLED;
            },
            0, "dev1", &l);
        irq_fires(18, 1);
        spawn_on(1, "task", [&l] {
            wait_for_completion(&l.handled);
            unsigned long flags;
            spin_lock_irqsave(&l.b, flags);
            read_lock(&l.a);
            read_unlock(&l.a);
            spin_unlock_irqrestore(&l.b, flags);
        });
    });
    const Violation& v = only_violation(r, "b -(ER)-> a, then b -(EN)-> a");
    CHECK_EQUAL(ViolationKind::lock_order, v.kind);
    STRCMP_CONTAINS("circular", v.property.c_str());
}
