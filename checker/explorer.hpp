// The checker's entry points: explore a model's executions under a strategy and collect what
// breaks, and replay one schedule into a full trace.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "progress.hpp"
#include "scheduler/execution.hpp"
#include "scheduler/schedule.hpp"
#include "scheduler/strategy.hpp"
#include "search_stats.hpp"
#include "trace.hpp"

namespace lockcheck::detail {

// Builds one execution's state and tasks (a protocol's set-up with its variant and sizes).
using Setup = std::function<void()>;

struct CheckOptions {
    std::uint32_t depth = 200; // scheduling choices (see Execution::Limits::depth)
    std::uint32_t max_steps = Execution::kDefaultMaxSteps;
    bool keep_going = false;             // collect every distinct violation
    std::size_t stack_size = 256 * 1024; // per task fiber
    unsigned step_timeout = 10;          // seconds without a scheduling point: an endless loop
    std::uint64_t max_executions = 0;    // stop after this many (0: no limit)
    double time_limit = 0;               // seconds; stop after the execution running then (0: none)
    ProgressSink* progress = nullptr;    // shown how the search goes, a few times a second
    // Threads that run executions: a search that can split (Strategy::split) shares its work
    // among them, with the same result as on one. --max-executions runs on one.
    unsigned jobs = 1;
    // Once it holds a signal's number, the search stops after the execution running then.
    const StopRequest* stop = nullptr;
    std::uint32_t spin_bound = 32; // see Execution::Limits::spin_bound
    // The properties checked (see Execution::Limits): lockdep's reports, data races, and the
    // model's invariants and final checks but those named in `unchecked`.
    bool lockdep = true;
    bool races = true;
    std::vector<std::string> unchecked;
    std::vector<WaitBound> wait_bounds;         // --max-wait
    std::vector<WaitRatio> wait_ratios;         // --max-wait-ratio
    MemoryModel memory_model = MemoryModel::sc; // --memory-model
    // Under lkmm, explore load buffering (off: --no-load-buffering; litmus tests always do):
    // the search runs in rounds, each with a fresh strategy from next_round, while the round
    // before recorded evidence it had not and a round with it may explore something new
    // (docs/memory-model.md, "Load buffering"). Without: one round, every read taken to order
    // its task's later writes, and no read of a write made later.
    bool load_buffering = true;
    std::function<std::unique_ptr<Strategy>()> next_round;
    bool unwind_tasks = false; // --unwind-tasks (Execution::Limits)
    // Go on from checkpoints instead of replaying each execution's path from its start, where
    // the strategy can (off: --no-checkpoints, scheduler/checkpoint.hpp).
    bool checkpoints = true;
    // A stateful search keeps lists as the sets of their entries until a step reads one's
    // order, then begins again with them in order (Execution::Limits::lists_as_sets; off: the
    // tests, to compare).
    bool lists_as_sets = true;
    // A stateful depth-first search under sc judges loops as cycles of its state graph, and
    // begins again with them watched when it meets what it does not judge
    // (Execution::Limits::loops_as_cycles; off: the tests, to compare).
    bool loops_as_cycles = true;

    // The limits of one execution of at most `depth` choices and `max_steps` steps. With keep_going
    // it goes on past the violations the kernel survives, so that each one's later steps are
    // checked too, under every strategy alike: a partial-order reduction needs their races to run
    // the executions that reorder them.
    Execution::Limits limits(std::uint32_t depth, std::uint32_t max_steps) const {
        Execution::Limits l{depth,
                            step_timeout,
                            spin_bound,
                            keep_going ? Execution::kNoEnd : 0,
                            nullptr,
                            lockdep,
                            races,
                            unchecked.empty() ? nullptr : &unchecked,
                            wait_bounds.empty() ? nullptr : &wait_bounds};
        l.memory_model = memory_model;
        l.max_steps = max_steps;
        l.unwind_tasks = unwind_tasks;
        return l;
    }
};

SearchResult explore(const Setup& setup, Strategy& strategy, const CheckOptions& options);

// The model's invariants and final checks as its set-up declares them, in that order; no task
// runs. What --check and --no-check may name.
std::vector<PropertyStats> declared_properties(const Setup& setup, const CheckOptions& options);

struct ReplayResult {
    bool ok = false;
    std::string error; // why the schedule does not fit the model, when !ok
    Outcome outcome;
    Trace trace;
    SearchStats stats; // of this one execution
};

// Runs exactly `schedule`; it must drive the execution to its end (or to a violation). It goes
// on past the violations the kernel survives (survivable()) met before the schedule's end
// (a counterexample found with keep_going may have them), and ends at the first violation
// met at its end, or, given `reproduces` (the violation a search found with this schedule),
// at the first one there that is the same finding: several may be met after its last step.
// outcome.violation is the one it ended at.
ReplayResult replay(const Setup& setup, const Schedule& schedule, const CheckOptions& options,
                    const Violation* reproduces = nullptr);
// Under lkmm, after a search in rounds: what the last round's evidence told the execution of
// `schedule`, for its replay line (memory::Tape::format(); docs/memory-model.md, "Load
// buffering"); "" when it told nothing.
std::string evidence_tape(const Setup& setup, const Schedule& schedule,
                          const CheckOptions& options);
// Where options' bounds (depth, max_steps) cut an execution of `schedule` before the schedule
// ends: the steps it took then, and whether max_steps was the bound. (replay() runs a schedule
// whatever the bounds; a saved report's must have let its search reach its counterexamples.)
struct BoundCut {
    std::uint32_t steps = 0;
    bool by_steps = false;
};
std::optional<BoundCut> bounds_cut_schedule(const Setup& setup, const Schedule& schedule,
                                            const CheckOptions& options);

} // namespace lockcheck::detail
