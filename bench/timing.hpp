// Timing: the median of repeated, individually timed runs (std::chrono::steady_clock). Each run
// times only the region it chooses (set-up excluded), and the median ignores the odd run hit
// by an interrupt or a migration.
#pragma once

#include <algorithm>
#include <chrono>
#include <limits>
#include <vector>

namespace lockcheck::detail::bench {

struct Timing {
    double median = 0; // seconds per run
    double min = 0;
    double max = 0;
    int runs = 0;
};

using Clock = std::chrono::steady_clock;

// For time_repeated: run all the repetitions, however long they take.
inline constexpr double kNoBudget = std::numeric_limits<double>::infinity();

inline double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Calls `run` (which returns the seconds it measured) up to `reps` times, stopping early once
// the runs add up to `budget` seconds; at least one run. A search that takes minutes then runs
// once rather than stalling the benchmark for an hour.
template <class Run> Timing time_repeated(int reps, double budget, Run&& run) {
    std::vector<double> samples;
    double total = 0;
    while (samples.empty() || (static_cast<int>(samples.size()) < reps && total < budget)) {
        samples.push_back(run());
        total += samples.back();
    }
    std::sort(samples.begin(), samples.end());
    const std::size_t n = samples.size();
    const double median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    return Timing{median, samples.front(), samples.back(), static_cast<int>(n)};
}

} // namespace lockcheck::detail::bench
