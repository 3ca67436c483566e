// The three measurements lockcheck-bench makes, and the targets of the performance issue they
// are judged against. Each returns plain figures; formatting lives in report.hpp.
#pragma once

#include <cstdint>
#include <string>

#include "timing.hpp"

namespace lockcheck::detail::bench {

// One scheduling step may cost at most this many raw fiber switches (median).
inline constexpr double kMaxSwitchesPerStep = 3.0;
// The exhaustive search must run at least this many steps per second on one core.
inline constexpr double kMinStepsPerSecond = 5e6;

// How the fiber of the raw-switch benchmark switches back. Only `plain` is the reference the
// step is judged against; the others measure costs a plain ping-pong leaves out.
enum class SwitchShape {
    plain,         // straight back from the fiber's loop
    mxcsr_differs, // the fiber's floating-point status flags differ from the caller's
    two_frames,    // from two calls deep, as a task switches from atomic_read()
};
const char* describe(SwitchShape shape);

struct SwitchCost {
    SwitchShape shape = SwitchShape::plain;
    std::uint64_t switches = 0; // per run
    Timing timing;
    double ns_per_switch() const { return timing.median * 1e9 / static_cast<double>(switches); }
};

// Ping-pong between the calling context and one fiber on a StackPool stack (the kind every
// task runs on): `switches` jump_fcontext calls per run, half of them in each direction.
SwitchCost measure_raw_switch(SwitchShape shape, std::uint64_t switches, int reps);

// Which task the step benchmark's strategy picks: the one that just ran, as long as it can,
// or the next one round the tasks, so that every step switches fibers.
enum class StepShape {
    same_task, // the lowest enabled task: it runs to its end, one step after another
    switching, // round robin: each step is taken by another task than the last
};
const char* describe(StepShape shape);

struct StepCost {
    int tasks = 0;
    StepShape shape = StepShape::same_task;
    std::uint32_t steps = 0; // per run
    Timing timing;
    double ns_per_step() const { return timing.median * 1e9 / steps; }
};

// One long execution of `tasks` tasks doing nothing but atomic_read, `steps` in all, under a
// strategy that picks as `shape` says. Only Execution::run() is timed.
StepCost measure_step(int tasks, StepShape shape, std::uint32_t steps, int reps);

struct SearchCost {
    std::string variant;
    int renames = 0;
    int fsyncs = 0;
    std::uint64_t executions = 0;
    std::uint64_t steps = 0;
    // Steps taken by another task than the step before (an execution's first step counts):
    // the steps that switch fibers.
    std::uint64_t switching_steps = 0;
    std::size_t findings = 0; // a correct variant must have none
    bool exhaustive = true;   // false: stopped at the time limit, figures cover the part done
    Timing timing;
    // Mean processor time per run: unlike the wall clock, blind to other processes sharing
    // the core, so it tells a slow engine from a busy machine.
    double cpu_seconds = 0;
    double steps_per_second() const { return static_cast<double>(steps) / timing.median; }
    double steps_per_cpu_second() const { return static_cast<double>(steps) / cpu_seconds; }
};

// One execution of a shipped model's default variant at its default sizes along its
// lowest-first path: run without checkpoints (`plain`), with them (`saving`), and resumed
// from its deepest checkpoint and stopped there (`resuming`).
struct CheckpointCost {
    std::string model;       // and variant
    std::uint32_t steps = 0; // of the whole execution
    std::uint64_t saved = 0; // checkpoints it saves
    std::size_t bytes = 0;   // the deepest one's copy: arena, Execution, stacks
    Timing plain, saving, resuming;
    double ns_per_step() const { return plain.median * 1e9 / steps; }
    double ns_per_save() const {
        return (saving.median - plain.median) * 1e9 / static_cast<double>(saved);
    }
    double ns_per_restore() const { return resuming.median * 1e9; }
};
CheckpointCost measure_checkpoint(const std::string& model, int reps);

// Exhaustive DFS of rename-pin (the whole explore(), per-execution set-up included), at the
// protocol's default depth. Runs up to `reps` times, fewer once `budget` seconds are spent; a
// search still running after `limit` seconds is stopped there and run once.
SearchCost measure_rename_pin(const std::string& variant, int renames, int fsyncs, int reps,
                              double budget, double limit);

} // namespace lockcheck::detail::bench
