// Iterative preemption bounding over one property.
#include "minimize.hpp"

#include "bounded_dfs.hpp"

namespace lockcheck {

Minimized minimize(const Setup& setup, const Finding& found, std::uint32_t preemptions,
                   std::uint32_t steps, const CheckOptions& options, std::uint64_t budget) {
    Minimized best{found, preemptions, steps, true, 0};
    StackPool stacks(options.stack_size);
    for (std::uint32_t bound = 0; bound <= preemptions; ++bound) {
        BoundedDfs search(bound);
        bool improved = false;
        do {
            if (best.executions == budget) {
                best.minimal = false;
                return best;
            }
            ++best.executions;
            Execution ex(stacks, search, options.limits(options.depth));
            setup();
            const Outcome out = ex.run();
            if (!out.violation || out.violation->kind != found.violation.kind ||
                out.violation->property != found.violation.property)
                continue;
            const std::uint32_t used = search.preemptions();
            if (used < best.preemptions || (used == best.preemptions && out.steps < best.steps)) {
                best.finding = Finding{*out.violation, ex.schedule()};
                best.preemptions = used;
                best.steps = out.steps;
                improved = true;
            }
        } while (search.next_execution());
        // Every execution within a lower bound was clean: this bound's best is the minimum.
        if (improved || bound == best.preemptions) return best;
    }
    return best;
}

} // namespace lockcheck
