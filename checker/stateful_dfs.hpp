// StatefulDfs: exhaustive depth-first search that stores the states it explored (SPIN's
// default) and does not explore one twice, with sleep sets (Godefroid) so that independent
// steps are not run in both orders from one state. An execution ends where it reaches a state
// explored before, at no more steps and with no task to run that was not run from it then.
// docs/scaling.md says why it is exact and what a model must do for it. With loops judged as
// cycles (Execution::Limits::loops_as_cycles) it finds the loops that can go on for ever
// (loop_finder.hpp), and keeps out of sleep sets the tasks whose steps a cycle can have.
#pragma once

#include <string>
#include <vector>

#include "loop_finder.hpp"
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
    bool finds_cycles() const override { return true; }
    std::string loops_unjudged() const override { return unjudged_; }
    bool loop_for_ever() const override { return loop_for_ever_; }
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
        LoopFinder::Node node = LoopFinder::kNoNode; // a pick's state, judging loops
    };
    // A state met for the first time or again: the tasks to run from it, or none. Judging
    // loops, the node of the state it enters in entered_ (kNoNode: it enters none).
    TaskSet options_at(TaskSet enabled, TaskSet sleep, const Execution& ex);
    // Judging loops: the steps from the state of branch `index` are all taken. False when that
    // closes a loop that can go on for ever (unjudged_ says which).
    bool leave(std::size_t index);

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
    // Loops judged as cycles (Execution::Limits::loops_as_cycles), as the executions run.
    bool judging_ = false;
    LoopFinder loops_;
    LoopFinder::Node entered_ = LoopFinder::kNoNode;
    Fingerprint state_;                   // of the state options_at() met last
    std::vector<std::string> task_names_; // for unjudged_
    std::string unjudged_;                // see Strategy::loops_unjudged()
    bool loop_for_ever_ = false;
};

} // namespace lockcheck::detail
