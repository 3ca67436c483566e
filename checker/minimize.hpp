// Minimal counterexamples: among the executions that break the same property as a found one
// (with keep_going, the same finding: Violation::key), the one with the fewest preemptions,
// then the fewest steps. Found by exhaustive preemption-bounded searches at bounds 0, 1, 2,
// ... (iterative context bounding): the first bound with a counterexample is the minimum, and
// the shortest one at that bound is kept.
#pragma once

#include <cstdint>

#include "explorer.hpp"

namespace lockcheck {

struct Minimized {
    Finding finding;
    std::uint32_t preemptions = 0;
    std::uint32_t steps = 0;
    // False when the budget ran out first: `finding` is the best found by then (at worst the
    // one given), not necessarily the minimum.
    bool minimal = true;
    std::uint64_t executions = 0; // run by the searches
};

// `found` broke a property in an execution with `preemptions` preemptions and `steps` steps.
// The searches run at most `budget` executions in all.
Minimized minimize(const Setup& setup, const Finding& found, std::uint32_t preemptions,
                   std::uint32_t steps, const CheckOptions& options, std::uint64_t budget);

} // namespace lockcheck
