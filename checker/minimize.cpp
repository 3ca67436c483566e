// Iterative preemption bounding over one property.
#include "minimize.hpp"

#include "bounded_dfs.hpp"

namespace lockcheck {

Minimized minimize(const Setup& setup, const Finding& found, std::uint32_t preemptions,
                   std::uint32_t steps, const CheckOptions& options, std::uint64_t budget) {
    Minimized best{found, preemptions, steps, true, 0};
    StackPool stacks(options.stack_size);
    // As in the search: with keep_going the property may break after a violation the
    // execution goes on past.
    const Execution::Limits limits{options.depth, options.step_timeout,
                                   options.keep_going ? Execution::kNoEnd : 0};
    // One of several findings (keep_going) must stay itself: broken the same way (its key),
    // or two findings of one property would come out as one counterexample twice. Alone, it
    // may become any violation of its property.
    auto same_finding = [&found, &options](const Violation& v) {
        return options.keep_going
                   ? v.key() == found.violation.key()
                   : v.kind == found.violation.kind && v.property == found.violation.property;
    };
    for (std::uint32_t bound = 0; bound <= preemptions; ++bound) {
        BoundedDfs search(bound);
        bool improved = false;
        do {
            if (best.executions == budget) {
                best.minimal = false;
                return best;
            }
            ++best.executions;
            Execution ex(stacks, search, limits);
            setup();
            const Outcome out = ex.run();
            // The schedule up to the violation: the execution may have gone on past it. Its
            // preemptions are the execution's: with fewer, a lower bound would have found it.
            const std::uint32_t used = search.preemptions();
            out.each_violation([&](const Violation& v, std::size_t reached) {
                if (!same_finding(v)) return;
                if (used > best.preemptions || (used == best.preemptions && v.step >= best.steps))
                    return;
                const auto cut = ex.schedule().begin() + static_cast<std::ptrdiff_t>(reached);
                best.finding = Finding{v, Schedule(ex.schedule().begin(), cut)};
                best.preemptions = used;
                best.steps = v.step;
                improved = true;
            });
        } while (search.next_execution());
        // Every execution within a lower bound was clean: this bound's best is the minimum.
        if (improved || bound == best.preemptions) return best;
    }
    return best;
}

} // namespace lockcheck
