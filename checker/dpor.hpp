// Dpor: source-DPOR with sleep sets (Abdulla, Aronis, Jonsson, Sagonas, "Optimal Dynamic
// Partial Order Reduction", POPL 2014, Algorithm 1). Like Dfs it keeps one path of branch
// points and replays its prefix (whose steps keep their clocks from the execution before);
// unlike Dfs it does not try every enabled task at a branch point, only those that reverse a
// race seen in an execution through it. Two executions that differ only in the order of
// independent steps (checker/dependency.hpp) are equivalent, and one of each class is run; tasks
// whose step was already explored from an equivalent state sleep until a dependent step wakes them,
// and an execution whose enabled tasks all sleep stops (it is "sleep-set blocked"). Model choices
// (migrations) are explored in full. A step that ends the execution with a violation while
// other tasks could still run disables them, and so depends on every other step.
//
// Optimal DPOR (Algorithm 2 of the same paper) replaces each branch point's backtrack set by a
// wake-up tree: a race adds the whole sequence that reverses it, not just its first task, and
// only if neither a sleeping task nor a branch already there starts an equivalent execution.
// Without blocking steps this runs exactly one execution per class and none is sleep-set
// blocked.
//
// Source DPOR runs a branch point's backtrack set in the order races added to it. That is what
// lets it split (--jobs): the tasks left at a branch point when another thread asks for work
// run there before any that later races add, whatever those are, so another thread can run
// them at once. Races that thread sees with steps before the branch point are the giver's to
// settle: it logs them, and the giver, which stops at that branch point, settles them in
// order once the part has run (resume), as one search would have (checker/dpor_split.cpp).
// Optimal DPOR runs a wake-up tree's branches in order too, and hands over its first ones that
// are one step each: a later reversal can extend a longer branch, never such a one.
//
// With a preemption bound (source DPOR only), executions with more preemptions than the
// bound are not run, and every initial of a race's reversal is also scheduled at the latest
// branch point before it where the execution switched tasks anyway (conservative branching, Coons,
// Musuvathi, McKinley, "Bounded Partial-Order Reduction", OOPSLA 2013): a reversal that would cost
// a preemption where the race is can be reached there without one. Sleep sets are off: a task
// explored from an equivalent state may have needed a preemption the bound now forbids.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <unordered_set>
#include <vector>

#include "dependency.hpp"
#include "scheduler/strategy.hpp"
#include "wakeup_tree.hpp"

namespace lockcheck::detail {

class Dpor final : public Strategy {
  public:
    enum class Mode : std::uint8_t { source, optimal };
    explicit Dpor(std::size_t depth_hint = 0, Mode mode = Mode::source,
                  std::optional<std::uint32_t> preemptions = std::nullopt);
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override;
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override;
    void end(const Execution& ex) override;
    bool next_execution() override;
    // From the branches each node has tried and has still to run (its backtrack set, or
    // its wake-up tree's first tasks): races found later add to them, so it is a guess.
    double explored() const override;
    // Without a preemption bound: its conservative branching reaches up past the branches
    // handed over, and it has no sleep sets.
    bool splits() const override { return !bound_; }
    bool replaying() const override { return position_ < path_.size(); }
    // Checkpoints: what a replay rebuilds of the steps before a position (their clocks, the
    // last access of each object) is rebuilt from the steps kept, and the sleep sets are the
    // nodes'; so an execution can go on from any decision up to the first whose step changes.
    bool restores() const override { return true; }
    std::uint32_t position() const override { return static_cast<std::uint32_t>(position_); }
    std::uint32_t divergence() const override {
        return static_cast<std::uint32_t>(same_steps_before_);
    }
    void resume_at(std::uint32_t position) override;
    Handoff split() override;
    bool resume(Strategy& part) override;

  private:
    // A step's vector clock: for each task, how many of its steps happen before. Clocks are
    // kMaxTasks entries apart in one array but only as wide as the model's tasks are used.
    using Clock = std::array<std::uint32_t, kMaxTasks>;

    struct Node {
        // Leaves `parked` uninitialized: only the entries of done | sleep tasks are read, and
        // each is written first.
        Node() {}
        bool choice = false;   // a model choice among `enabled` values, not a pick
        TaskSet enabled = 0;   // pick: the enabled tasks; choice: the values
        TaskSet backtrack = 0; // pick: tasks to run here (the races found add to it)
        TaskSet done = 0;      // tried here, the current one included
        TaskSet sleep = 0;     // pick: asleep on arriving here
        TaskSet handed = 0;    // left here for a part of the search on another thread (split)
        TaskId chosen = 0;
        std::uint8_t added = 0; // pick: entries of `order`
        // pick: the tasks of `backtrack` in the order they were added, which they run in
        std::array<std::uint8_t, kMaxTasks> order;
        TaskId last = kNoTask;    // pick: the task of the step before (kNoTask: the first)
        std::uint32_t before = 0; // pick: preemptions before this point
        // pick: the access of each task in done | sleep at this point
        std::array<Access, kMaxTasks> parked;
    };
    struct Event {
        TaskId task;
        Access access;
        std::uint32_t node; // the pick node in path_
        // What note_access() replaced, for forget_access() to put back: the task's last step,
        // the last step of the CPU, of the task's section, the global step or write (or the
        // read before it of its object), and the last ordered write.
        std::int32_t was_task = -1, was_cpu = -1, was_section = -1, was_last = -1, was_ordered = -1;
    };
    // A race to reverse at pick node `node` (race), or tasks to add to its backtrack set
    // (add): the part of the search that found it settles it where it owns the node, and
    // logs it for the search it came from otherwise.
    struct Deferred {
        enum class Kind : std::uint8_t { race, add } kind;
        TaskId task;        // race: the task of the later step
        std::uint32_t node; // the pick node of the earlier step
        std::uint32_t from; // race: the earliest pick node the later step's task may move to
        TaskSet initials;   // race: of its reversal; add: the tasks
        TaskSet runnable;   // race: those initials that can run at `node`
        bool operator==(const Deferred&) const = default;
    };
    struct DeferredHash {
        std::size_t operator()(const Deferred& d) const;
    };
    // Optimal: a reversal to insert into the wake-up tree of pick node `node`, where `chosen`
    // was running and the handed tasks `pending` had not run yet.
    struct Reversal {
        std::uint32_t node;
        TaskId chosen;
        TaskSet pending;
        WakeupSequence steps;
        bool operator==(const Reversal&) const = default;
    };
    struct ReversalHash {
        std::size_t operator()(const Reversal& r) const;
    };

    void begin_execution();
    TaskId new_node(TaskSet enabled);
    // Makes the deepest branch point with a branch left take it, dropping the exhausted ones
    // below; false at the end of the search, of a part at its floor, or at a branch point
    // whose branches left a part runs (resume goes on from there).
    bool advance();
    // What is left to run at a branch point, and which of it runs first.
    TaskSet todo(const Node& node) const;
    TaskId next_of(const Node& node, TaskSet todo) const;
    // The branches a node stands for, for explored() and split().
    int branches(const Node& node) const;
    // Source: the new ones among `tasks` join the node's backtrack set, last in its order.
    static void add_backtrack(Node& node, TaskSet tasks);
    // Settles a race or an addition where this search owns its node; logs it otherwise.
    void settle(const Deferred& d);
    // Optimal: inserts a reversal where this search owns its node; logs it otherwise (with the
    // tasks still to run here in `pending`), unless this part can tell it changes nothing.
    void settle(Reversal& r);
    // Records the step picked last, now that it has run: a step that checked a property
    // (Execution::last_step_global), or that ended the execution with a violation while
    // other tasks could go on, depends on every other.
    void commit_taken(const Execution& ex);
    // Whether tasks other than `task` could still run: the step of `task` that ended the
    // execution with a violation disabled them.
    static bool disables_others(const Execution& ex, TaskId task);
    // Step i of this execution: its clock, its races, and (with `commit`) the bookkeeping
    // later steps need; without it the step is one a task did not take.
    void record(TaskId task, const Access& access, std::uint32_t node, const Execution& ex,
                bool commit);
    // Step i becomes the latest access of its task and object; forget_access() undoes that for
    // the latest step, so that a new execution keeps what its kept steps left (SPIN's undo).
    void note_access(std::uint32_t i);
    void forget_access(const Event& e);
    void find_races(TaskId task, const std::uint32_t* before, std::uint32_t i);
    void every_race(TaskId task, const Access& access, const std::uint32_t* before,
                    std::uint32_t i);
    void reverse(std::uint32_t j, std::uint32_t i);
    // Optimal: adds the reversal (the steps `after_race_` names) to the wake-up tree of `at`.
    void insert_reversal(std::uint32_t at);
    void blocked_race(TaskId task, std::uint32_t from, std::uint32_t at);
    // Source: adds `tasks` to the backtrack set of pick node `at` and, under a preemption
    // bound, of the latest pick node up to it where the execution switched tasks.
    void backtrack_at(std::uint32_t at, TaskSet tasks);
    // The tasks that can be run at a pick node within the preemption bound.
    TaskSet within_bound(const Node& node) const;
    // Preemptions once `node.chosen` has run.
    std::uint32_t preemptions_after(const Node& node) const;
    // Optimal: the task a new branch point runs, following the tree handed down to it.
    TaskId follow_tree(std::uint32_t node, TaskSet awake);
    // The task's last step before step index `i`, -1 if none.
    std::int32_t last_event_before(TaskId task, std::uint32_t i) const;
    const std::uint32_t* clock_of(std::uint32_t event) const {
        return &clocks_[std::size_t{event} * kMaxTasks];
    }
    bool happens_before(std::uint32_t event, const std::uint32_t* clock) const {
        const TaskId t = events_[event].task;
        return clock_of(event)[t] <= clock[t];
    }
    // By conflict id, grown as objects show up (inline: every step asks).
    std::int32_t& last_read_of(std::int32_t object) {
        const auto i = static_cast<std::size_t>(object);
        if (i >= last_read_.size()) [[unlikely]]
            last_read_.resize(i + 1, -1);
        return last_read_[i];
    }
    std::int32_t& last_write_of(std::int32_t object) {
        const auto i = static_cast<std::size_t>(object);
        if (i >= last_write_.size()) [[unlikely]]
            last_write_.resize(i + 1, -1);
        return last_write_[i];
    }

    Mode mode_;
    std::optional<std::uint32_t> bound_; // preemptions an execution may take
    std::vector<Node> path_;
    // Optimal: by node, a pick's wake-up tree (the branches still to run there) or, for a
    // model choice, the tree handed to the pick after it, which every value starts from.
    std::vector<WakeupTree> trees_;
    WakeupTree handed_;                 // the tree of the next new pick node
    Reversal race_{};                   // scratch: a reversal
    std::size_t position_ = 0;          // next node to replay in the current execution
    std::size_t same_steps_before_ = 0; // steps of pick nodes before it are as before
    // A part of a search (split) owns the nodes from here on; the one before is its floor,
    // where it runs the branches it was handed and nothing else.
    std::size_t owned_from_ = 0;
    // A part's first execution reruns the steps before this node as its giver ran them: their
    // races are the giver's, found already.
    std::size_t replayed_below_ = 0;
    std::vector<std::size_t> suspended_; // branch points split at, shallowest first
    // The races and additions found at nodes this part does not own, in the order found, each
    // once (a later equal one would change nothing), for its giver to settle.
    std::vector<Deferred> deferred_;
    std::unordered_set<Deferred, DeferredHash> deferred_seen_;
    std::vector<Reversal> reversals_; // optimal's
    std::unordered_set<Reversal, ReversalHash> reversals_seen_;
    TaskSet next_sleep_ = 0;                      // the sleep set of the next pick node
    TaskId last_ = kNoTask;                       // the task of the last pick
    std::uint32_t preemptions_ = 0;               // in the current execution so far
    std::array<Access, kMaxTasks> next_parked_{}; // the accesses of those sleeping tasks
    struct Taken {
        TaskId task = 0;
        Access access{};
        std::uint32_t node = 0;
        bool recorded = true;
    } taken_; // the step picked last, recorded at the next pick
    WriteOrder writes_ = WriteOrder::none;

    // This execution's steps and their happens-before clocks.
    std::vector<Event> events_;
    std::vector<std::uint32_t> clocks_;     // step i's clock at i * kMaxTasks
    std::vector<std::uint8_t> clock_width_; // entries of step i's slot that may be nonzero
    std::array<std::int32_t, kMaxTasks> last_event_{}; // of each task, -1 before its first
    std::int32_t last_global_ = -1;
    std::int32_t last_ordered_write_ = -1; // of the writes writes_ orders
    // The last step on each CPU that depends on every step of the CPU's tasks
    // (Access::cpu_wide), -1 for none: every later step of that CPU depends on it.
    std::array<std::int32_t, kMaxCpus> last_cpu_wide_{};
    // Each task's read-side section (Access::section) as a location of its own: the last step
    // that entered or left it, -1 for none; and the steps that read every task's.
    std::array<std::int32_t, kMaxTasks> last_section_{};
    std::vector<std::uint32_t> censuses_;
    std::vector<std::int32_t> last_write_; // by conflict id
    // By conflict id, the last read; each read's `was_last` is the one before it (those after
    // the object's last write are the reads that a write depends on).
    std::vector<std::int32_t> last_read_;
    std::vector<std::uint32_t> preds_;      // scratch: a step's direct predecessors
    std::vector<std::uint32_t> after_race_; // scratch: the steps a reversal reorders
};

} // namespace lockcheck::detail
