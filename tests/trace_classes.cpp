// Counting Mazurkiewicz traces: a trace sink records each step's task, access and the model
// choices it made; a finished execution is reduced to its lexicographically least equivalent
// interleaving, and the distinct ones are counted.
#include "trace_classes.hpp"

#include <array>
#include <functional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "checker/dependency.hpp"
#include "scheduler/execution.hpp"
#include "scheduler/trace_sink.hpp"

namespace lockcheck::detail::testing {

namespace {

struct Step {
    TaskId task;
    Access access;
    // The task's name and the model choices the step made. Names, not ids: a task spawned
    // mid-run gets its id in the order of the spawns, which equivalent executions may differ in.
    std::string label;
};

// Records the steps of one execution.
class StepRecorder final : public TraceSink {
  public:
    void on_start(const Execution& ex) override { note_tasks(ex); }
    void on_step(const Execution& ex, std::uint32_t, const Task& task, const Operation& op,
                 std::optional<std::int64_t>, Context) override {
        // As DPOR saw the step when it was taken: on the CPU the task had after its step before
        // (its code after this one may have moved it since).
        Access access = access_of(op, &task);
        if (access.cpu >= 0) access.cpu = static_cast<std::int8_t>(cpu_[task.id()]);
        note_tasks(ex);
        // A step whose code called check() read all shared state (as DPOR counts it).
        if (ex.last_step_global()) access = global_access(access.blocking);
        // The schedule entries since the previous step: this step's pick, then its choices.
        const Schedule& schedule = ex.schedule();
        std::string label = task.name();
        for (std::size_t i = seen_ + 1; i < schedule.size(); ++i)
            label += static_cast<char>(schedule[i]); // choices are below 64
        seen_ = schedule.size();
        steps.push_back(Step{task.id(), access, std::move(label)});
    }
    void on_end(const Execution&) override {}

    std::vector<Step> steps;

  private:
    void note_tasks(const Execution& ex) {
        for (const auto& t : ex.tasks())
            cpu_[t->id()] = t->cpu();
    }
    std::size_t seen_ = 0;
    std::array<int, kMaxTasks> cpu_{}; // each task's CPU as of the last step taken
};

// The lexicographically least interleaving equivalent to `steps`, as the labels of its steps
// in order (each preceded by its length).
std::string canonical_form(const std::vector<Step>& steps, WriteOrder writes) {
    const std::size_t n = steps.size();
    std::vector<std::vector<std::uint32_t>> after(n); // the steps that must follow step i
    std::vector<std::uint32_t> before(n, 0);          // unplaced steps that must precede it
    std::vector<std::int64_t> last_of_task(kMaxTasks, -1);
    for (std::uint32_t i = 0; i < n; ++i) {
        const Step& s = steps[i];
        if (last_of_task[s.task] >= 0) {
            after[last_of_task[s.task]].push_back(i);
            ++before[i];
        }
        last_of_task[s.task] = i;
        for (std::uint32_t j = 0; j < i; ++j) {
            if (steps[j].task == s.task || !dependent(steps[j].access, s.access, writes)) continue;
            after[j].push_back(i);
            ++before[i];
        }
    }
    // At most one step of each task is ready at a time (program order), so the least label
    // (the task's name first) picks one step.
    using Ready = std::pair<std::string_view, std::uint32_t>;
    std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
    for (std::uint32_t i = 0; i < n; ++i)
        if (before[i] == 0) ready.emplace(steps[i].label, i);
    std::string form;
    while (!ready.empty()) {
        const std::uint32_t i = ready.top().second;
        ready.pop();
        form += static_cast<char>(steps[i].label.size());
        form += steps[i].label;
        for (std::uint32_t k : after[i])
            if (--before[k] == 0) ready.emplace(steps[k].label, k);
    }
    return form;
}

} // namespace

TraceClasses count_traces(const Setup& setup, Strategy& strategy, std::uint32_t depth) {
    StackPool stacks(CheckOptions{}.stack_size);
    TraceClasses c;
    std::unordered_set<std::string> forms;
    do {
        StepRecorder recorder;
        Outcome out;
        WriteOrder writes = WriteOrder::none;
        {
            Execution::Limits limits{depth, 10};
            limits.max_steps = depth; // no execution is deeper than it is long
            Execution ex(stacks, strategy, limits, &recorder);
            setup();
            out = ex.run();
            writes = write_order(ex);
        }
        ++c.executions;
        if (out.end == End::finished) {
            ++c.finished;
            forms.insert(canonical_form(recorder.steps, writes));
        } else if (out.end == End::stopped) {
            ++c.sleep_blocked;
        } else {
            ++c.other;
        }
    } while (strategy.next_execution());
    c.traces = forms.size();
    return c;
}

TraceClasses count_traces(const Setup& setup, Search search, std::uint32_t depth) {
    const std::unique_ptr<Strategy> strategy = make_search(search, depth);
    return count_traces(setup, *strategy, depth);
}

} // namespace lockcheck::detail::testing
