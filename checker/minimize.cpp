// Iterative preemption bounding over one property.
#include "minimize.hpp"

#include <new>

#include "bounded_dfs.hpp"

namespace lockcheck::detail {

namespace {

// Why the search must stop before the next execution; empty if it may go on.
std::string stop_reason(const Minimized& best, const ProgressPacer& pacer,
                        const CheckOptions& options, const MinimizeLimits& limits) {
    if (options.stop && *options.stop) return signal_name(*options.stop);
    if (best.executions == limits.executions)
        return "its limit of " + std::to_string(limits.executions) + " executions";
    if (limits.seconds > 0 && pacer.seconds() >= limits.seconds) return limits.time_limit_name;
    return {};
}

} // namespace

Minimized minimize(const Setup& setup, const Finding& found, std::uint32_t preemptions,
                   std::uint32_t steps, const CheckOptions& options, const MinimizeLimits& limits) {
    Minimized best{found, preemptions, steps, true, {}, 0};
    StackPool stacks(options.stack_size);
    // One of several findings (keep_going) must stay itself: broken the same way (its key),
    // or two findings of one property would come out as one counterexample twice. Alone, it
    // may become any violation of its property.
    auto same_finding = [&found, &options](const Violation& v) {
        return options.keep_going
                   ? v.key() == found.violation.key()
                   : v.kind == found.violation.kind && v.property == found.violation.property;
    };
    ProgressPacer pacer;
    for (std::uint32_t bound = 0;; ++bound) {
        BoundedDfs search(bound);
        do {
            // Every execution within a lower bound was clean: at the best's own bound only a
            // shorter one is smaller, so none needs to go further than one step less.
            const std::uint32_t max_steps =
                bound == best.preemptions ? best.steps - 1 : options.max_steps;
            if (bound == best.preemptions && best.steps <= 1) return best;
            if (std::string why = stop_reason(best, pacer, options, limits); !why.empty()) {
                best.minimal = false;
                best.stopped_by = std::move(why);
                return best;
            }
            ++best.executions;
            try {
                // With keep_going the property may break after a violation the execution goes
                // on past (options.limits()).
                Execution ex(stacks, search, options.limits(options.depth, max_steps));
                ex.set_up(setup);
                const Outcome out = ex.run();
                // The schedule up to the violation: the execution may have gone on past it.
                // Its preemptions are the execution's: with fewer, a lower bound would have
                // found it.
                const std::uint32_t used = search.preemptions();
                out.each_violation([&](const Violation& v, std::size_t reached) {
                    if (!same_finding(v)) return;
                    if (used > best.preemptions ||
                        (used == best.preemptions && v.step >= best.steps))
                        return;
                    const auto cut = ex.schedule().begin() + static_cast<std::ptrdiff_t>(reached);
                    best.finding = Finding{v, Schedule(ex.schedule().begin(), cut)};
                    best.preemptions = used;
                    best.steps = v.step;
                });
            } catch (const std::bad_alloc&) {
                // The smallest found so far stands, not proven minimal.
                best.minimal = false;
                best.stopped_by = kOutOfMemory;
                return best;
            }
            // Read every execution: the pacer reads the clock for the time limit too.
            if (pacer.tick() && options.progress) {
                ProgressReport report;
                report.phase = ProgressReport::Phase::minimizing;
                report.executions = best.executions;
                report.seconds = pacer.seconds();
                report.bound = bound;
                report.preemptions = best.preemptions;
                report.steps = best.steps;
                options.progress->show(report);
            }
        } while (search.next_execution());
        if (bound >= best.preemptions) return best;
    }
}

} // namespace lockcheck::detail
