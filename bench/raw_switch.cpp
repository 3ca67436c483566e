// The floor under every scheduling step: one bare Boost.Context switch, with no scheduler
// around it, on the same guard-paged stacks the engine gives its tasks. Two variants show
// what the floor does not include (see docs/PERFORMANCE.md).
#include <cfenv>

#include <boost/context/detail/fcontext.hpp>

#include "checker/explorer.hpp"
#include "measure.hpp"
#include "scheduler/stack_pool.hpp"

namespace lockcheck::detail::bench {

namespace fc = boost::context::detail;

namespace {

// The fiber's whole life: switch straight back, forever. It is abandoned, never finished.
[[noreturn]] void bounce(fc::transfer_t from) {
    for (;;)
        from = fc::jump_fcontext(from.fctx, nullptr);
}

// The same with the sticky "inexact" flag flipped in the fiber only, as a model task that
// computes with doubles would leave it: each switch now loads a different MXCSR value.
[[noreturn]] void bounce_flags_differ(fc::transfer_t from) {
    if (std::fetestexcept(FE_INEXACT))
        std::feclearexcept(FE_INEXACT);
    else
        std::feraiseexcept(FE_INEXACT);
    bounce(from);
}

// The same with the fiber switching two calls deep, as a task does (atomic_read ->
// Execution::visible -> jump_fcontext): the returns after each switch find the other
// context's calls on the CPU's return-stack buffer. The empty asm keeps the calls real.
fc::fcontext_t g_caller;

[[gnu::noinline]] void visible_like() {
    g_caller = fc::jump_fcontext(g_caller, nullptr).fctx;
    asm volatile("");
}

[[gnu::noinline]] void atomic_read_like() {
    visible_like();
    asm volatile("");
}

[[noreturn]] void bounce_two_frames(fc::transfer_t from) {
    g_caller = from.fctx;
    for (;;)
        atomic_read_like();
}

fc::fcontext_t make_fiber(const Stack& stack, SwitchShape shape) {
    auto* entry = shape == SwitchShape::mxcsr_differs ? &bounce_flags_differ
                  : shape == SwitchShape::two_frames  ? &bounce_two_frames
                                                      : &bounce;
    return fc::make_fcontext(stack.top, stack.size, entry);
}

} // namespace

const char* describe(SwitchShape shape) {
    switch (shape) {
    case SwitchShape::plain:
        return "jump_fcontext ping-pong";
    case SwitchShape::mxcsr_differs:
        return "ping-pong, fiber's MXCSR flags differ";
    case SwitchShape::two_frames:
        return "ping-pong, fiber switches 2 calls deep";
    }
    return "";
}

SwitchCost measure_raw_switch(SwitchShape shape, std::uint64_t switches, int reps) {
    StackPool stacks(CheckOptions{}.stack_size);
    Stack stack = stacks.acquire();
    const std::uint64_t round_trips = switches / 2;
    auto run = [&] {
        // A fresh fiber per run, as the engine makes its tasks' fibers at the start of each
        // execution: make_fcontext copies the caller's MXCSR, which this run's timing code
        // may have changed since the last one.
        fc::fcontext_t fiber = fc::jump_fcontext(make_fiber(stack, shape), nullptr).fctx;
        const auto start = Clock::now();
        for (std::uint64_t i = 0; i < round_trips; ++i)
            fiber = fc::jump_fcontext(fiber, nullptr).fctx;
        return seconds_since(start);
    };
    run(); // warm-up: caches, branch predictors, the stack's pages
    SwitchCost cost;
    cost.shape = shape;
    cost.switches = round_trips * 2;
    cost.timing = time_repeated(reps, kNoBudget, run);
    stacks.release(stack);
    return cost;
}

} // namespace lockcheck::detail::bench
