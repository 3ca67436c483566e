// percpu_counter: small deltas stay in the adding CPU's counter and fold into the shared count
// once they reach the batch (lib/percpu_counter.c), so percpu_counter_read() is approximate
// while percpu_counter_sum() is exact, and a CPU going offline folds its delta so no count
// is lost.
#include <set>
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

std::string state(const percpu_counter& c) {
    std::string out;
    c.describe(out);
    return out;
}

struct Counter {
    percpu_counter nr{"nr_items"};
};

// The model's CPUs, then the counter (it sizes its per-CPU part from them).
Counter& counter_on(int nr_cpus) {
    set_nr_cpus(nr_cpus);
    return this_execution().make<Counter>();
}

} // namespace

TEST_GROUP(PercpuCounter){};

TEST(PercpuCounter, add_batch_keeps_small_deltas_per_cpu_and_folds_them_at_the_batch) {
    std::string seen;
    const SearchResult r = check_model([&seen] {
        auto& c = counter_on(2);
        spawn("t", [&c, &seen] {
            percpu_counter_add_batch(&c.nr, 3, 8);
            seen = state(c.nr) + " | ";
            percpu_counter_add_batch(&c.nr, 4, 8);
            seen += state(c.nr) + " | ";
            percpu_counter_add_batch(&c.nr, 1, 8); // the delta reaches 8: folded
            seen += state(c.nr);
        });
    });
    expect_verified(r);
    CHECK_EQUAL("count = 0, per-CPU [3, 0] | count = 0, per-CPU [7, 0] | count = 8, per-CPU [0, 0]",
                seen);
}

TEST(PercpuCounter, a_negative_delta_folds_when_it_reaches_minus_the_batch) {
    std::string seen;
    const SearchResult r = check_model([&seen] {
        auto& c = counter_on(2);
        spawn("t", [&c, &seen] {
            percpu_counter_add_batch(&c.nr, -5, 8);
            seen = state(c.nr) + " | ";
            percpu_counter_add_batch(&c.nr, -3, 8);
            seen += state(c.nr);
        });
    });
    expect_verified(r);
    CHECK_EQUAL("count = 0, per-CPU [-5, 0] | count = -8, per-CPU [0, 0]", seen);
}

TEST(PercpuCounter, percpu_counter_add_uses_the_default_batch_of_at_least_32) {
    std::string seen;
    const SearchResult r = check_model([&seen] {
        auto& c = counter_on(2); // max(32, 2 * nr_cpus)
        spawn("t", [&c, &seen] {
            percpu_counter_add(&c.nr, 31);
            seen = state(c.nr) + " | ";
            percpu_counter_add(&c.nr, 1);
            seen += state(c.nr);
        });
    });
    expect_verified(r);
    CHECK_EQUAL("count = 0, per-CPU [31, 0] | count = 32, per-CPU [0, 0]", seen);
}

TEST(PercpuCounter, adding_in_preemptible_code_is_fine_since_the_counter_disables_preemption) {
    const SearchResult r = check_model([] {
        auto& c = counter_on(2);
        spawn("t", [&c] { percpu_counter_add(&c.nr, 1); });
    });
    expect_verified(r);
}

TEST(PercpuCounter, read_is_the_approximate_shared_count_and_sum_adds_every_cpus_delta) {
    std::set<std::string> seen;
    const SearchResult r = check_model([&seen] {
        struct Adders {
            Counter c;
            struct completion added {
                "added"
            };
        };
        set_nr_cpus(2);
        auto& a = this_execution().make<Adders>();
        spawn_on(0, "add3", [&a] {
            percpu_counter_add_batch(&a.c.nr, 3, 8);
            complete(&a.added);
        });
        spawn_on(1, "add4", [&a] {
            percpu_counter_add_batch(&a.c.nr, 4, 8);
            complete(&a.added);
        });
        spawn("reader", [&a, &seen] {
            wait_for_completion(&a.added);
            wait_for_completion(&a.added);
            const long long read = percpu_counter_read(&a.c.nr);
            const long long sum = percpu_counter_sum(&a.c.nr);
            seen.insert("read " + std::to_string(read) + ", sum " + std::to_string(sum));
        });
    });
    expect_verified(r);
    CHECK_EQUAL(1u, seen.size());
    CHECK_EQUAL("read 0, sum 7", *seen.begin());
}

TEST(PercpuCounter, remove_cpu_folds_the_dead_cpus_delta_so_the_sum_is_unchanged) {
    std::string seen;
    const SearchResult r = check_model([&seen] {
        auto& c = counter_on(2);
        spawn_on(1, "t", [&c, &seen] {
            percpu_counter_add_batch(&c.nr, 3, 8);
            seen = "read " + std::to_string(percpu_counter_read(&c.nr)) + ", sum " +
                   std::to_string(percpu_counter_sum(&c.nr)) + " | ";
            remove_cpu(1);
            seen += "read " + std::to_string(percpu_counter_read(&c.nr)) + ", sum " +
                    std::to_string(percpu_counter_sum(&c.nr)) + ", " + state(c.nr);
        });
    });
    expect_verified(r);
    CHECK_EQUAL("read 0, sum 3 | read 3, sum 3, count = 3, per-CPU [0, 0]", seen);
}

TEST(PercpuCounter, no_count_is_lost_when_hotplug_races_with_adders_on_every_interleaving) {
    const SearchResult r = check_model([] {
        auto& c = counter_on(2);
        for (int cpu = 0; cpu < 2; ++cpu)
            spawn_on(cpu, "add@cpu" + std::to_string(cpu), [&c] {
                percpu_counter_add_batch(&c.nr, 1, 4);
                percpu_counter_add_batch(&c.nr, 1, 4);
            });
        spawn("hotplug", [] { remove_cpu(1); });
        final_check("the exact sum is 4", [&c] { return c.nr.peek_sum() == 4; });
        final_check("the dead CPU holds no delta", [&c] { return c.nr.counters[1] == 0; });
    });
    expect_verified(r);
    CHECK_EQUAL(0ul, r.stats.cut);
    // 2 + 2 + 1 independent steps: 5! / (2! 2! 1!) interleavings.
    CHECK_EQUAL(30ul, r.stats.executions);
}

TEST(PercpuCounter, percpu_counter_set_replaces_the_count_and_clears_every_cpu_delta) {
    const SearchResult r = check_model([] {
        set_nr_cpus(2);
        auto& fbc = this_execution().make<percpu_counter>("used");
        spawn_on(1, "t", [&fbc] {
            percpu_counter_add_batch(&fbc, 3, 8); // a delta on CPU 1
            percpu_counter_set(&fbc, 10);
            check(fbc.peek_sum() == 10 && fbc.counters[1] == 0, "set clears the deltas");
        });
    });
    expect_verified(r);
}
