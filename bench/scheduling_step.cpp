// The cost of one scheduling step with nothing else in it: tasks whose every operation is an
// atomic_read, so the time is the step loop, the strategy call and the two fiber switches.
#include <stdexcept>
#include <string>

#include "checker/explorer.hpp"
#include "measure.hpp"
#include "model/kernel.hpp"

namespace lockcheck::bench {

namespace {

// The cheapest possible strategy, so that the figure is the scheduler's, not a search's.
class LowestFirst final : public Strategy {
  public:
    TaskId pick(std::uint32_t, TaskSet enabled) override { return lowest(enabled); }
    std::uint32_t choose(std::uint32_t, std::uint32_t) override { return 0; }
    bool next_execution() override { return false; }
};

// One execution of `steps` reads split over `tasks` tasks; returns the seconds run() took.
double run_reads(StackPool& stacks, int tasks, std::uint32_t steps) {
    LowestFirst strategy;
    Execution ex(stacks, strategy, Execution::Limits{steps});
    atomic_t& counter = ex.make<atomic_t>("counter");
    const std::uint32_t each = steps / static_cast<std::uint32_t>(tasks);
    for (int i = 0; i < tasks; ++i)
        spawn("reader" + std::to_string(i), [&counter, each] {
            for (std::uint32_t n = 0; n < each; ++n)
                atomic_read(&counter);
        });
    const auto start = Clock::now();
    const Outcome out = ex.run();
    const double seconds = seconds_since(start);
    if (out.end != End::finished || out.steps != steps)
        throw std::logic_error("the step benchmark's execution did not run to its end");
    return seconds;
}

} // namespace

StepCost measure_step(int tasks, std::uint32_t steps, int reps) {
    StepCost cost;
    cost.tasks = tasks;
    cost.steps = steps - steps % static_cast<std::uint32_t>(tasks);
    // The pool outlives the runs, so only the warm-up maps stacks.
    StackPool stacks(CheckOptions{}.stack_size);
    auto run = [&] { return run_reads(stacks, tasks, cost.steps); };
    run();
    cost.timing = time_repeated(reps, kNoBudget, run);
    return cost;
}

} // namespace lockcheck::bench
