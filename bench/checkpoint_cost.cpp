// What a checkpoint costs next to a step: one execution of a shipped model's default variant at
// its default sizes along its lowest-first path, run to its end with and without checkpoints
// (the difference, per checkpoint saved, is a save: the switch to the main context and the
// copy), then resumed again and again from the deepest checkpoint it saved and stopped at once
// (a restore: the copy back and the switch into the task that asked).
#include <stdexcept>

#include "checker/explorer.hpp"
#include "checker/model_registry.hpp"
#include "measure.hpp"
#include "scheduler/checkpoint.hpp"
#include "scheduler/execution.hpp"

namespace lockcheck::detail::bench {

namespace {

// The lowest enabled task and the first value at every decision, counting the decisions so
// that checkpoints can be saved and resumed by position, as Dfs counts them. Once resumed it
// stops the execution at its next decision: what is timed then is the restore.
class FirstPath final : public Strategy {
  public:
    TaskId pick(std::uint32_t, TaskSet enabled, const Execution&) override {
        ++position_;
        return resumed_ ? kNoTask : lowest(enabled);
    }
    std::uint32_t choose(std::uint32_t, std::uint32_t) override {
        ++position_;
        return resumed_ ? kNoTask : 0;
    }
    bool next_execution() override { return false; }
    bool restores() const override { return true; }
    std::uint32_t position() const override { return position_; }
    void resume_at(std::uint32_t position) override {
        position_ = position;
        resumed_ = true;
    }

  private:
    std::uint32_t position_ = 0;
    bool resumed_ = false;
};

} // namespace

CheckpointCost measure_checkpoint(const std::string& model, int reps) {
    const Protocol* p = find_registered_model(model);
    if (!p) throw std::invalid_argument("no model " + model);
    const ParameterValues values = p->default_values();
    const std::size_t variant = p->default_variant;
    const Setup setup = [&] { p->setup(variant, values); };
    const CheckOptions options;
    StackPool stacks(options.stack_size);
    CheckpointCost cost;
    cost.model = model + " " + p->variants[variant].name;
    Checkpoints store;
    // One execution from its start, with checkpoints or without.
    auto run = [&](bool checkpoints) {
        FirstPath strategy;
        Execution::Limits limits = options.limits(p->depth_for(variant), options.max_steps);
        store.clear();
        if (checkpoints) limits.checkpoints = &store;
        Execution ex(stacks, strategy, limits);
        ex.set_up(setup);
        const std::uint64_t saved = store.saved;
        const auto start = Clock::now();
        const Outcome out = ex.run();
        const double seconds = seconds_since(start);
        cost.steps = out.steps;
        if (checkpoints) cost.saved = store.saved - saved;
        return seconds;
    };
    run(false); // maps the stacks
    cost.plain = time_repeated(reps, kNoBudget, [&] { return run(false); });
    cost.saving = time_repeated(reps, kNoBudget, [&] { return run(true); });
    if (cost.saved == 0) throw std::logic_error(model + " saved no checkpoint on its first path");

    // The execution that saved them, kept, resumed from its deepest one.
    FirstPath strategy;
    Execution::Limits limits = options.limits(p->depth_for(variant), options.max_steps);
    store.clear();
    limits.checkpoints = &store;
    Execution ex(stacks, strategy, limits);
    ex.set_up(setup);
    (void)ex.run();
    const std::uint32_t deepest = store.deepest_up_to(Checkpoints::kNone - 1);
    const Checkpoint& cp = store.at(deepest);
    cost.bytes = cp.arena.size() + cp.execution.size() + cp.stacks.size();
    cost.resuming = time_repeated(reps, kNoBudget, [&] {
        strategy.resume_at(deepest);
        const auto start = Clock::now();
        (void)ex.resume(deepest);
        return seconds_since(start);
    });
    return cost;
}

} // namespace lockcheck::detail::bench
