// The cost of one scheduling step with nothing else in it: tasks whose every operation is an
// atomic_read, so the time is the scheduling step, the strategy call and, when the step is
// taken by another task than the last, the fiber switch.
#include <stdexcept>
#include <string>

#include "checker/explorer.hpp"
#include "checker/lowest_first.hpp"
#include "measure.hpp"
#include "model/kernel.hpp"

namespace lockcheck::detail::bench {

namespace {

// The next enabled task after the last one picked, round the tasks: every step switches.
class RoundRobin final : public Strategy {
  public:
    TaskId pick(std::uint32_t, TaskSet enabled, const Execution&) override {
        const TaskSet after = enabled & ~((task_bit(last_) << 1) - 1);
        last_ = lowest(after ? after : enabled);
        return last_;
    }
    std::uint32_t choose(std::uint32_t, std::uint32_t) override { return 0; }
    bool next_execution() override { return false; }

  private:
    TaskId last_ = 0;
};

template <class Pick>

// One execution of `steps` reads split over `tasks` tasks; returns the seconds run() took.
double run_reads(StackPool& stacks, int tasks, std::uint32_t steps) {
    Pick strategy;
    // Reads that change nothing would be watched as a retry loop after --spin-bound steps:
    // the bound is the whole execution, so that only the step is measured.
    Execution::Limits limits{steps, 10, steps};
    limits.max_steps = steps;
    Execution ex(stacks, strategy, limits);
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

const char* describe(StepShape shape) {
    return shape == StepShape::same_task ? "the same task goes on" : "every step switches task";
}

StepCost measure_step(int tasks, StepShape shape, std::uint32_t steps, int reps) {
    if (shape == StepShape::switching && tasks < 2)
        throw std::invalid_argument("a step can switch task only between two tasks or more");
    StepCost cost;
    cost.tasks = tasks;
    cost.shape = shape;
    cost.steps = steps - steps % static_cast<std::uint32_t>(tasks);
    // The pool outlives the runs, so only the warm-up maps stacks.
    StackPool stacks(CheckOptions{}.stack_size);
    auto run = [&] {
        return shape == StepShape::same_task ? run_reads<LowestFirst>(stacks, tasks, cost.steps)
                                             : run_reads<RoundRobin>(stacks, tasks, cost.steps);
    };
    run();
    cost.timing = time_repeated(reps, kNoBudget, run);
    return cost;
}

} // namespace lockcheck::detail::bench
