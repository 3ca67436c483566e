// Trace: a counterexample in full, step by step, as reports print and draw it. It is made by
// replaying a schedule with a TraceRecorder, never during the search itself.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/call_site.hpp"
#include "scheduler/task_set.hpp"
#include "scheduler/trace_sink.hpp"

namespace lockcheck::detail {

// A task that could not go on while another task took a step (see op_wait.hpp): blocked, or
// retrying after a failed trylock; what it was about to do, and who held what it waited for,
// as they were before the step. A link of a blocking chain (blocking_chain()).
struct WaitLink {
    TaskId task_id = 0;
    std::string task;
    std::string op;        // its innermost named operation; empty: none
    std::string operation; // "mutex_lock"
    std::string object;    // "log_mutex"; empty for an operation on no object
    // The task holding the object, if one does, and that task's innermost named operation.
    std::optional<TaskId> holder_id{};
    std::string holder{};
    std::string holder_op{};
};

struct TraceStep {
    std::uint32_t step = 0;
    TaskId task_id = 0;
    std::string task;
    std::string operation;          // "mutex_lock"
    std::string object;             // "log_mutex"; empty for operations on no object
    std::vector<std::int64_t> args; // shown beside the object: set_bit(1, log_tree)
    bool object_first = false;      // after it, as the kernel's signature has them
    std::optional<std::int64_t> value;
    // The value as its object names it (Object::value_text): what a pointer points to, "item"
    // or "NULL"; empty: the number.
    std::string value_text{};
    std::string state; // the object's state after the step: "held by fsync0"
    // The task of the step before could have gone on but another task took this step.
    bool preempted = false;
    // The step of another task this one waited for or read from: the unlock that let a
    // lock be taken, the wake-up that ended a sleep, the write a read observed. 0: none.
    std::uint32_t synced_from = 0;
    // Under --memory-model lkmm, a read that did not see the latest write there was when it
    // ran: the step of that write (0: it saw the latest). synced_from is then the write it saw
    // (0: the initial value).
    std::uint32_t missed = 0;
    // Under lkmm, a read of a write its writer made only later (load buffering): that write's
    // step, also in synced_from. 0: none.
    std::uint32_t later_from = 0;
    CallSite location{}; // the model's call that made the step; unknown if none did
    // The objects whose state the step changed, in the order of their ids (none for a read, a
    // failed trylock, a wake-up that woke nobody).
    std::vector<std::string> changed{};
    // It stored a value of its task's making (a write of a shared variable), which may come
    // from anything the task read before.
    bool stores = false;
    // The other tasks that waited while this step was taken, in task order.
    std::vector<WaitLink> waiting{};
};

// One instance of a named operation (lockcheck::op) that finished: from the step after it
// began to the step it ended at. Its wait is the number of steps in between at which its task
// has a WaitLink, the same figure the search's OpWaits count.
struct OpSpan {
    std::string op;
    TaskId task_id = 0;
    std::string task;
    std::uint32_t begun_after = 0; // the step it began after (0: before the first)
    std::uint32_t ended_at = 0;    // the step it ended after: its task's last step in it
    std::uint32_t waited = 0;
};

// A task that had not finished when the execution ended, and what it was about to do.
struct PendingTask {
    TaskId task_id = 0;
    std::string task;
    std::string operation;
    std::string object;
    bool blocked = false; // its operation could not run
    std::string holder;   // the task holding what it waits for, if one does
    CallSite location{};  // the model's call of that operation
};

// An object the broken property (an invariant, a final check) read with peek(), as the
// execution left it.
struct PropertyRead {
    std::string object;
    std::string state;
    std::uint32_t changed_at = 0; // the last step that changed it; 0: none (its set-up state)
};

struct Trace {
    std::vector<std::string> tasks; // names, by task id
    std::vector<TraceStep> steps;
    std::vector<PendingTask> pending; // at the end
    // What the broken property read, each object once, in the order first read; empty when
    // the violation is not an invariant's or a final check's.
    std::vector<PropertyRead> reads{};
    // The step that broke the property, as the violation names it; 0 when none did (a final
    // check breaks after every step) or it is not known.
    std::uint32_t violating_step = 0;
    std::vector<std::uint32_t> cited{}; // earlier steps the violation's report names
    std::vector<OpSpan> ops{};          // the named operations that finished, in the order ended
    // Under --memory-model lkmm, where a barrier would have forbidden this execution:
    // "smp_mb() in P1 between steps 3 and 4 (propagation)". Empty under sc.
    std::vector<std::string> barriers{};
    // Preemptions: steps taken by another task while the task of the step before could go on.
    std::uint32_t preemptions() const;
};

// How the violation came about: which steps it depends on, so that a report can fold the
// others. Computed from the trace alone (reports/ draw and print it).
struct Story {
    // By index into Trace::steps. A cause: the step that broke the property, a step its report
    // cites, the last change of an object the broken property read and the accesses of it
    // since, the last change of what a blocked task waits for and that task's last step.
    std::vector<bool> cause;
    // A cause, or a step one depends on: one that changed an object a later involved step
    // touches, the step of the same task before it on an object they share, the step it
    // waited for or read from, before one that stores a value every step of its task that
    // read one, and before any every load of a pointer by its task (the pointer may be how it
    // reached its object); and a step on no object when its task's next one is involved. Program
    // order alone does not involve a step: a task's lock round trips on other objects stay
    // out.
    std::vector<bool> involved;
};
Story story(const Trace& trace);
// How `span` came to wait: the steps it waited are the causes, every step of the span is
// involved, and so is each step a cause depends on (as in story()).
Story wait_story(const Trace& trace, const OpSpan& span);

// The instance of `op` that waited longest, the first of them to end; null if none finished.
const OpSpan* worst_span(const Trace& trace, const std::string& op);
// Whether `task` waited while `step` was taken.
const WaitLink* waiting_in(const TraceStep& step, TaskId task);
// Who `task` waited for while `step` was taken: its link, then the holder's if that one
// waited too, and so on (never round a cycle twice); empty if the task did not wait.
std::vector<WaitLink> blocking_chain(const TraceStep& step, TaskId task);

class TraceRecorder final : public TraceSink {
  public:
    void on_start(const Execution& ex) override;
    void on_step(const Execution& ex, std::uint32_t step, const Task& task, const Operation& op,
                 std::optional<std::int64_t> value, Context context) override;
    void on_end(const Execution& ex) override;
    // Call after the execution ran, while it still exists.
    Trace take(const Execution& ex);
    void on_op(const Execution& ex, const Task& task, const char* name, bool begins) override;

  private:
    // Every unfinished task's link as of the last step (what it would wait for at the next),
    // by task id; and the task's steps waited then (Task::waited()).
    void note_links(const Execution& ex);
    WaitLink link_of(const Task& task) const;
    std::vector<std::optional<WaitLink>> links_;
    std::vector<std::uint64_t> waited_;
    // The named operations open in each task, innermost last, by task id.
    std::vector<std::vector<OpSpan>> open_;
    struct LastWrite {
        std::uint32_t step = 0;
        TaskId task = 0;
    };
    // Every object's state after the last step, and the last step that changed it, by id.
    std::vector<std::string> states_;
    std::vector<std::uint32_t> changed_at_;
    Trace trace_;
    std::map<const void*, LastWrite> last_write_; // by object
};

} // namespace lockcheck::detail
