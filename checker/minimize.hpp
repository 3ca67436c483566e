// Minimal counterexamples: among the executions that break the same property as a found one
// (with keep_going, the same finding: Violation::key), the one with the fewest preemptions,
// then the fewest steps. Found by exhaustive preemption-bounded searches at bounds 0, 1, 2,
// ... (iterative context bounding): the first bound with a counterexample is the minimum, and
// the shortest one at that bound is kept. At the bound of the best so far only a shorter
// execution can be smaller, so executions are cut one step before its length: a
// counterexample that no shorter one undercuts is proven minimal as soon as those few
// prefixes are run.
#pragma once

#include <cstdint>
#include <string>

#include "explorer.hpp"

namespace lockcheck::detail {

// How far the search for a smaller counterexample may go.
struct MinimizeLimits {
    std::uint64_t executions = 1'000'000;
    double seconds = 0; // 0: no limit
    // How the summary names the time limit when it stops the search: "--minimize-time 10x".
    std::string time_limit_name = "the time limit";
};

struct Minimized {
    Finding finding;
    std::uint32_t preemptions = 0;
    std::uint32_t steps = 0;
    // False when a limit or a signal stopped the search first: `finding` is the best found by
    // then (at worst the one given), not necessarily the minimum.
    bool minimal = true;
    std::string stopped_by;       // what stopped it: "--minimize-time 10x", "SIGINT"
    std::uint64_t executions = 0; // run by the searches
};

// `found` broke a property in an execution with `preemptions` preemptions and `steps` steps.
// Shows its progress to options.progress and stops at options.stop, as a search does.
Minimized minimize(const Setup& setup, const Finding& found, std::uint32_t preemptions,
                   std::uint32_t steps, const CheckOptions& options, const MinimizeLimits& limits);

} // namespace lockcheck::detail
