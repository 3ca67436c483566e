// Strategy: the one narrow interface every search (DFS, DPOR, replay, later random and PCT)
// implements. The scheduler asks it which enabled task takes each step, which value a
// nondeterministic model choice takes (where a preempted task resumes), and, after an
// execution, whether there is another one to run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "task_set.hpp"

namespace lockcheck::detail {

class Execution;

// What a stateful search stored: the states it explored and how often it met one again.
struct StateCounts {
    std::uint64_t stored = 0;
    std::uint64_t matched = 0; // executions ended at a state explored before
    std::uint64_t bytes = 0;   // the table's size
    bool full = false;         // the table reached its cap: later states went uncached
    // Explored level by level (--strategy bfs): `matched` counts the states reached again
    // that left nothing to run, not executions.
    bool breadth_first = false;
    // Empty where lists were kept as the sets of their entries (Execution::Limits::
    // lists_as_sets); else why they were kept in order: the read of an order that made the
    // search begin again ("list_first_entry(head) at step 12"), after
    // `executions_before_order` executions.
    std::string lists_in_order;
    std::uint64_t executions_before_order = 0;
    // Empty where loops were judged as cycles of the state graph (Execution::Limits::
    // loops_as_cycles); else why they were watched: what made the search begin again with
    // them watched ("execution 12 was cut by the depth bound"), after
    // `executions_before_watch` executions, or why it never judged them ("asked for").
    std::string loops_watched;
    std::uint64_t executions_before_watch = 0;
};

class Strategy;

// A part of a search handed to another thread (Strategy::split).
struct Handoff {
    std::unique_ptr<Strategy> part; // none: nothing to hand over
    // The part's share of the search the strategy was running, as explored() measures it.
    double share = 0;
    // The part needs nothing from the search it came from, but that search needs what the
    // part finds (DPOR: the races it sees with steps before it): it stops where the part
    // begins (next_execution() is false there) and goes on after the part, and everything
    // split from the part, has run to its end, by resume().
    bool resumes = false;
};

class Strategy {
  public:
    virtual ~Strategy() = default;
    // Which task takes step `step` (1-based). `enabled` is never empty; `ex` shows every
    // task's pending operation to strategies that reason about them (DPOR). A strategy may
    // return kNoTask to stop the execution, or a task outside `enabled` (a replay that
    // diverges): the execution then ends without running it.
    virtual TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) = 0;
    // A value in [0, n) for a model choice made during step `step` (n <= 64). A replay may
    // return a value out of range (it diverges) or kNoTask (it ran out).
    virtual std::uint32_t choose(std::uint32_t step, std::uint32_t n) = 0;
    // The execution is over (finished, cut, blocked or failed), its unfinished tasks still at
    // their pending operations: a partial-order reduction looks at the steps they did not
    // take. Called before next_execution().
    virtual void end(const Execution& ex) { (void)ex; }
    // Called after each execution: prepares the next one; false when the search is done.
    virtual bool next_execution() = 0;
    // The fraction of the search already run, in [0, 1], for a progress line; negative when
    // the strategy cannot tell. Read every so often between executions, never per step.
    virtual double explored() const { return -1; }
    // A stateful search compares states (Execution::fingerprint()): its executions keep the
    // histories that takes (Execution::Limits::fingerprints).
    virtual bool fingerprints() const { return false; }
    // Whether the search can judge loops as cycles of its state graph, under
    // Execution::Limits::loops_as_cycles.
    virtual bool finds_cycles() const { return false; }
    // Judging loops as cycles, once next_execution() returned false: what stopped the search
    // before it judged every loop (a cycle that can go on for ever, whose hang or livelock a
    // search watching loops reports with its trace; a state table at its cap); empty when it
    // judged them all.
    virtual std::string loops_unjudged() const { return {}; }
    // Whether what loops_unjudged() names is a cycle that can go on for ever.
    virtual bool loop_for_ever() const { return false; }
    // A stateful search as this one was made, not yet begun, for a search that must begin
    // again (Execution::list_order_read()); null where it cannot.
    virtual std::unique_ptr<Strategy> fresh() const { return nullptr; }
    // Between executions: hands the part of the search still to run that comes last in its
    // order to another thread (--jobs), as a strategy of its own, and leaves it out of this
    // one. Running this one to its end and then the part runs the same executions in the same
    // order as running this one would have. Searches that cannot split hand nothing.
    virtual Handoff split() { return {}; }
    // Whether split() can ever hand anything over: a search that cannot runs on one thread.
    virtual bool splits() const { return false; }
    // After a split that resumes, once `part` (a strategy split() handed over) ran to its
    // end: takes what it found and prepares the next execution; false if there is none.
    virtual bool resume(Strategy& part) {
        (void)part;
        return false;
    }
    virtual StateCounts states() const { return {}; }
    // Whether every decision of the current execution so far is one an earlier execution of
    // this search (on any thread) made alike, and the next one is still on that path: the
    // execution is where one was before, so what the search gathers over all its executions
    // (lkmm's rounds) need not be asked again here. False when the strategy cannot tell.
    virtual bool replaying() const { return false; }

    // Checkpoints (scheduler/checkpoint.hpp): a search that can go on from an execution saved
    // before one of its decisions, instead of replaying the decisions before it.
    static constexpr std::uint32_t kNoPosition = static_cast<std::uint32_t>(-1);
    virtual bool restores() const { return false; }
    // The position of the decision the search is asked next (picks and choices counted from
    // the execution's start): where a checkpoint saved now would be.
    virtual std::uint32_t position() const { return kNoPosition; }
    // After next_execution(): the first position at which the next execution decides otherwise
    // than the last one did; kNoPosition if they share no decision.
    virtual std::uint32_t divergence() const { return kNoPosition; }
    // The next execution goes on from a checkpoint saved at `position` (at most divergence()):
    // the decisions before it are made.
    virtual void resume_at(std::uint32_t position) { (void)position; }
};

} // namespace lockcheck::detail
