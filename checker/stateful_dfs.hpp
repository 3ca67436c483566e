// StatefulDfs: exhaustive depth-first search that stores the states it explored (SPIN's
// default) and does not explore one twice, with sleep sets (Godefroid) so that independent
// steps are not run in both orders from one state. An execution ends where it reaches a state
// explored before, at no more steps and with no task to run that was not run from it then.
// docs/scaling.md says why it is exact and what a model must do for it.
#pragma once

#include <vector>

#include "scheduler/strategy.hpp"
#include "state_table.hpp"

namespace lockcheck::detail {

class StatefulDfs final : public Strategy {
  public:
    // `max_bytes`: the state table's cap (0: as much as memory allows).
    explicit StatefulDfs(std::size_t depth_hint = 0, std::size_t max_bytes = kStateTableBytes);
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override;
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override;
    // Notes whether the execution was cut (by the depth bound or --max-steps).
    void end(const Execution& ex) override;
    bool next_execution() override;
    double explored() const override;
    bool fingerprints() const override { return true; }
    std::unique_ptr<Strategy> fresh() const override {
        return std::make_unique<StatefulDfs>(depth_hint_, max_bytes_);
    }
    StateCounts states() const override;
    // Checkpoints: the sleep set a replay would carry to a position is the one its last pick
    // left (kept in the branch, whose tried tasks are as they were when it was computed).
    bool restores() const override { return true; }
    std::uint32_t position() const override { return static_cast<std::uint32_t>(position_); }
    std::uint32_t divergence() const override;
    void resume_at(std::uint32_t position) override;

  private:
    struct Branch {
        TaskSet options; // the tasks (or choice values) to run from here
        TaskSet tried;
        TaskSet sleep; // a pick: the tasks asleep on entry
        TaskSet after; // a pick: the tasks asleep once it ran, when it was last taken
        TaskId chosen;
        bool choice;
    };
    // A state met for the first time or again: the tasks to run from it, or none.
    TaskSet options_at(TaskSet enabled, TaskSet sleep, const Execution& ex);

    std::size_t depth_hint_;
    std::size_t max_bytes_;
    std::vector<Branch> path_;
    std::size_t position_ = 0;
    StateTable table_;
    TaskSet next_sleep_ = 0; // of the state the last pick leads to
    // The second of two racing accesses, which runs right after the first (see pick()).
    TaskId forced_ = kNoTask;
    std::uint64_t matched_ = 0;
    // An execution of this search so far was cut: a state explored before may have had what
    // follows it cut sooner than it would be from a shallower depth (see options_at()).
    bool cut_ = false;
};

} // namespace lockcheck::detail
