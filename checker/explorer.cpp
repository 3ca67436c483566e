// Runs executions one after another until the strategy is done (or a violation stops it).
#include "explorer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>
#include <optional>
#include <set>

#include "bfs.hpp"
#include "explore_loop.hpp"
#include "memory/evidence.hpp"
#include "model/weak_memory.hpp"
#include "scheduler/arena.hpp"
#include "scheduler/checkpoint.hpp"
#include "scheduler/replay.hpp"

namespace lockcheck::detail {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ProgressReport search_progress(const SearchResult& result, const Strategy& strategy,
                               const CheckOptions& options, double seconds) {
    ProgressReport report;
    report.executions = result.stats.executions;
    report.seconds = seconds;
    report.deepest = result.stats.deepest;
    report.violations = result.findings.size();
    report.explored = strategy.explored();
    // A limit may end the search first: the part of the run done is then the larger.
    if (options.time_limit > 0)
        report.explored = std::max(report.explored, seconds / options.time_limit);
    if (options.max_executions)
        report.explored =
            std::max(report.explored, static_cast<double>(report.executions) /
                                          static_cast<double>(options.max_executions));
    return report;
}

} // namespace

void check_wait_ratios(const std::vector<WaitRatio>& ratios, SearchResult& result) {
    result.stats.wait_ratios = ratios;
    for (const WaitRatio& bound : ratios)
        for (const OpWaits& w : result.stats.ops) {
            if (w.op != bound.op || w.total == 0) continue;
            const double mean = static_cast<double>(w.total) / static_cast<double>(w.count);
            const double ratio = w.worst / mean;
            if (ratio <= bound.ratio) continue;
            char text[160];
            std::snprintf(text, sizeof text,
                          "worst %u steps, mean %.2f steps: %.2f times (--max-wait-ratio %s=%g)",
                          w.worst, mean, ratio, w.op.c_str(), bound.ratio);
            Violation v;
            v.kind = ViolationKind::wait_bound;
            v.property = w.op;
            char message[96];
            std::snprintf(message, sizeof message, " waited more than %g times its mean at worst",
                          bound.ratio);
            v.message = w.op + message;
            v.details = {text};
            result.findings.push_back(Finding{std::move(v), w.worst_schedule, true});
        }
}

WorkerSetUp set_up_worker(const CheckOptions& options, StackPool& stacks) {
    WorkerSetUp set_up;
    try {
        Execution::prepare_thread(options.step_timeout);
        stacks.release(stacks.acquire());
    } catch (const std::bad_alloc&) {
        set_up.out_of_memory = true;
    } catch (...) {
        set_up.error = std::current_exception();
    }
    return set_up;
}

std::string checkpoints_off(const CheckOptions& options, const Strategy& strategy) {
#ifdef LOCKCHECK_SANITIZE
    // A restored stack or arena would keep ASan's shadow of the bytes they held before: none
    // whatever the options.
    (void)options;
    (void)strategy;
    return "a sanitizer build";
#else
    if (!options.checkpoints) return "--no-checkpoints";
    if (!strategy.restores()) return "this search";
    // Under lkmm the weak memory's graph lies outside the arena (docs/scaling.md).
    if (options.memory_model != MemoryModel::sc) return "--memory-model lkmm";
    // A task's locals must be dropped with it, not unwound (Execution::drops_tasks()).
    if (options.unwind_tasks) return "--unwind-tasks";
    if (!Arena::routes_new()) return "model code's new outside lockcheck's arena";
    return {};
#endif
}

namespace {
// Where the next execution goes on from: the deepest checkpoint on the path it shares with the
// last one; kNone to start afresh.
std::uint32_t resume_point(Strategy& strategy, Checkpoints& checkpoints) {
    const std::uint32_t divergence = strategy.divergence();
    if (divergence == Strategy::kNoPosition) return Checkpoints::kNone;
    checkpoints.forget_from(divergence + 1);
    const std::uint32_t at = checkpoints.deepest_up_to(divergence);
    if (at != Checkpoints::kNone) strategy.resume_at(at);
    return at;
}
} // namespace

namespace {
// Judging loops as cycles: what in execution `n`, which ended with `out`, the search does not
// judge, which makes it begin again with loops watched; "" if nothing. A violation's
// counterexample is found again by that search, whose schedules replay as every other
// search's do (a spinner's turns here run where watching holds it back).
std::string unjudged(const Execution& ex, const Outcome& out, std::uint64_t n) {
    const std::string execution = "execution " + std::to_string(n);
    if (out.violation) return execution + " met a violation (" + out.violation->property + ")";
    if (ex.cut())
        return execution + " was cut by " +
               (out.cut_by_steps ? "--max-steps" : "the depth bound");
    if (out.end != End::finished && out.end != End::stopped)
        return execution + " ended before its tasks did";
    return "";
}
} // namespace

LoopEnd run_executions(const Setup& setup, Strategy& strategy, const CheckOptions& options,
                       StackPool& stacks, SearchResult& result, BetweenExecutions& between) {
    std::set<std::string> seen;
    Execution::Limits limits = options.limits(options.depth, options.max_steps);
    limits.fingerprints = strategy.fingerprints();
    limits.lists_as_sets = limits.fingerprints && options.lists_as_sets;
    limits.loops_as_cycles = limits.fingerprints && options.loops_as_cycles;
    Checkpoints checkpoints;
    CheckpointCounts& counts = result.stats.checkpoints;
    counts.off = checkpoints_off(options, strategy);
    if (counts.off.empty()) limits.checkpoints = &checkpoints;
    // The checkpoints saved count when the loop ends, however it ends.
    const struct Saved {
        CheckpointCounts& counts;
        const Checkpoints& checkpoints;
        ~Saved() { counts.saved += checkpoints.saved; }
    } saved{counts, checkpoints};
    // One execution object for the whole loop: a checkpoint is restored into it in place.
    std::optional<Execution> execution;
    std::uint32_t resume_at = Checkpoints::kNone;
    for (;;) {
        try {
            Outcome out;
            if (resume_at != Checkpoints::kNone) {
                ++counts.resumed;
                counts.steps_kept += checkpoints.at(resume_at).step;
                out = execution->resume(resume_at);
            } else {
                execution.reset();
                checkpoints.clear(); // they were of the execution object just gone
                execution.emplace(stacks, strategy, limits);
                execution->set_up(setup);
                out = execution->run();
            }
            const Execution& ex = *execution;
            result.stats.add(ex, out);
            if (!ex.list_order_read().empty()) [[unlikely]] {
                // The other threads of a breadth-first level run their slices on to their own
                // first such read, so that which one is reported does not depend on timing.
                result.stats.list_order_read = ex.list_order_read();
                return LoopEnd::list_order_read;
            }
            if (limits.loops_as_cycles) [[unlikely]]
                if (std::string why = unjudged(ex, out, result.stats.executions); !why.empty()) {
                    result.stats.loops_unjudged = std::move(why);
                    result.stats.unjudged_finding = out.violation.has_value();
                    return LoopEnd::loops_unjudged;
                }
            out.each_violation([&](const Violation& v, std::size_t reached) {
                if (!seen.insert(v.key()).second) {
                    // Met again: only what it is about may add to the finding.
                    if (!v.objects.empty()) result.found_again(v);
                    return;
                }
                const auto cut = ex.schedule().begin() + static_cast<std::ptrdiff_t>(reached);
                result.findings.push_back(Finding{v, Schedule(ex.schedule().begin(), cut)});
            });
            if (out.violation && !options.keep_going) return LoopEnd::violation;
        } catch (const std::bad_alloc&) {
            // Set-up, teardown or the record of an execution: that execution is not counted.
            return LoopEnd::out_of_memory;
        }
        if (!strategy.next_execution()) {
            if (!limits.loops_as_cycles || strategy.loops_unjudged().empty()) return LoopEnd::done;
            result.stats.loops_unjudged = strategy.loops_unjudged();
            result.stats.unjudged_finding = strategy.loop_for_ever();
            return LoopEnd::loops_unjudged;
        }
        if (!between.go_on(result, strategy)) return LoopEnd::stopped;
        resume_at = limits.checkpoints ? resume_point(strategy, checkpoints) : Checkpoints::kNone;
    }
}

namespace {

// On one thread: shows progress, and stops at a signal or a limit (only when there is more to
// run, which is why this is asked between executions).
class OneThread final : public BetweenExecutions {
  public:
    explicit OneThread(const CheckOptions& options) : options_(options) {}
    bool go_on(const SearchResult& so_far, Strategy& strategy) override {
        if (options_.progress && pacer_.tick())
            options_.progress->show(search_progress(so_far, strategy, options_, pacer_.seconds()));
        stopped_by = stop_reason(options_, so_far.stats.executions,
                                 [this] { return seconds_since(start_); });
        return stopped_by.empty();
    }
    std::string stopped_by;

  private:
    const CheckOptions& options_;
    ProgressPacer pacer_;
    const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

} // namespace

namespace {

SearchResult explore_round(const Setup& setup, Strategy& strategy, const CheckOptions& options);

// The most rounds a search runs: each one repeats every execution of the one before.
constexpr std::uint32_t kMaxRounds = 4;

// The catalogues of the thread's last search's rounds, kept for the replays of its
// counterexamples (check-all runs searches side by side on threads of their own).
thread_local std::unique_ptr<memory::Catalogue> evidence, collected;

SearchResult explore_rounds(const Setup& setup, Strategy& strategy, const CheckOptions& options);

} // namespace

namespace {

// A stateful search: lists as sets while nothing reads an order, with a fresh search to begin
// again with once something does.
SearchResult explore_lists(const Setup& setup, Strategy& strategy, const CheckOptions& options) {
    const std::unique_ptr<Strategy> again = strategy.fresh();
    CheckOptions first = options;
    first.lists_as_sets = options.lists_as_sets && again;
    SearchResult result = explore_rounds(setup, strategy, first);
    if (!first.lists_as_sets) {
        result.stats.states.lists_in_order =
            options.lists_as_sets ? "this search cannot begin again" : "asked for";
        return result;
    }
    if (result.stats.list_order_read.empty()) return result;
    // What it stored may merge states the model tells apart: all over again, lists in order.
    CheckOptions ordered = options;
    ordered.lists_as_sets = false;
    SearchResult redone = explore_rounds(setup, *again, ordered);
    redone.stats.states.lists_in_order = std::move(result.stats.list_order_read);
    redone.stats.states.executions_before_order =
        result.stats.executions + result.stats.earlier_rounds_executions;
    redone.stats.elapsed_seconds += result.stats.elapsed_seconds;
    return redone;
}

} // namespace

SearchResult explore(const Setup& setup, Strategy& strategy, const CheckOptions& options) {
    if (!strategy.fingerprints()) return explore_rounds(setup, strategy, options);
    // Loops judged as cycles, which verifies with the fewest states, and a fresh search that
    // watches them for whatever else that search meets.
    const std::unique_ptr<Strategy> again = strategy.fresh();
    CheckOptions first = options;
    first.loops_as_cycles = options.loops_as_cycles && again && strategy.finds_cycles() &&
                            options.memory_model == MemoryModel::sc;
    SearchResult result = explore_lists(setup, strategy, first);
    if (!first.loops_as_cycles) {
        result.stats.states.loops_watched = !options.loops_as_cycles ? "asked for"
                                            : options.memory_model != MemoryModel::sc
                                                ? "a cycle cannot tell a stale read"
                                                : "this search judges no cycle";
        return result;
    }
    if (result.stats.loops_unjudged.empty()) return result;
    CheckOptions watched = options;
    watched.loops_as_cycles = false;
    SearchResult redone = explore_lists(setup, *again, watched);
    // What the first search found and this one did not (a loop for ever whose turns each write,
    // which no watch sees): no proof.
    if (result.stats.unjudged_finding && redone.findings.empty() && redone.stats.stopped_by.empty())
        redone.stats.stopped_by =
            result.stats.loops_unjudged + ", which the search watching loops did not find,";
    redone.stats.states.loops_watched = std::move(result.stats.loops_unjudged);
    redone.stats.states.executions_before_watch =
        result.stats.executions + result.stats.states.executions_before_order;
    redone.stats.elapsed_seconds += result.stats.elapsed_seconds;
    return redone;
}

namespace {

SearchResult explore_rounds(const Setup& setup, Strategy& strategy, const CheckOptions& options) {
    if (options.memory_model != MemoryModel::lkmm || !options.load_buffering ||
        !options.next_round) {
        // One round: nothing an earlier search recorded marks a write.
        weak_memory::set_round({});
        return explore_round(setup, strategy, options);
    }
    // Round 1 records what tasks write after reading what; each further round marks the writes
    // that evidence shows independent of a read (memory/evidence.hpp) and records again, until
    // a round records nothing new.
    evidence = std::make_unique<memory::Catalogue>();
    collected = std::make_unique<memory::Catalogue>();
    weak_memory::set_round({nullptr, collected.get()});
    SearchResult result = explore_round(setup, strategy, options);
    collected->freeze();
    std::uint32_t rounds = 1;
    const auto complete = [&] {
        return result.findings.empty() && result.stats.stopped_by.empty() &&
               result.stats.list_order_read.empty();
    };
    while (complete() && collected->another_round_may_differ() && !(*collected == *evidence)) {
        if (rounds == kMaxRounds) {
            result.stats.stopped_by = "the round bound (" + std::to_string(kMaxRounds) +
                                      " rounds; load buffering's evidence still grew)";
            break;
        }
        evidence = std::move(collected);
        collected = std::make_unique<memory::Catalogue>();
        weak_memory::set_round({evidence.get(), collected.get()});
        const std::unique_ptr<Strategy> next = options.next_round();
        const std::uint64_t earlier =
            result.stats.earlier_rounds_executions + result.stats.executions;
        const double seconds = result.stats.elapsed_seconds;
        result = explore_round(setup, *next, options);
        result.stats.earlier_rounds_executions = earlier;
        result.stats.elapsed_seconds += seconds;
        collected->freeze();
        ++rounds;
    }
    // Replays of its counterexamples see what the last round saw.
    weak_memory::set_round({evidence->size() ? evidence.get() : nullptr, nullptr});
    result.stats.rounds = rounds;
    return result;
}

} // namespace

namespace {

SearchResult explore_round(const Setup& setup, Strategy& strategy, const CheckOptions& options) {
    // --max-executions stops at the same execution every time only on one thread.
    if (options.jobs > 1 && !options.max_executions) {
        if (strategy.splits()) return explore_parallel(setup, strategy, options);
        // A breadth-first search shares each level's executions instead.
        if (auto* bfs = dynamic_cast<Bfs*>(&strategy)) return explore_levels(setup, *bfs, options);
    }
    const auto start = std::chrono::steady_clock::now();
    StackPool stacks(options.stack_size);
    SearchResult result;
    OneThread between(options);
    const LoopEnd end = run_executions(setup, strategy, options, stacks, result, between);
    if (end == LoopEnd::done) check_wait_ratios(options.wait_ratios, result);
    result.stats.stopped_by =
        end == LoopEnd::out_of_memory ? kOutOfMemory : std::move(between.stopped_by);
    result.stats.states = strategy.states();
    result.stats.elapsed_seconds = seconds_since(start);
    return result;
}

} // namespace

namespace {

std::string steps(std::uint32_t n) {
    return std::to_string(n) + (n == 1 ? " step" : " steps");
}

std::string divergence(const Execution& ex, std::uint32_t step, const Outcome& out) {
    const auto& tasks = ex.tasks();
    std::string at = "step " + std::to_string(step) + ": ";
    if (out.diverged_choice)
        return at + "the schedule's value for a choice among " +
               std::to_string(out.diverged_choice) + " is out of range";
    const TaskId id = out.diverged_task;
    if (id >= tasks.size())
        return at + "there is no task " + std::to_string(id) + " (the model has tasks 0.." +
               std::to_string(tasks.size() - 1) + ")";
    const Task& t = *tasks[id];
    std::string who = "task " + std::to_string(id) + " (" + t.name() + ")";
    if (t.exited()) return at + who + " has already finished";
    std::string op = t.pending().name;
    if (t.pending().obj) op += "(" + t.pending().obj->name() + ")";
    return at + who + " cannot run: it is blocked in " + op;
}

} // namespace

std::vector<PropertyStats> declared_properties(const Setup& setup, const CheckOptions& options) {
    StackPool stacks(options.stack_size);
    Replay strategy(Schedule{});
    CheckOptions all = options;
    all.unchecked.clear();
    Execution ex(stacks, strategy, all.limits(options.depth, options.max_steps));
    ex.set_up(setup);
    SearchStats declared;
    declared.declare(ex);
    return declared.properties;
}

std::string evidence_tape(const Setup& setup, const Schedule& schedule,
                          const CheckOptions& options) {
    const weak_memory::Round round = weak_memory::current_round();
    if (!round.evidence) return "";
    const memory::Recorder recorder(*round.evidence);
    {
        const weak_memory::RoundScope recording({&recorder, nullptr});
        replay(setup, schedule, options);
    }
    return recorder.tape().format();
}

ReplayResult replay(const Setup& setup, const Schedule& schedule, const CheckOptions& options,
                    const Violation* reproduces) {
    StackPool stacks(options.stack_size);
    Replay strategy(schedule);
    TraceRecorder recorder;
    // The schedule runs whole: no step of it is deeper than its length.
    const auto depth = static_cast<std::uint32_t>(schedule.size());
    // A replay goes on past the violations the kernel survives up to the end of its schedule,
    // and past another finding met at the same step as the one it reproduces.
    Execution::Limits limits = options.limits(depth, depth);
    limits.keep_going_until = schedule.size();
    limits.reproduces = reproduces;
    Execution ex(stacks, strategy, limits, &recorder);
    ex.set_up(setup);
    ReplayResult r;
    r.outcome = ex.run();
    // What the schedule leads to is the violation recorded last: the execution went on past
    // the ones before it.
    if (!r.outcome.later.empty()) {
        r.outcome.violation = std::move(r.outcome.later.back().violation);
        r.outcome.violation_reached = r.outcome.later.back().reached;
        r.outcome.later.clear();
    }
    r.trace = recorder.take(ex);
    // A final check breaks after every step, not at one.
    if (r.outcome.violation && r.outcome.violation->kind != ViolationKind::final_check)
        r.trace.violating_step = r.outcome.violation->step;
    if (r.outcome.violation) r.trace.cited = r.outcome.violation->cited;
    r.stats.add(ex, r.outcome);
    const std::uint32_t ran = r.outcome.steps;
    if (r.outcome.end == End::diverged) {
        r.error = divergence(ex, r.outcome.diverged_choice ? ran : ran + 1, r.outcome);
    } else if (r.outcome.end == End::cut || r.outcome.end == End::stopped) {
        r.error = "the schedule ends after " + steps(ran) + " but the execution goes on";
    } else if (strategy.consumed() < schedule.size()) {
        // A schedule holds task picks and the values of model choices: count entries.
        r.error = "the execution ends after " + steps(ran) + " but the schedule has " +
                  std::to_string(schedule.size()) + " entries, " +
                  std::to_string(strategy.consumed()) + " of them used";
    } else {
        r.ok = true;
    }
    return r;
}

std::optional<BoundCut> bounds_cut_schedule(const Setup& setup, const Schedule& schedule,
                                            const CheckOptions& options) {
    StackPool stacks(options.stack_size);
    Replay strategy(schedule);
    Execution::Limits limits = options.limits(options.depth, options.max_steps);
    limits.keep_going_until = schedule.size();
    Execution ex(stacks, strategy, limits);
    ex.set_up(setup);
    const Outcome out = ex.run();
    if (strategy.consumed() >= schedule.size()) return std::nullopt;
    if (out.end == End::cut) return BoundCut{out.steps, out.cut_by_steps};
    if (out.end != End::diverged) return std::nullopt;
    // A task past the depth is not among those that may run, so the schedule's pick of it
    // diverges: the bound's doing if the schedule runs on without it.
    if (replay(setup, schedule, options).outcome.end == End::diverged) return std::nullopt;
    return BoundCut{out.steps, false};
}

} // namespace lockcheck::detail
