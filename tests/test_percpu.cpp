// Per-CPU data and the CPUs tasks run on: percpu<T> is one named object per CPU, this_cpu_ptr()
// in preemptible code is reported as CONFIG_DEBUG_PREEMPT reports it, a preemptible task may
// resume on any online CPU at a preemption point (the search counts each CPU once), and CPU
// hotplug moves tasks, changes the online mask and is replayable like any other choice.
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct PerCpuHits {
    percpu<shared<int>> hits{"hits"};
};

// The model's CPUs, then one per-CPU object per CPU (set_nr_cpus() must come first).
PerCpuHits& cpus_with_hits(int nr_cpus) {
    set_nr_cpus(nr_cpus);
    return this_execution().make<PerCpuHits>();
}

// The name of the per-CPU object this task would use now.
std::string this_cpu_name(PerCpuHits& s) {
    preempt_disable();
    std::string name = this_cpu_ptr(&s.hits)->name();
    preempt_enable();
    return name;
}

// "0 2": the online CPUs, as for_each_online_cpu() walks them.
std::string online_cpus() {
    std::string out;
    for_each_online_cpu(cpu) out += (out.empty() ? "" : " ") + std::to_string(cpu);
    return out;
}

std::string possible_cpus() {
    std::string out;
    for_each_possible_cpu(cpu) out += (out.empty() ? "" : " ") + std::to_string(cpu);
    return out;
}

// Runs one task on CPU 0 of an `nr_cpus` model; `seen` counts, over all executions, the CPU
// it ran on when it recorded.
Setup one_task(int nr_cpus, std::map<int, int>& seen, void (*body)(std::map<int, int>&)) {
    return [nr_cpus, &seen, body] {
        set_nr_cpus(nr_cpus);
        spawn("t", [&seen, body] { body(seen); });
    };
}

void record_cpu(std::map<int, int>& seen) {
    ++seen[raw_smp_processor_id()];
}

} // namespace

TEST_GROUP(PerCpu){};

TEST(PerCpu, percpu_gives_one_distinct_object_per_possible_cpu_named_after_it) {
    std::string names;
    bool distinct = false;
    int nr = 0;
    const SearchResult r = check_model([&] {
        auto& s = cpus_with_hits(3);
        nr = nr_cpu_ids();
        names.clear();
        for_each_possible_cpu(cpu) names += per_cpu_ptr(&s.hits, cpu)->name() + " ";
        std::set<const shared<int>*> objects;
        for_each_possible_cpu(cpu) objects.insert(per_cpu_ptr(&s.hits, cpu));
        distinct = objects.size() == 3;
    });
    expect_verified(r);
    CHECK_EQUAL(3, nr);
    CHECK_EQUAL("hits@cpu0 hits@cpu1 hits@cpu2 ", names);
    CHECK(distinct);
}

TEST(PerCpu, a_model_has_one_cpu_unless_it_sets_more) {
    int nr = 0;
    std::string online;
    const SearchResult r = check_model([&] {
        nr = nr_cpu_ids();
        spawn("t", [&online] { online = online_cpus(); });
    });
    expect_verified(r);
    CHECK_EQUAL(1, nr);
    CHECK_EQUAL("0", online);
}

TEST(PerCpu, this_cpu_ptr_in_preemptible_code_is_a_preempt_violation) {
    const SearchResult r = check_model([] {
        auto& s = cpus_with_hits(2);
        spawn("counter", [&s] { this_cpu_ptr(&s.hits)->write(1); });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::preempt, v.kind);
    CHECK_EQUAL("smp-processor-id-preemptible", v.property);
    CHECK_EQUAL("BUG: using smp_processor_id() in preemptible code: counter (this_cpu_ptr() "
                "without preempt_disable())",
                v.message);
}

TEST(PerCpu, this_cpu_ptr_in_preemptible_code_is_reported_even_with_one_cpu) {
    // The kernel stays quiet on a one-CPU machine (the task cannot be anywhere else); the
    // model reports the code, which is wrong on any machine with two.
    const SearchResult r = check_model([] {
        auto& s = cpus_with_hits(1);
        spawn("counter", [&s] { this_cpu_ptr(&s.hits)->write(1); });
    });
    CHECK_EQUAL(ViolationKind::preempt, only_violation(r).kind);
}

TEST(PerCpu, this_cpu_ptr_under_preempt_disable_is_fine) {
    const SearchResult r = check_model([] {
        auto& s = cpus_with_hits(2);
        spawn("counter", [&s] {
            preempt_disable();
            this_cpu_ptr(&s.hits)->write(1);
            preempt_enable();
        });
    });
    expect_verified(r);
}

TEST(PerCpu, this_cpu_ptr_under_spin_lock_is_fine_because_the_lock_disables_preemption) {
    const SearchResult r = check_model([] {
        struct Locked {
            spinlock_t lock{"lock"};
            PerCpuHits s;
        };
        set_nr_cpus(2);
        auto& l = this_execution().make<Locked>();
        spawn("counter", [&l] {
            spin_lock(&l.lock);
            this_cpu_ptr(&l.s.hits)->write(1);
            spin_unlock(&l.lock);
        });
    });
    expect_verified(r);
}

TEST(PerCpu, raw_smp_processor_id_in_preemptible_code_is_not_reported) {
    std::map<int, int> seen;
    const SearchResult r = check_model(one_task(2, seen, &record_cpu));
    expect_verified(r);
    CHECK_EQUAL(1, seen[0]);
}

TEST(PerCpu, spawn_on_places_the_task_on_that_cpu) {
    std::map<std::string, int> seen;
    const SearchResult r = check_model([&seen] {
        auto& s = cpus_with_hits(3);
        spawn_on(2, "t", [&s, &seen] { ++seen[this_cpu_name(s)]; });
    });
    expect_verified(r);
    CHECK_EQUAL(1u, seen.size());
    CHECK_EQUAL(static_cast<int>(r.stats.executions), seen["hits@cpu2"]);
}

TEST(PerCpu, a_preemptible_task_resumes_on_every_online_cpu_at_preempt_enable) {
    // Two preempt_enable() calls, each a choice among 2 CPUs: 4 executions, and the
    // this_cpu_ptr() between them sees each CPU in 2 of them.
    std::map<std::string, int> seen;
    const SearchResult r = check_model([&seen] {
        auto& s = cpus_with_hits(2);
        spawn("t", [&s, &seen] {
            preempt_disable();
            preempt_enable();
            ++seen[this_cpu_name(s)];
        });
    });
    expect_verified(r);
    CHECK_EQUAL(4ul, r.stats.executions);
    CHECK_EQUAL(2u, seen.size());
    CHECK_EQUAL(2, seen["hits@cpu0"]);
    CHECK_EQUAL(2, seen["hits@cpu1"]);
}

TEST(PerCpu, with_three_cpus_each_preemption_point_is_a_choice_among_three) {
    std::map<std::string, int> seen;
    const SearchResult r = check_model([&seen] {
        auto& s = cpus_with_hits(3);
        spawn("t", [&s, &seen] {
            preempt_disable();
            preempt_enable();
            ++seen[this_cpu_name(s)];
        });
    });
    expect_verified(r);
    CHECK_EQUAL(9ul, r.stats.executions);
    CHECK_EQUAL(3u, seen.size());
}

TEST(PerCpu, with_one_cpu_preempt_enable_adds_no_execution) {
    std::map<std::string, int> seen;
    const SearchResult r = check_model([&seen] {
        auto& s = cpus_with_hits(1);
        spawn("t", [&s, &seen] {
            preempt_disable();
            preempt_enable();
            ++seen[this_cpu_name(s)];
        });
    });
    expect_verified(r);
    CHECK_EQUAL(1ul, r.stats.executions);
    CHECK_EQUAL(1, seen["hits@cpu0"]);
}

TEST(PerCpu, a_nested_preempt_enable_that_leaves_preemption_off_is_no_migration_point) {
    std::map<std::string, int> seen;
    const SearchResult r = check_model([&seen] {
        auto& s = cpus_with_hits(2);
        spawn("t", [&s, &seen] {
            preempt_disable();
            preempt_disable();
            preempt_enable();
            ++seen[this_cpu_ptr(&s.hits)->name()];
            preempt_enable(); // the only choice
        });
    });
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
    CHECK_EQUAL(1u, seen.size());
    CHECK_EQUAL(2, seen["hits@cpu0"]);
}

TEST(PerCpu, cond_resched_is_a_migration_point) {
    std::map<int, int> seen;
    const SearchResult r = check_model(one_task(2, seen, [](std::map<int, int>& s) {
        cond_resched();
        record_cpu(s);
    }));
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
    CHECK_EQUAL(1, seen[0]);
    CHECK_EQUAL(1, seen[1]);
}

TEST(PerCpu, schedule_is_a_migration_point) {
    std::map<int, int> seen;
    const SearchResult r = check_model(one_task(2, seen, [](std::map<int, int>& s) {
        schedule(); // TASK_RUNNING: it does not sleep, but it may be moved
        record_cpu(s);
    }));
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
    CHECK_EQUAL(1, seen[0]);
    CHECK_EQUAL(1, seen[1]);
}

TEST(PerCpu, a_migration_choice_replays_to_the_same_violation) {
    const Setup setup = [] {
        set_nr_cpus(2);
        spawn("t", [] {
            cond_resched();
            check(raw_smp_processor_id() == 0, "still on cpu0");
        });
    };
    const SearchResult r = check_model(setup);
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::check_failed, v.kind);
    CHECK_EQUAL("still on cpu0", v.property);
    // Task 0 takes the cond_resched step, then the choice moves it to CPU 1 (choice 0 stays).
    const Schedule& s = r.findings.front().schedule;
    CHECK_EQUAL("0.1", format_schedule(s));

    const ReplayResult again = replay(setup, s, CheckOptions{});
    CHECK_TEXT(again.ok, again.error.c_str());
    CHECK(again.outcome.violation.has_value());
    CHECK_EQUAL(v.key(), again.outcome.violation->key());

    // The trace shows the preemption point as a read of the online mask, with the CPU the
    // task resumed on as its value.
    CHECK_EQUAL(1u, again.trace.steps.size());
    CHECK_EQUAL("cond_resched", again.trace.steps[0].operation);
    CHECK_EQUAL("cpu_online_mask", again.trace.steps[0].object);
    CHECK_TEXT(again.trace.steps[0].value == 1, "the trace does not show the move to CPU 1");

    const ReplayResult stays = replay(setup, Schedule{0, 0}, CheckOptions{});
    CHECK_TEXT(stays.ok, stays.error.c_str());
    CHECK(!stays.outcome.violation.has_value());
}

TEST(PerCpu, a_replayed_migration_choice_out_of_range_is_refused_naming_the_step) {
    const Setup setup = [] {
        set_nr_cpus(2);
        spawn("t", [] { cond_resched(); });
    };
    const ReplayResult rr = replay(setup, Schedule{0, 2}, CheckOptions{});
    CHECK(!rr.ok);
    CHECK_EQUAL("step 1: the schedule's value for a choice among 2 is out of range", rr.error);
}

TEST_GROUP(CpuHotplug){};

TEST(CpuHotplug, remove_cpu_and_add_cpu_change_the_online_cpus_but_not_the_possible_ones) {
    std::string seen;
    const SearchResult r = check_model([&seen] {
        set_nr_cpus(3);
        spawn("hotplug", [&seen] {
            remove_cpu(1);
            seen = online_cpus() + " / " + possible_cpus() + " / " + std::to_string(cpu_online(1));
            add_cpu(1);
            seen += " | " + online_cpus() + " / " + std::to_string(cpu_online(1));
        });
    });
    expect_verified(r);
    CHECK_EQUAL("0 2 / 0 1 2 / 0 | 0 1 2 / 1", seen);
}

TEST(CpuHotplug, removing_the_last_online_cpu_is_refused) {
    std::string seen;
    const SearchResult r = check_model([&seen] {
        set_nr_cpus(2);
        spawn("hotplug", [&seen] {
            remove_cpu(0);
            remove_cpu(1);
            std::string mask;
            cpu_online_mask()->describe(mask);
            seen = online_cpus() + " " + mask;
        });
    });
    expect_verified(r);
    CHECK_EQUAL("1 {1}", seen);
}

TEST(CpuHotplug, removing_a_cpu_moves_its_tasks_to_the_first_online_cpu) {
    std::map<int, int> seen;
    const SearchResult r = check_model([&seen] {
        struct Flag {
            shared<int> removed{"removed"};
        };
        set_nr_cpus(3);
        auto& f = this_execution().make<Flag>();
        spawn_on(1, "victim", [&f, &seen] {
            while (!READ_ONCE(f.removed))
                cpu_relax();
            record_cpu(seen);
        });
        spawn_on(2, "hotplug", [&f] {
            remove_cpu(1);
            WRITE_ONCE(f.removed, 1);
        });
    });
    expect_verified(r);
    CHECK_EQUAL(1u, seen.size());
    CHECK_EQUAL(static_cast<int>(r.stats.executions), seen[0]);
}

TEST(CpuHotplug, the_removing_task_itself_moves_when_it_takes_its_own_cpu_down) {
    std::map<int, int> seen;
    const SearchResult r = check_model([&seen] {
        set_nr_cpus(3);
        spawn("hotplug", [&seen] {
            remove_cpu(0);
            record_cpu(seen); // CPU 1 is now the first online one
        });
    });
    expect_verified(r);
    CHECK_EQUAL(1, seen[1]);
}

TEST(CpuHotplug, a_preempted_task_never_resumes_on_an_offline_cpu) {
    std::map<int, int> seen;
    const SearchResult r = check_model(one_task(3, seen, [](std::map<int, int>& s) {
        remove_cpu(1);
        cond_resched();
        record_cpu(s);
    }));
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
    CHECK_EQUAL(1, seen[0]);
    CHECK_EQUAL(1, seen[2]);
    CHECK_EQUAL(0, seen[1]);
}

TEST(CpuHotplug, add_cpu_makes_the_cpu_a_place_to_resume_on_again) {
    std::map<int, int> seen;
    const SearchResult r = check_model(one_task(2, seen, [](std::map<int, int>& s) {
        remove_cpu(1);
        cond_resched(); // only CPU 0 is online: no choice
        add_cpu(1);
        cond_resched();
        record_cpu(s);
    }));
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
    CHECK_EQUAL(1, seen[0]);
    CHECK_EQUAL(1, seen[1]);
}

TEST(CpuHotplug, for_each_online_cpu_races_with_hotplug_as_separate_reads_of_the_mask) {
    // Each step of the walk reads the mask, so a walk can see a CPU go away half-way.
    std::set<std::string> walks;
    const SearchResult r = check_model([&walks] {
        set_nr_cpus(3);
        spawn("walker", [&walks] { walks.insert(online_cpus()); });
        spawn("hotplug", [] { remove_cpu(2); });
    });
    expect_verified(r);
    CHECK(walks.count("0 1 2") == 1);
    CHECK(walks.count("0 1") == 1);
    CHECK_EQUAL(2u, walks.size());
}

// Where the model lets a task change CPU, compared with the kernel. These fail while the
// engine misses the kernel's behaviour (see the comment in each).
TEST_GROUP(MigrationPoints){};

TEST(MigrationPoints, spin_unlock_is_a_preemption_point_like_preempt_enable) {
    // spin_unlock() ends in preempt_enable() (__raw_spin_unlock in spinlock_api_smp.h), so a
    // preemptible task may resume on the other CPU right after it, as after preempt_enable().
    // model/spinlock.cpp only drops preempt_count: the move is never explored.
    std::map<int, int> seen;
    const SearchResult r = check_model([&seen] {
        set_nr_cpus(2);
        auto& lock = this_execution().make<spinlock_t>("lock");
        spawn("t", [&seen, &lock] {
            spin_lock(&lock);
            spin_unlock(&lock);
            record_cpu(seen);
        });
    });
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
    CHECK_EQUAL(1, seen[1]);
}

TEST(MigrationPoints, a_task_that_slept_in_mutex_lock_may_wake_on_another_cpu) {
    // A contended mutex_lock() sleeps in schedule() (__mutex_lock_common) and the woken task
    // may be placed on any online CPU, as the model already does after schedule() itself.
    // model/mutex.cpp counts the sleep but never calls resume_on_any_cpu().
    std::map<int, int> seen;
    const SearchResult r = check_model([&seen] {
        set_nr_cpus(2);
        auto& m = this_execution().make<struct mutex>("m");
        spawn("holder", [&m] {
            mutex_lock(&m);
            mutex_unlock(&m);
        });
        spawn("sleeper", [&seen, &m] {
            mutex_lock(&m);
            mutex_unlock(&m);
            record_cpu(seen);
        });
    });
    expect_verified(r);
    CHECK_TEXT(seen[1] > 0, "the sleeper never woke on CPU 1");
}

TEST_GROUP(HotplugVsPreemptDisable){};

TEST(HotplugVsPreemptDisable, remove_cpu_waits_for_a_preempt_disabled_section_on_that_cpu) {
    // takedown_cpu() goes through stop_machine(), which cannot run while any CPU has
    // preemption disabled: a task between preempt_disable() and preempt_enable() stays on its
    // CPU and sees it online. model/percpu.cpp's remove_cpu() moves it half-way instead.
    const SearchResult r = check_model([] {
        set_nr_cpus(2);
        auto& x = this_execution().make<shared<int>>("x");
        spawn_on(1, "pinned", [&x] {
            preempt_disable();
            const int before = smp_processor_id();
            x.write(1);
            const int after = smp_processor_id();
            preempt_enable();
            check(before == after, "preempt_disable() keeps the task on its CPU");
        });
        spawn("hotplug", [] { remove_cpu(1); });
    });
    expect_verified(r);
}

TEST(PerCpu, a_cpu_count_or_cpu_number_out_of_range_is_a_set_up_error) {
    CHECK_THROWS(std::invalid_argument, check_model([] { set_nr_cpus(0); }));
    CHECK_THROWS(std::invalid_argument, check_model([] { set_nr_cpus(65); }));
    CHECK_THROWS(std::invalid_argument, check_model([] {
                     set_nr_cpus(2);
                     spawn_on(2, "nowhere", [] {});
                 }));
}
