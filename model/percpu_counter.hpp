// struct percpu_counter: a counter split into a shared count and a per-CPU delta, folded
// into the count once it reaches the batch (lib/percpu_counter.c). percpu_counter_read() is
// the approximate shared count; percpu_counter_sum() adds the online CPUs' deltas. A CPU
// going offline folds its delta, as the kernel's CPU-dead callback does.
#pragma once

#include <vector>

#include "percpu.hpp"

namespace lockcheck::detail {

struct percpu_counter final : Object {
    // Set-up, after set_nr_cpus().
    explicit percpu_counter(std::string name, long long amount = 0);
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override {
        h.add(static_cast<std::uint64_t>(count));
        for (long long c : counters)
            h.add(static_cast<std::uint64_t>(c));
    }
    // The exact value (count plus every CPU's delta), without a scheduling point.
    long long peek_sum() const;

    long long count;
    std::vector<long long> counters; // per possible CPU
};

void percpu_counter_add_batch(percpu_counter* fbc, long long amount, long long batch,
                              std::source_location loc = std::source_location::current());
void percpu_counter_add(percpu_counter* fbc, long long amount,
                        std::source_location loc = std::source_location::current());
long long percpu_counter_read(percpu_counter* fbc,
                              std::source_location loc = std::source_location::current());
// Sets the count and clears every CPU's delta (lib/percpu_counter.c).
void percpu_counter_set(percpu_counter* fbc, long long amount,
                        std::source_location loc = std::source_location::current());
long long percpu_counter_sum(percpu_counter* fbc,
                             std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
