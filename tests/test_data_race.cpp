// Data races on plain shared variables (the model's KCSAN): two accesses of one variable by
// different tasks, at least one a write and at least one plain, that no lock, atomic, wake-up,
// completion or spawn orders are a violation naming both accesses and their steps. Each model
// below is a write of x by one task and a read (or write) by another, ordered by one
// mechanism; without it the same accesses race.
#include <string>

#include "harness.hpp"
#include "reports/json_report.hpp"
#include "reports/junit.hpp"
#include "reports/text.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Vars {
    shared<int> x{"x"};
    mutex lock{"lock"};
    spinlock_t spin{"spin"};
    struct rw_semaphore sem {
        "sem"
    };
    struct completion done {
        "done"
    };
    wait_queue_head_t wq{"wq"};
    atomic_t flag{"flag"};
    bitmap_word word{"word"};
};

// An exhaustive search that must find no race: it must also have run more than one
// interleaving, or it proved nothing.
void expect_no_race(const Setup& setup, const std::string& what) {
    const SearchResult r = check_model(setup);
    expect_verified(r, what);
    CHECK_TEXT(r.stats.executions > 1, what.c_str());
}

const Violation& expect_race(const SearchResult& r, const std::string& message) {
    const Violation& v = only_violation(r, message);
    CHECK_EQUAL(ViolationKind::data_race, v.kind);
    CHECK_EQUAL("data race on x", v.property);
    CHECK_EQUAL(message, v.message);
    return v;
}

void unordered_write_and_read() {
    auto& v = this_execution().make<Vars>();
    spawn("writer", [&v] { v.x.write(1); });
    spawn("reader", [&v] { (void)v.x.read(); });
}

} // namespace

TEST_GROUP(DataRace){};

TEST(DataRace, an_unordered_plain_write_and_read_race_naming_both_accesses_and_steps) {
    const SearchResult r = check_model(&unordered_write_and_read);
    // The first interleaving: the write at step 1, the read at step 2.
    const Violation& v = expect_race(
        r,
        "data race on x: write by writer at step 1 and read by reader at step 2 are not ordered");
    CHECK_EQUAL(2U, v.step);
    CHECK_EQUAL(1ul, r.stats.executions);
}

TEST(DataRace, the_reverse_order_races_too) {
    // Minimizing, or a search that runs the reader first, finds the read then the write.
    const SearchResult r = check_model([] {
        auto& v = this_execution().make<Vars>();
        spawn("reader", [&v] { (void)v.x.read(); });
        spawn("writer", [&v] { v.x.write(1); });
    });
    expect_race(
        r,
        "data race on x: read by reader at step 1 and write by writer at step 2 are not ordered");
}

TEST(DataRace, two_plain_writes_race) {
    const SearchResult r = check_model([] {
        auto& v = this_execution().make<Vars>();
        spawn("a", [&v] { v.x.write(1); });
        spawn("b", [&v] { v.x.write(2); });
    });
    expect_race(r, "data race on x: write by a at step 1 and write by b at step 2 are not ordered");
}

TEST(DataRace, two_plain_reads_never_race) {
    expect_no_race(
        [] {
            auto& v = this_execution().make<Vars>();
            spawn("a", [&v] { (void)v.x.read(); });
            spawn("b", [&v] { (void)v.x.read(); });
        },
        "two reads");
}

TEST(DataRace, accesses_under_one_mutex_never_race) {
    expect_no_race(
        [] {
            auto& v = this_execution().make<Vars>();
            spawn("writer", [&v] {
                mutex_lock(&v.lock);
                v.x.write(v.x.read() + 1);
                mutex_unlock(&v.lock);
            });
            spawn("reader", [&v] {
                mutex_lock(&v.lock);
                (void)v.x.read();
                mutex_unlock(&v.lock);
            });
        },
        "mutex");
}

TEST(DataRace, one_access_outside_the_mutex_races) {
    const SearchResult r = check_model([] {
        auto& v = this_execution().make<Vars>();
        spawn("writer", [&v] {
            mutex_lock(&v.lock);
            v.x.write(1);
            mutex_unlock(&v.lock);
        });
        spawn("reader", [&v] { (void)v.x.read(); });
    });
    expect_race(
        r,
        "data race on x: write by writer at step 2 and read by reader at step 4 are not ordered");
}

TEST(DataRace, accesses_under_one_spinlock_never_race) {
    expect_no_race(
        [] {
            auto& v = this_execution().make<Vars>();
            for (const char* name : {"a", "b"})
                spawn(name, [&v] {
                    spin_lock(&v.spin);
                    v.x.write(v.x.read() + 1);
                    spin_unlock(&v.spin);
                });
        },
        "spinlock");
}

TEST(DataRace, readers_under_down_read_and_a_writer_under_down_write_never_race) {
    expect_no_race(
        [] {
            auto& v = this_execution().make<Vars>();
            for (const char* name : {"reader0", "reader1"})
                spawn(name, [&v] {
                    down_read(&v.sem);
                    (void)v.x.read();
                    up_read(&v.sem);
                });
            spawn("writer", [&v] {
                down_write(&v.sem);
                v.x.write(1);
                up_write(&v.sem);
            });
        },
        "rwsem");
}

TEST(DataRace, a_completion_orders_the_write_before_the_read) {
    expect_no_race(
        [] {
            auto& v = this_execution().make<Vars>();
            spawn("writer", [&v] {
                v.x.write(1);
                complete(&v.done);
                atomic_inc(&v.flag); // runs before or after the read
            });
            spawn("reader", [&v] {
                wait_for_completion(&v.done);
                (void)v.x.read();
            });
        },
        "completion");
}

TEST(DataRace, a_wake_up_orders_the_write_before_the_woken_sleepers_read) {
    // The reader always sleeps; only the writer's wake_up() lets it go on. The writer waits
    // until the reader is on the queue (a read of the queue orders nothing for the reader).
    expect_no_race(
        [] {
            auto& v = this_execution().make<Vars>();
            spawn("writer", [&v] {
                v.x.write(1);
                while (!waitqueue_active(&v.wq))
                    cpu_relax();
                wake_up(&v.wq);
            });
            spawn("reader", [&v] {
                DEFINE_WAIT(wait);
                prepare_to_wait(&v.wq, &wait, TASK_UNINTERRUPTIBLE);
                schedule();
                finish_wait(&v.wq, &wait);
                (void)v.x.read();
            });
        },
        "wait queue");
}

TEST(DataRace, an_atomic_flag_orders_the_write_before_the_read_that_saw_it) {
    expect_no_race(
        [] {
            auto& v = this_execution().make<Vars>();
            spawn("writer", [&v] {
                v.x.write(1);
                atomic_set(&v.flag, 1);
            });
            spawn("reader", [&v] {
                if (atomic_read(&v.flag)) (void)v.x.read();
            });
        },
        "atomic");
}

TEST(DataRace, a_marked_flag_orders_nothing) {
    // WRITE_ONCE/READ_ONCE of the flag are not a release and an acquire.
    const SearchResult r = check_model([] {
        auto& v = this_execution().make<Vars>();
        shared<int>& flag = this_execution().make<shared<int>>("ready");
        spawn("writer", [&v, &flag] {
            v.x.write(1);
            WRITE_ONCE(flag, 1);
        });
        spawn("reader", [&v, &flag] {
            if (READ_ONCE(flag)) (void)v.x.read();
        });
    });
    expect_race(
        r,
        "data race on x: write by writer at step 1 and read by reader at step 4 are not ordered");
}

TEST(DataRace, a_task_spawned_after_a_write_is_ordered_after_it) {
    expect_no_race(
        [] {
            auto& v = this_execution().make<Vars>();
            spawn("parent", [&v] {
                v.x.write(1);
                spawn("child", [&v] { (void)v.x.read(); });
                atomic_inc(&v.flag);
            });
        },
        "spawn");
}

TEST(DataRace, a_write_after_the_spawn_races_with_the_child) {
    const SearchResult r = check_model([] {
        auto& v = this_execution().make<Vars>();
        spawn("parent", [&v] {
            atomic_inc(&v.flag);
            spawn("child", [&v] { (void)v.x.read(); });
            v.x.write(1);
        });
    });
    expect_race(
        r, "data race on x: write by parent at step 2 and read by child at step 3 are not ordered");
}

TEST(DataRace, marked_accesses_never_race_with_each_other) {
    expect_no_race(
        [] {
            auto& v = this_execution().make<Vars>();
            spawn("writer", [&v] { WRITE_ONCE(v.x, 1); });
            spawn("reader", [&v] { (void)READ_ONCE(v.x); });
            spawn("writer2", [&v] { WRITE_ONCE(v.x, 2); });
        },
        "READ_ONCE/WRITE_ONCE");
}

TEST(DataRace, a_plain_write_races_with_a_read_once) {
    const SearchResult r = check_model([] {
        auto& v = this_execution().make<Vars>();
        spawn("writer", [&v] { v.x.write(1); });
        spawn("reader", [&v] { (void)READ_ONCE(v.x); });
    });
    expect_race(r, "data race on x: write by writer at step 1 and read (READ_ONCE) by reader at "
                   "step 2 are not ordered");
}

TEST(DataRace, a_write_once_races_with_a_plain_read) {
    const SearchResult r = check_model([] {
        auto& v = this_execution().make<Vars>();
        spawn("writer", [&v] { WRITE_ONCE(v.x, 1); });
        spawn("reader", [&v] { (void)v.x.read(); });
    });
    expect_race(r, "data race on x: write (WRITE_ONCE) by writer at step 1 and read by reader at "
                   "step 2 are not ordered");
}

TEST(DataRace, a_plain_read_races_with_a_marked_write_it_is_not_ordered_after) {
    // The reader is ordered after b's write (the completion), not after a's: only a's races.
    const SearchResult r = check_model([] {
        auto& v = this_execution().make<Vars>();
        spawn("a", [&v] { WRITE_ONCE(v.x, 1); });
        spawn("b", [&v] {
            WRITE_ONCE(v.x, 2);
            complete(&v.done);
        });
        spawn("reader", [&v] {
            wait_for_completion(&v.done);
            (void)v.x.read();
        });
    });
    expect_race(r, "data race on x: write (WRITE_ONCE) by a at step 1 and read by reader at step "
                   "5 are not ordered");
}

TEST(DataRace, bit_operations_are_atomic_and_race_only_with_a_plain_access) {
    expect_no_race(
        [] {
            auto& v = this_execution().make<Vars>();
            spawn("a", [&v] { set_bit(0, &v.word); });
            spawn("b", [&v] { (void)test_and_set_bit(1, &v.word); });
            spawn("c", [&v] { (void)test_bit(0, &v.word); });
        },
        "bitops");
    const SearchResult r = check_model([] {
        auto& v = this_execution().make<Vars>();
        spawn("a", [&v] { set_bit(0, &v.word); });
        spawn("b", [&v] { (void)v.word.read(); });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::data_race, v.kind);
    CHECK_EQUAL("data race on word: write (set_bit) by a at step 1 and read by b at step 2 are "
                "not ordered",
                v.message);
}

TEST(DataRace, a_bit_operation_orders_like_an_atomic) {
    expect_no_race(
        [] {
            auto& v = this_execution().make<Vars>();
            spawn("writer", [&v] {
                v.x.write(1);
                set_bit(0, &v.word);
            });
            spawn("reader", [&v] {
                if (test_bit(0, &v.word)) (void)v.x.read();
            });
        },
        "bitops order");
}

TEST(DataRace, keep_going_reports_one_race_per_variable) {
    // Every interleaving of the two writers' read-then-write races on x, at various steps.
    const SearchResult r = check_keep_going([] {
        auto& v = this_execution().make<Vars>();
        for (const char* name : {"inc0", "inc1"})
            spawn(name, [&v] { v.x.write(v.x.read() + 1); });
    });
    CHECK_TEXT(r.stats.executions > 1, describe(r).c_str());
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::data_race, v.kind);
    CHECK_EQUAL("data race on x", v.property);
}

TEST(DataRace, dpor_finds_the_same_races_and_no_others) {
    // Race detection is the same in every interleaving of a class: DPOR runs one of each.
    const SearchResult raced = check_model(&unordered_write_and_read, Search::dpor, {});
    CHECK_EQUAL(ViolationKind::data_race, only_violation(raced).kind);
    const SearchResult clean = check_model(
        [] {
            auto& v = this_execution().make<Vars>();
            spawn("writer", [&v] {
                v.x.write(1);
                complete(&v.done);
                atomic_inc(&v.flag);
            });
            spawn("reader", [&v] {
                wait_for_completion(&v.done);
                (void)v.x.read();
                atomic_inc(&v.flag);
            });
        },
        Search::dpor, {});
    expect_verified(clean);
    CHECK(clean.stats.executions > 1);
}

TEST(DataRace, the_race_replays_and_reports_with_kind_data_race) {
    const SearchResult r = check_model(&unordered_write_and_read);
    const Finding& f = r.findings.at(0);
    const ReplayResult rr = replay(&unordered_write_and_read, f.schedule, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    CHECK_EQUAL(f.violation.key(), rr.outcome.violation->key());
    CHECK_EQUAL(f.violation.message, rr.outcome.violation->message);
    // The trace shows both accesses.
    CHECK_EQUAL(2U, rr.trace.steps.size());
    CHECK_EQUAL("write(x) -> 1", operation_text(rr.trace.steps[0]));
    CHECK_EQUAL("read(x) -> 1", operation_text(rr.trace.steps[1]));
    // Each access's line in the model follows, one a line.
    CHECK_EQUAL(2U, f.violation.details.size());
    CHECK_EQUAL("VIOLATION (data-race) at step 2: " + f.violation.message + "\n  " +
                    f.violation.details[0] + "\n  " + f.violation.details[1] + "\n",
                format_violation(f.violation));

    RunReport report;
    report.summary.model = "data-race-test";
    report.summary.violations = 1;
    report.counterexamples.push_back({f.violation, f.schedule, rr.trace, "replay"});
    const std::string json = to_json(report);
    CHECK_TEXT(contains(json, "\"kind\": \"data-race\""), json.c_str());
    RunReport back;
    std::string error;
    CHECK_TEXT(from_json(json, back, error), error.c_str());
    CHECK_EQUAL(ViolationKind::data_race, back.counterexamples.at(0).violation.kind);
    CHECK_EQUAL(f.violation.message, back.counterexamples.at(0).violation.message);
    const std::string junit = to_junit({report});
    CHECK_TEXT(contains(junit, "type=\"data-race\""), junit.c_str());
}
