// Execution: one run of a model under a strategy. Owns the model's objects and tasks and runs
// exactly one task fiber at a time. At every visible operation the running task itself takes
// the scheduling step (advance(): finish the last step, enabled set, pick, invariants) on its
// own stack and switches straight to the picked task, or goes on without a switch when it is
// picked again. The step is the hot path: it allocates nothing and formats nothing unless a
// violation or a trace sink asks for it.
#pragma once

#include <array>
#include <cassert>
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <boost/context/detail/fcontext.hpp>

#include "arena.hpp"
#include "chain_depth.hpp"
#include "faults.hpp"
#include "fiber_sanitizer.hpp"
#include "memory_model.hpp"
#include "object.hpp"
#include "operation.hpp"
#include "race_detector.hpp"
#include "schedule.hpp"
#include "stack_pool.hpp"
#include "strategy.hpp"
#include "task.hpp"
#include "trace_sink.hpp"
#include "violation.hpp"
#include "watchdog.hpp"

namespace lockcheck::detail {

class Checkpoints;
struct Checkpoint;

// How an execution ended.
enum class End : std::uint8_t {
    finished,  // every task returned
    violation, // a property broke (see Outcome::violation)
    cut,       // a bound (Limits::depth, Limits::max_steps) was reached with tasks unfinished
    stopped,   // the strategy had no further choice (a replay schedule ran out)
    diverged,  // the strategy picked a task that is not enabled (a replay that does not fit)
    full,      // an internal table filled and the execution could not go on without it
    // A loop's turn read an older write than the latest and changed nothing: the execution
    // in which that turn did not run covers this one (Execution::stale_read()).
    redundant,
    // Under lkmm, the execution turned out to be none LKMM allows once it had run on: a read of
    // a write not yet made (a future read: load buffering) could not be settled (its writer
    // made that write with another value or not at all, LKMM forbids the graph once it is
    // made, or an execution in which the write came first covers this one), or, with RCU, no
    // next event is allowed (a grace period ended inside a reader's section that had read
    // what came before it); a finding met while a future read was open then goes with it
    // (Outcome::unsettled_finding).
    unsettled,
};

// An internal table of fixed capacity that filled in an execution: what did not fit went
// unchecked, so a search that met one is incomplete whatever else it found.
struct TableFull {
    const char* table = nullptr; // what it holds, "lockdep classes (MAX_LOCKDEP_KEYS)"; null: none
    std::uint32_t capacity = 0;
};

// What tasks did in one execution, beyond their steps: the model's analogue of the
// context-switch and lock-contention columns of a benchmark table.
struct Counters {
    std::uint64_t sleeps = 0;  // schedule() calls that put a task to sleep
    std::uint64_t wakeups = 0; // tasks a wake-up set running
    std::uint64_t spins = 0;   // attempts on a busy spinning lock, and turns of spin loops
};

struct Outcome {
    End end = End::finished;
    std::uint32_t steps = 0;
    std::uint32_t depth = 0;   // its deepest step (Execution::Limits::depth)
    bool cut_by_steps = false; // with End::cut: Limits::max_steps cut it, not the depth
    // The first violation recorded: the one that ended the execution, or one it went on past
    // (see Limits::keep_going_until).
    std::optional<Violation> violation;
    std::size_t violation_reached = 0; // entries of the schedule that reach it
    // A violation recorded after the first, and the entries of the schedule that reach it.
    struct Later {
        Violation violation;
        std::size_t reached = 0;
    };
    std::vector<Later> later;          // in the order recorded
    TaskId diverged_task = kNoTask;    // with End::diverged at a pick
    std::uint32_t diverged_choice = 0; // with End::diverged at a choice: among how many values
    TableFull table_full;              // the first table that filled, if one did
    // Whether --spin-bound took part: a spin loop turned with nothing changed and no other
    // task able to run, or nothing was written for that many steps (see watch_repeats()).
    bool spin_bound_used = false;
    // With End::unsettled: a finding met while a future read was open went with it (it rested
    // on a write that did not come).
    bool unsettled_finding = false;

    // Calls f(violation, reached) for every violation recorded, in order: the schedule's first
    // `reached` entries are its counterexample.
    template <class F> void each_violation(F&& f) const {
        if (!violation) return;
        f(*violation, violation_reached);
        for (const Later& l : later)
            f(l.violation, l.reached);
    }
};

class Execution {
  public:
    static constexpr std::uint32_t kDefaultMaxSteps = 1000;
    struct Limits {
        // How deep a step may be (chain_depth.hpp): how often a chain of steps, each depending
        // on the one before, may pass from one task to another. A task's steps that touch
        // what no other task touched in between cost nothing: a task running alone, the tail
        // after the others finished, tasks working apart. A task whose next step would go
        // deeper does not take it; an execution none of whose tasks can go on within the bound
        // is cut.
        std::uint32_t depth = 1000;
        // Seconds a task may run between two scheduling points before it counts as stuck
        // in an infinite loop.
        unsigned step_timeout = 10;
        // Turns a spin loop, or repetitions a retry loop, may go round with nothing changed
        // before it counts as endless (a hang, a livelock); also the steps without a write
        // after which retry loops are watched for.
        std::uint32_t spin_bound = 32;
        // While the schedule has fewer entries than this, a violation the kernel reports and
        // survives (survivable(): a data race, a lockdep report) does not end the execution:
        // it goes on, so that what its later steps do is checked too (and a partial-order
        // reduction sees their races). 0: every violation ends it; kNoEnd: none of those does
        // (--keep-going); a replay goes on up to the end of its schedule.
        std::size_t keep_going_until = 0;
        // A replay of a counterexample: its violation. Past keep_going_until, a survivable
        // violation that is another finding (Violation::key) does not end the execution
        // either: one met at the same step before it.
        const Violation* reproduces = nullptr;
        // The property classes checked (--no-lockdep, --no-races): one switched off reports
        // nothing, so that what it would have stopped at can run on to what else breaks.
        bool lockdep = true;
        bool races = true;
        // The names of the model's invariants and final checks not checked (--no-check,
        // --check); null: every one is.
        const std::vector<std::string>* unchecked = nullptr;
        // --max-wait: the latency bounds of named operations (a model's own max_wait() for
        // the same operation gives way to it); null: none.
        const std::vector<WaitBound>* wait_bounds = nullptr;
        // A stateful search: tasks keep the history of what they observed (observe()), so
        // that fingerprint() can tell a state met before.
        bool fingerprints = false;
        // Whether the model's forget_reads declarations are taken at their word; the tests
        // check the shipped models' declarations against a stateful search that ignores them.
        bool forgets = true;
        // With fingerprints: a list is hashed as the set of its entries, not in their order,
        // so that two tasks adding to it in either order reach one state. Exact only while no
        // step reads a list's order (list_order_read()): the search starts again with lists
        // in order once one does (explorer.cpp).
        bool lists_as_sets = false;
        // With fingerprints, under sc: loops are judged as cycles of the state graph, as SPIN
        // judges non-progress cycles (checker/loop_finder.hpp), not watched. A spin loop's
        // cpu_relax() may run whenever its task can, no task is held back for repeating a call
        // with nothing written, and neither watch is part of a fingerprint, so that a loop's
        // turns come back to one state. Such a search only verifies: anything else it meets
        // begins it again with loops watched (explorer.cpp).
        bool loops_as_cycles = false;
        MemoryModel memory_model = MemoryModel::sc;
        // Whether a loop's turn that read an older write ends its execution (stale_read());
        // the tests compare what the searches reach with it against what they reach without.
        bool drop_stale_turns = true;
        // Steps one execution may take, however deep: the backstop for tasks that run apart
        // without end, and what minimizing bounds to find a shorter counterexample.
        std::uint32_t max_steps = kDefaultMaxSteps;
        // --unwind-tasks: an execution that ends with tasks mid-code unwinds each one's stack
        // (its locals' destructors run) even where it could drop them with its arena
        // (drops_tasks()); the tests compare what the searches find both ways.
        bool unwind_tasks = false;
        // Where the search keeps checkpoints (checkpoint.hpp), with a strategy that goes back to
        // them (Strategy::restores()); null: every execution starts afresh (--no-checkpoints).
        // With them, the execution's own tables come from its arena too (model_arena()).
        Checkpoints* checkpoints = nullptr;
    };
    static constexpr std::size_t kNoEnd = static_cast<std::size_t>(-1);

    Execution(StackPool& stacks, Strategy& strategy, Limits limits, TraceSink* sink = nullptr);
    ~Execution();
    Execution(const Execution&) = delete;
    Execution& operator=(const Execution&) = delete;

    // The execution being set up or run (there is one at a time). Inline: every model
    // primitive asks for it.
    static Execution& current() {
        assert(current_ && "model code runs only inside an execution");
        return *current_;
    }
    // Whether an execution is being set up or run on this thread.
    static bool active() { return current_ != nullptr; }
    // From a signal handler or an exit function on this thread (faults.hpp): if the running
    // task's model code caused `fault` (or `fault_address` lies on the guard page of the running
    // fiber's stack), jumps out of it to run(), which abandons the task and reports the fault.
    // Returns otherwise: the fault is not a task's.
    static void escape(Fault fault, const void* fault_address);
    // Sets up what the calling thread keeps for every execution it runs (the crash handler's
    // stack, the watchdog's watch, the race detector's spare tables, the allocator's state of
    // the thread), before any runs: a thread doing so at its first execution, once a model
    // on another thread had used up the memory, crashed inside the allocator.
    static void prepare_thread(unsigned step_timeout);

    // --- set-up, before run() ---
    // Runs the model's set-up `set_up` (which spawns the tasks and makes the objects below):
    // what it allocates with `new` is the execution's (model_arena()). A set-up run otherwise,
    // as some tests do, allocates from malloc(), which is as right but not at fixed addresses.
    template <class F> void set_up(F&& set_up) {
        struct SettingUp {
            bool& flag;
            ~SettingUp() { flag = false; }
        } setting_up{setting_up_};
        setting_up_ = true;
        set_up();
    }
    // Adds a task; it starts when run() does, in the order of spawning. Spawned by a running
    // task, it starts right after that task's step. Past kMaxTasks the model cannot be
    // checked: at set-up it throws std::length_error, from a task it ends the execution and
    // run() throws it.
    void spawn(std::unique_ptr<Task> task, std::function<void()> body);
    // Constructs model state owned by the execution (its objects register themselves), in its
    // arena.
    template <class T, class... Args> T& make(Args&&... args);
    // `size` bytes aligned to `align` that the execution owns until it ends: from its arena
    // (std::bad_alloc when it is full), or from malloc() when the thread has none (then its
    // tasks are unwound at its end, not dropped). Given back by deallocate(), which frees only
    // malloc()'s.
    void* allocate(std::size_t size, std::size_t align);
    static void deallocate(void* p) {
        if (!Arena::holds(p)) std::free(p);
    }
    // The arena that `new` in model code allocates from now (model_new.cpp), or null: while the
    // model sets up or a task runs its model code, unless that code called into the checker
    // (CheckerMemory: lockdep's texts, the race detector's tables, the weak memory's calls).
    static Arena* model_arena() {
        const Execution* ex = current_;
        if (!ex || ex->checker_memory_ || (!ex->running_ && !ex->setting_up_ && !ex->live_))
            return nullptr;
        return ex->arena_.arena;
    }
    // Whether an execution that ends with tasks mid-code may drop their stacks with its arena
    // instead of unwinding them: everything their locals own lies in the arena (model code's
    // `new` comes from it), no exception is thrown or caught on a task's fiber (the C++
    // runtime keeps those per thread), and --unwind-tasks is not given.
    bool drops_tasks() const;
    // State of one kind the model layer keeps per execution (lockdep's graph, the CPUs),
    // made on first use.
    template <class T> T& local();
    // That state if it was made, without making it (reports ask without changing anything).
    template <class T> T* find_local() const {
        for (const auto& [key, state] : locals_)
            if (key == &kLocalKey<T>) return static_cast<T*>(state);
        return nullptr;
    }
    void add_invariant(std::string name, std::function<bool()> holds);
    void add_final_check(std::string name, std::function<bool()> holds);
    // A latency bound the model declares (max_wait()), unless --max-wait bounds `op` already.
    void add_wait_bound(std::string op, std::uint32_t steps);
    // State the model keeps outside objects (plain_state(), and locals such as lockdep's
    // graph): `add` puts it into every fingerprint().
    void add_state(std::function<void(StateHasher&)> add) {
        outside_state_.push_back(std::move(add));
    }
    // plain_state(): as add_state(), and properties may read the field, which model code
    // changes after any step.
    void add_plain_state(std::function<void(StateHasher&)> add) {
        plain_state_ = true;
        add_state(std::move(add));
    }

    // A property registered at set-up (an invariant or a final check) and how often this
    // execution evaluated it: one never evaluated proves nothing, and the summary says so.
    struct Property {
        std::string name;
        std::function<bool()> holds;
        std::uint64_t evaluations = 0;
        bool checked = true; // false: switched off (Limits::unchecked), never evaluated
    };
    // A check() in task code, known by its message (a static string) once reached.
    struct CheckSite {
        const char* message = nullptr;
        std::uint64_t evaluations = 0;
        // Evaluations right after the task's own step released a lock: the check is atomic
        // with that step, so no other task's step can come between the release and it.
        std::uint64_t after_release = 0;
        const char* release_op = nullptr; // the first such release: operation and object
        const Object* release_obj = nullptr;
        bool one_release = true; // every such release was that one
    };

    Outcome run();
    // Instead of the next execution's set-up and run(): goes on from the checkpoint held at
    // decision `position` (Limits::checkpoints), which comes before the execution that just
    // ended on its path, as if the decisions before it had been replayed.
    Outcome resume(std::uint32_t position);

    // --- from task code (the model layer) ---
    // A scheduling point: declares the task's next visible operation and returns when the
    // strategy picks this task (with the operation enabled). The caller then performs it.
    // `loc` is the model's call that makes the operation (see Operation::location).
    // `read_side`: its part in read-side sections (Operation::read_side).
    void visible(const char* op, const Object* obj, std::source_location loc,
                 EnabledFn enabled = nullptr, OpArgs args = {},
                 ReadSide read_side = read_side_none);
    // visible() for an operation that also touches state no object stands for (see
    // Operation::global).
    void visible_global(const char* op, const Object* obj, std::source_location loc,
                        EnabledFn enabled = nullptr, OpArgs args = {},
                        ReadSide read_side = read_side_none);
    // visible() for an operation that changes what can run on the task's CPU (see
    // Operation::cpu_wide).
    void visible_cpu_wide(const char* op, const Object* obj, std::source_location loc,
                          EnabledFn enabled = nullptr, ReadSide read_side = read_side_none);
    // A scheduling point for an operation that only reads shared state.
    void visible_read(const char* op, const Object* obj, std::source_location loc,
                      OpArgs args = {});
    // A scheduling point for an access of a shared variable (`access` is not sync): a read,
    // or a write when `write`. Checked for data races (race_detector.hpp).
    // `cpu_section`: Operation::cpu_section.
    void visible_data(const char* op, const Object* var, std::source_location loc, bool write,
                      DataAccess access, OpArgs args = {}, std::uint16_t cpu_section = 0);
    // A scheduling point that is enabled when `enabled` says so, or else when no other task
    // can run (a turn of a spin loop; see Operation::fallback). It changes nothing.
    void visible_spin(const char* op, std::source_location loc, EnabledFn enabled);
    // The operation just performed turned out to change nothing.
    void nothing_written() { wrote_ = false; }
    // The operation just performed was an attempt that failed (a trylock): it changed
    // nothing, and the running task waits, retrying, until it next changes something.
    void attempt_failed();
    // A named operation of the running task begins (lockcheck::op; `name` is a string
    // literal): the steps it waits from here count towards it until end_op(). Not a
    // scheduling point: naming operations changes no interleaving.
    void begin_op(const char* name);
    // The running task's innermost named operation, `name`, ends: its wait is recorded
    // (op_waits()). Throws std::logic_error if that is not the operation open; does nothing
    // while the execution is torn down.
    void end_op(const char* name);
    // The running task read state beyond its operation's object without a scheduling point
    // (a check() that peeks): its step depends on every other step.
    void observed_all() { step_global_ = true; }
    // Whether the step taken last (the one before the step being picked) observed all.
    bool last_step_global() const { return step_global_; }
    // The running task entered or left its read-side section (Operation::read_side) in a step
    // whose operation did not declare it may (a preempt_disable(), which has no scheduling
    // point of its own): the step depends on every census step all the same.
    void changed_section() {
        if (step_section_ & read_side_change) return;
        step_section_ |= kUndeclaredSectionChange;
        races_.changed_section(step_);
    }
    // Whether the step taken last did so.
    bool last_step_changed_section() const { return step_section_ & kUndeclaredSectionChange; }
    // A spin loop's turn begins for the running task at `loc` (its cpu_relax(), or where its
    // loop goes round): from here the objects it touches are
    // remembered with their values before it touched them, so that the next turn waits until
    // one of them holds another. The turn that ended here counts as idle if it changed
    // nothing (turn_changed()).
    // A primitive that knows its loop (a seqcount reader's) names it by `loop`: then the turn
    // is a round of it when the one before was, whatever it did, until end_spin_loop().
    void begin_spin_turn(std::source_location loc, const void* loop = nullptr);
    // The running task left its primitive's loop: the next turn is the first of a loop.
    void end_spin_loop() {
        running_->turn_start_ = 0;
        running_->turn_loop_ = nullptr;
    }
    // Whether an object the task touched in its current turn holds another value than before
    // the task first touched it in the turn (its own net effect, or another task's write), or
    // another task wrote one between two of its steps on it. Before the task's first turn
    // ends, and past the objects a turn keeps, whether anything was written since it began.
    bool turn_changed(const Task& task) const;
    // Under a weak memory model, whether the running task's read of `obj` must see a write
    // newer than any it has seen there, if there is one: a write becomes visible to every CPU
    // in finite time, so a loop cannot go on reading an older one while nothing changes (it
    // would be a hang or a livelock no kernel has). So for its first read of each object of its
    // spin loop's last turn, when nothing at all was written during that turn, and for the
    // reads of an operation that repeats one it made since the last write (a retry loop,
    // watched once nothing was written for --spin-bound steps). What it saw before stays
    // explored, and so do the writes between that and the latest.
    bool read_progresses(const Object& obj);
    // Under a weak memory model, the running task's read just read a write older than the
    // coherence-latest of its location. A turn of a spin loop that changed nothing is no
    // different from no turn at all (begin_spin_turn()); if one read an older write, the
    // execution in which it did not run, with the next turn in its place, covers everything
    // this one can do, so this one ends there (End::redundant), as GenMC drops a failed
    // iteration of an await loop that did not read the latest writes. Only failed turns
    // whose reads were all of the latest writes are explored, each after a write. A turn
    // counts as a round of the loop only when it began where the one before it began and
    // made the same operations at the same call sites: what a task does between two loops,
    // or between two calls of one loop, is never dropped.
    void stale_read() {
        if (running_->turn_start_) running_->turn_stale_ = true;
    }
    // Under lkmm, a read of a write its writer has not made yet was made (`delta` 1) or settled
    // (-1). While one is open, what the execution finds rests on a write that may never come:
    // the first finding waits (record()), and stands once every such read is settled, the
    // schedule to here its counterexample; if one is not, it goes with the execution
    // (end_unsettled()).
    void future_reads_open(int delta) {
        future_reads_ += delta;
        if (future_reads_ == 0 && deferred_) [[unlikely]]
            confirm_deferred();
    }
    // Ends the execution as End::unsettled (a task calling is unwound).
    void end_unsettled();
    // The memory [begin, begin + size) is freed (kfree) together with `allocation`, the object
    // that stands for it: every object registered after `allocation` that lives there is freed
    // with it, and the scheduling point of any later operation on one of them is a
    // use-after-free. Scans the objects registered since `allocation`; allocates nothing.
    void free_memory(const Object& allocation, const void* begin, std::size_t size);
    // Under a weak memory model, the model layer's account of what each step did to memory.
    // The primitives that model their own accesses (shared<T>, atomic_t, locks, barriers)
    // call memory_modelled() in their step; the step of any other operation on an object is
    // handed to `hook` as it finishes (model/weak_memory.cpp: a fully ordered access).
    using MemoryHook = void (*)(Execution& ex, Task& task, const Operation& op);
    void set_memory_hook(MemoryHook hook) { memory_hook_ = hook; }
    // And at the end of an execution every task finished, before the final checks: the model
    // layer's data races by the memory model's own definition (report_data_race()), which
    // then replaces the race detector's (its reports are left out).
    using EndHook = void (*)(Execution& ex);
    void set_end_hook(EndHook hook) { end_hook_ = hook; }
    // And for an operation of the running task on `obj`, which lies in memory freed by a step
    // before: whether the free is what the access sees (then it is a use-after-free), or the
    // memory model lets the access come before it (a reader that LKMM's RCU guarantee orders
    // before the free, though the scheduler ran it after).
    using FreedHook = bool (*)(Execution& ex, const Object& obj);
    void set_freed_hook(FreedHook hook) { freed_hook_ = hook; }
    // A data race the end hook found, reported as the race detector reports its own, unless
    // this execution reported one already: at the later access's step, citing the earlier
    // access and the steps `between` them that did not order them.
    void report_data_race(const RaceDetector::Race& race, std::vector<std::uint32_t> between);
    void memory_modelled() { memory_modelled_ = true; }
    // Hands the step being run to the hook now, if it goes to the hook at all: a barrier the
    // task's code sets after the operation comes after it in program order.
    void flush_memory_step() {
        if (memory_hook_ && !memory_modelled_ && stepping_ && step_obj_)
            memory_hook_(*this, *stepping_, memory_op_);
        memory_modelled_ = true;
    }
    // A nondeterministic choice of the model, in [0, n): the strategy decides and the
    // schedule records it. Call only from task code, right after a scheduling point.
    // `kept_in_state`: the caller keeps the outcome only in objects the state already holds
    // (the CPU a task resumes on, in its task_struct), so a stateful search need not keep it
    // in the task's history as well.
    std::uint32_t choose(std::uint32_t n, bool kept_in_state = false);
    // Whether the execution is still where an earlier one of the search was
    // (Strategy::replaying()).
    bool replaying() const { return strategy_.replaying(); }
    // A property (an invariant, a final check) read `obj` without a scheduling point (peek()).
    // Kept only while a traced execution evaluates one, so that the report of its failure can
    // show what it read; else the cost is one test of a null pointer.
    static void peeked(const Object& obj) {
        if (peeks_) [[unlikely]]
            peeks_->push_back(&obj);
    }
    // Records the value the operation just read, wrote or returned (for traces).
    void note(std::int64_t value) { value_ = value; }
    // The running task's model code receives `value` from the operation just performed (what
    // a primitive returns, or leaves where the caller reads it): under a stateful search it
    // joins the task's history, which stands for everything the task's code computed since.
    // Every primitive whose result the caller can see calls it; one whose result is void
    // does not, so that two tasks that increment a counter in either order reach one state.
    void observe(std::uint64_t value) {
        if (limits_.fingerprints) [[unlikely]]
            fold_history(value);
    }
    // Where the running task's history stands (observe()), to go back to with forget_since()
    // when its code has kept nothing observed since (model/forget_reads.hpp).
    struct HistoryMark {
        Fingerprint history{};
        std::uint32_t steps = 0;
    };
    HistoryMark history_mark() const {
        if (!limits_.fingerprints || !running_) [[likely]]
            return {};
        return {running_->history_, running_->history_steps()};
    }
    // The running task's code holds no value observed since `mark`: its history becomes the
    // mark's, told apart by `point` (where in the code it went back), and its steps count from
    // here. Every time it comes back to `point` with the mark's history it is in one state.
    void forget_since(const HistoryMark& mark, std::uint64_t point) {
        if (limits_.fingerprints && limits_.forgets && running_) [[unlikely]]
            restart_history(mark, point);
    }
    // A forget_reads scope of the running task's code forgot a round (forget()) for the first
    // time (`first`), or such a scope ended. Only there can a task come back to a state: each
    // of its steps adds to its history, which only forget() sets back to the same value again
    // and again (the end of a scope sets it once, from the history at the scope's start). So
    // no cycle of the state graph has the steps of a task outside such scopes (a search judging
    // loops as cycles may keep it in a sleep set: checker/stateful_dfs.cpp).
    void forgot(bool first) {
        if (limits_.fingerprints && running_) [[unlikely]]
            count_forgetting(*running_, first);
    }
    // The tasks inside a scope that forgot a round: those that can come back to a state.
    TaskSet may_come_back() const { return forgetting_; }
    // The state as a stateful search compares it: every object, every unfinished task's
    // history, pending operation and sleep state, the model layer's own state (lockdep's
    // graph) and what spin loops and retry loops are watched for. Not on the hot path: the
    // search asks for it once per step.
    Fingerprint fingerprint() const;
    // A step or a property read the order of the entries of the list `entry` is on (`op`:
    // list_first_entry, list_entries, ...). Where lists are kept as sets, the first such read
    // is recorded, "list_first_entry(head) at step 12"; the search must then begin again with
    // lists in order, the states it stored being no longer exact.
    void list_order_read(const char* op, const Object& entry) {
        if (limits_.lists_as_sets && order_read_.empty()) [[unlikely]]
            note_order_read(op, entry);
    }
    const std::string& list_order_read() const { return order_read_; }
    // The check() with `message` is evaluated now; `after_release`: the running task's step
    // just taken (its pending() operation) released a lock. Allocates only the first time a
    // message is reached in the execution.
    void count_check(const char* message, bool after_release);
    // Records a violation. Called from a task, it ends the task's execution by unwinding it,
    // unless the execution goes on past it (Limits::keep_going_until): then it returns.
    // `loc`: the model's call that broke the property, where one did.
    void fail(ViolationKind kind, std::string property, std::string message,
              std::source_location loc = {});
    // An internal table of `capacity` entries (`table`: a static string naming it) is full:
    // what did not fit goes unchecked and the run is incomplete. With `ends`, the execution
    // cannot go on without the entry (its model state would be wrong): it ends here (a task
    // calling is unwound). Only the first table to fill in an execution is kept.
    void table_full(const char* table, std::uint32_t capacity, bool ends);
    // fail(), with further report lines (a lockdep chain, an unsafe scenario).
    void fail_with_details(ViolationKind kind, std::string property, std::string message,
                           std::vector<std::string> details, std::source_location loc = {},
                           std::vector<std::uint32_t> cited = {});
    // Whether a violation ended the execution: no step follows.
    bool failed() const { return outcome_.end == End::violation; }
    // Whether the depth bound or --max-steps cut it, once it is over.
    bool cut() const { return outcome_.end == End::cut; }
    // fail() for a property checked before a scheduling point (lockdep, might_sleep(),
    // recursive locking): `attempt`, the operation the running task was about to declare, is
    // what breaks it. When the violation ends the execution, the attempt becomes a step of its
    // own right after the execution's last one, the last of the trace and the violation's step;
    // nothing is scheduled for it, so schedules do not change.
    void fail_attempt(const Operation& attempt, ViolationKind kind, std::string property,
                      std::string message, std::vector<std::string> details = {},
                      std::vector<std::uint32_t> cited = {});
    bool in_task() const { return running_ != nullptr; }
    Task& current_task() {
        if (!running_) [[unlikely]]
            outside_task(nullptr);
        return *running_;
    }

    // --- inspection (reports, diagnostics) ---
    const std::vector<std::unique_ptr<Task>>& tasks() const { return tasks_; }
    const std::vector<Object*>& objects() const { return objects_; }
    const Schedule& schedule() const { return schedule_; }
    // Whether properties are checked after every step: they may read any object, so the
    // order of any two writes can matter to them.
    bool has_invariants() const { return checked_invariants_ != 0; }
    // Whether the model declared plain_state(): properties may read it.
    bool has_plain_state() const { return plain_state_; }
    std::uint32_t step() const { return step_; }
    // The deepest step taken so far (see Limits::depth).
    std::uint32_t depth() const { return chain_.deepest(); }
    const Limits& limits() const { return limits_; }
    Counters& counters() { return counters_; }
    const Counters& counters() const { return counters_; }
    const std::vector<Property>& invariants() const { return invariants_; }
    const std::vector<Property>& final_checks() const { return final_checks_; }
    const std::vector<CheckSite>& check_sites() const { return check_sites_; }
    // The waits of the named operations that finished, in the order first finished.
    std::span<const OpWait> op_waits() const { return {op_waits_.data(), op_wait_count_}; }
    // Distinct named operations one execution records; more fill the table (table_full()).
    static constexpr std::size_t kOpWaits = 8;
    // The latency bounds checked: --max-wait's, then those the model declared.
    const std::vector<WaitBound>& wait_bounds() const { return wait_bounds_; }
    // With a trace sink, the objects the property that broke read (an invariant or a final
    // check), in the order read, with repeats; empty if none broke.
    const std::vector<const Object*>& property_reads() const { return property_reads_; }

  private:
    friend class Object;
    friend class CheckerMemory;
    struct Holder {
        virtual ~Holder() = default;
    };
    // The calling thread's arena from the execution's start. The thread's outermost execution
    // takes all of it, giving back then what the execution before it left there: kept until
    // now, because an exception the model's set-up threw carries text model code allocated,
    // and the caller reads it once the execution is gone. One run inside another (a test's)
    // takes it from the outer one's mark and gives it back at its end. Declared before every
    // other member, so that this comes after each of them is destroyed.
    struct ArenaLease {
        explicit ArenaLease(bool nested);
        ~ArenaLease();
        ArenaLease(const ArenaLease&) = delete;
        ArenaLease& operator=(const ArenaLease&) = delete;
        Arena* arena;
        char* mark;
        bool nested;
    };
    template <class T> struct Owned final : Holder {
        template <class... A> explicit Owned(A&&... a) : value(std::forward<A>(a)...) {}
        T value;
    };

    int register_object(Object* obj, ObjectKind kind);
    // Records a violation, unless the execution is over or being torn down; ends the
    // execution unless it goes on past this one (Limits::keep_going_until). Returns what it
    // recorded, for the caller to add details to, or null. Never throws.
    Violation* record(ViolationKind kind, std::string property, std::string message,
                      std::source_location loc = {});
    static void fiber_entry(boost::context::detail::transfer_t transfer);
    // Suspends the current fiber, saving it in `save`, and runs `to` (the main context when
    // null) where it was suspended.
    void switch_to(void** save, Task* to);
    // Where the fiber of `task` (null: the main context) is saved while another one runs.
    void** context_of(Task* task) { return task ? &task->context_ : &main_context_; }
    [[noreturn]] void exit_fiber(Task& task);
    void start_new_tasks();
    // Of the `enabled` tasks, those whose next step is within the depth bound.
    TaskSet within_depth(TaskSet enabled) const;
    void start(Task& task);
    bool holds(Property& property);
    void run_body(Task& task);
    // A task just started reached its first scheduling point: back to whoever started it.
    void started(Task& task);
    // A task resumed (or at a scheduling point) while its execution is torn down: unwinds it
    // (FiberUnwind) to end it, unless it is already unwinding. Kept out of line: the step path
    // never takes it.
    [[gnu::noinline]] static void unwound();
    // The same for the running task whose execution ends early (a violation, a cut). Inline
    // into its callers, where the unwinding starts: one frame fewer to walk.
    [[gnu::always_inline]] void unwind_running() {
        // Unwinding inside a destructor run by an unwinding, of this teardown or of an exception
        // the model threw, would terminate: let that one finish.
        FiberUnwind& unwind = running_->unwind_;
        if (std::uncaught_exceptions() == 0 && !unwind.unwinding()) {
            if (!unwinding_ && drops_tasks()) drop_running();
            unwind.unwind();
        }
    }
    // A primitive called at set-up, where no task runs: the model's error, thrown as
    // std::logic_error naming the operation where known (the command reports it as bad
    // input).
    [[noreturn, gnu::cold, gnu::noinline]] static void outside_task(const char* op);
    void declare(const Operation& op);
    // One scheduling step, run by the task that reached a scheduling point (or by run() to
    // begin): finishes the step that task took, then picks the task that takes the next one.
    // Null when the execution is over.
    Task* advance();
    void finish_step();
    // Adds to the task's wait the steps other tasks ran since it last failed an attempt, and
    // counts from now on (it is still retrying).
    static void settle_retry(Task& task, std::uint32_t step);
    // The cold ends of a step: every task has returned, or none can run.
    [[gnu::cold]] void run_final_checks();
    void check_invariants();
    [[gnu::cold]] void report_blocked();
    // No task can run but spinners: the lowest that spun fewer than --spin-bound idle turns
    // takes the next step, or, when each spun that many with nothing changed, the execution
    // hangs (reported with each loop's cpu_relax() and the objects its last turn read).
    [[gnu::cold]] TaskId next_spinner(TaskSet spinning);
    // Nothing was written for --spin-bound steps: tasks about to repeat an operation they
    // performed since then are going round a loop that changes nothing. They wait while
    // another task can run; when only they can, the one that repeated least runs, and when
    // each repeated --spin-bound times it is a livelock. Returns the tasks to offer (none after
    // a livelock).
    [[gnu::cold]] TaskSet watch_repeats(TaskSet enabled);
    // The picked task performs its pending operation during a watched stretch: remember it.
    [[gnu::cold]] void watch_step(Task& task);
    // The picked task, inside a spin loop's turn, takes a step on `obj`: remember the object's
    // value before the turn's first step on it, and whether another task wrote it since the
    // task's last step on it.
    [[gnu::noinline]] void turn_step(Task& task, const Object& obj);
    [[gnu::cold]] void report_livelock(TaskSet repeaters);
    [[gnu::noinline]] void fold_history(std::uint64_t value);
    [[gnu::noinline]] void restart_history(const HistoryMark& mark, std::uint64_t point);
    void fingerprint_watch(const Task& task, StateHasher& h) const;
    // An instance of `op` ended having waited `waited` steps: a violation if over its bound.
    [[gnu::cold]] void check_wait_bound(const Task& task, const char* op, std::uint32_t waited);
    [[gnu::cold]] Violation* report_race(const RaceDetector::Race& race); // null: not recorded
    // The running task, picked at its scheduling point, before its model code performs the
    // operation: unwinds it if the execution is torn down, and reports a use-after-free if the
    // operation's object lies in memory freed meanwhile (KASAN checks the access itself).
    // Static and without arguments, as unwound(): the step sets up nothing for it.
    [[gnu::noinline]] static void check_resumed();
    [[gnu::cold]] void report_use_after_free(const Task& task);
    // After escape(): abandons the task that ran and reports its fault.
    void on_escape();
    static void interrupt_running_task(bool blocked);
    // The watchdog, on its own thread: the running task could not be interrupted. Prints what
    // is known of the execution and ends the process.
    [[noreturn]] static void report_stuck(const void* running);
    void unwind_all();
    // run() from its start, or from a checkpoint where `resumed` asked for it (resume()).
    Outcome go(Task* resumed);
    // The main context's part: runs the tasks from `next` until the execution is over, saving
    // a checkpoint each time one asks for it (offer_checkpoint()).
    void wait_for_tasks(Task* next);
    // Before a decision among more than one option: asks the strategy where the execution is,
    // and has the main context save it there if the search keeps none there yet.
    [[gnu::noinline]] void offer_checkpoint();
    void save(Checkpoint& cp, Task& asker);
    // The running task's model code ended its execution (drops_tasks()): it leaves its fiber
    // as an unwound task leaves it, finished, without unwinding its stack, which is dropped.
    [[noreturn]] void drop_running();
    void count_forgetting(Task& task, bool first);
    // Records the first read of a list's order (list_order_read()), out of line: it allocates.
    void note_order_read(const char* op, const Object& entry);

    ArenaLease arena_{current_ != nullptr};
    StackPool& stacks_;
    Strategy& strategy_;
    Limits limits_;
    TraceSink* sink_;
    std::vector<Holder*> owned_; // in the arena (make()), destroyed at the execution's end
    template <class T> static constexpr char kLocalKey = 0; // its address names T
    std::vector<std::pair<const void*, void*>> locals_;
    std::vector<std::function<void(StateHasher&)>> outside_state_; // see add_state()
    bool plain_state_ = false;                                     // see add_plain_state()
    Counters counters_;
    // In place: an execution allocates nothing for its operations.
    std::array<OpWait, kOpWaits> op_waits_{};
    std::size_t op_wait_count_ = 0;
    std::vector<WaitBound> wait_bounds_;
    RaceDetector races_;
    std::vector<Object*> objects_;
    std::vector<std::unique_ptr<Task>> tasks_;
    std::vector<Property> invariants_;
    std::size_t checked_invariants_ = 0; // those not switched off
    std::vector<Property> final_checks_;
    std::vector<CheckSite> check_sites_;
    std::vector<const Object*> property_reads_;
    Schedule schedule_;
    Outcome outcome_;
    std::uint32_t step_ = 0;
    std::string order_read_; // see list_order_read()
    TaskSet forgetting_ = 0; // see may_come_back()
    ChainDepth chain_;
    std::size_t started_ = 0; // tasks_[0, started_) have been started
    std::uint32_t last_write_step_ = 0;
    bool wrote_ = false;       // whether the step being run changes shared state
    bool step_global_ = false; // see observed_all()
    // The section bits its operation declared, and whether it changed its section undeclared.
    static constexpr std::uint8_t kUndeclaredSectionChange = 0x80;
    std::uint8_t step_section_ = 0;
    Operation traced_;                  // the operation of the step being run, for the trace sink
    TraceSink::Context traced_context_; // and how it came to be taken
    std::optional<std::int64_t> value_;
    Task* stepping_ = nullptr;         // the task taking the step being run
    const Object* step_obj_ = nullptr; // the object of its operation
    Task* running_ = nullptr;          // whose model code runs (null in scheduler code)
    Task* fiber_ = nullptr;            // whose stack runs (null: the main context)
    void* main_context_ = nullptr;
    Stack main_stack_; // the main context's stack, as ASan knows it (fiber_sanitizer.hpp)
    void* dead_context_ = nullptr; // where an ended fiber's context goes: it is never resumed
    bool unwinding_ = false;
    MemoryHook memory_hook_ = nullptr; // see set_memory_hook()
    EndHook end_hook_ = nullptr;       // see set_end_hook()
    FreedHook freed_hook_ = nullptr;   // see set_freed_hook()
    Operation memory_op_{};            // with a hook: the operation of the step being run
    bool memory_modelled_ = false;     // its primitive modelled its memory accesses
    // Whether a task picked at its scheduling point has more to do than go on (see
    // check_resumed): set once the execution is torn down or memory was freed, so that the
    // step of an execution that frees nothing tests this one flag and nothing else.
    bool resume_checks_ = false;
    bool ended_early_ = false; // a choice ended the execution from inside a task
    int future_reads_ = 0;     // see future_reads_open()
    bool deferred_ = false;    // a finding waits for them (record())
    void confirm_deferred();
    void drop_deferred();
    Operation attempt_{};                // see fail_attempt()
    const Task* attempt_task_ = nullptr; // who attempted it; null: no attempt ended the execution
    sigjmp_buf escape_jump_;
    Fault fault_;                 // why escape_jump_ was taken
    std::string too_many_tasks_;  // a running task spawned past kMaxTasks: why run() throws
    bool setting_up_ = false;     // inside set_up()
    bool checker_memory_ = false; // see CheckerMemory
    // With checkpoints: the execution is running, and what its own code allocates is its
    // arena's (model_arena()), so that a checkpoint's copy of the arena holds its tables.
    bool live_ = false;
    bool main_waiting_ = false;  // the main context waits in wait_for_tasks()
    Task* asker_ = nullptr;      // a task asking for a checkpoint (offer_checkpoint())
    std::uint32_t asked_at_ = 0; // at which decision
    // The step of the deepest checkpoint on this execution's path (0: none): the next is
    // saved no fewer than kCheckpointSpacing steps below it (offer_checkpoint()).
    std::uint32_t saved_step_ = 0;
    Execution* previous_;
    // Defined here, so that model code reads them straight from the thread's block (one
    // load). Declared only, they were read through the TLS wrapper, whose null check on the
    // address UBSan reported as a null load once the linker relaxed the access to `lea`
    // (which sets no flags: GCC tests the flags of the `add` it emitted).
    static inline thread_local Execution* current_ = nullptr;
    static inline thread_local std::vector<const Object*>* peeks_ = nullptr; // see peeked()
};

template <class T, class... Args> T& Execution::make(Args&&... args) {
    owned_.reserve(owned_.size() + 1); // the push below cannot throw and lose the object
    void* memory = allocate(sizeof(Owned<T>), alignof(Owned<T>));
    Owned<T>* owned;
    try {
        owned = new (memory) Owned<T>(std::forward<Args>(args)...);
    } catch (...) {
        deallocate(memory);
        throw;
    }
    owned_.push_back(owned);
    return owned->value;
}

// Checker code that model code calls and that keeps what it allocates beyond the execution (a
// violation's text, the strategy's choices, a trace, the race detector's thread-wide tables):
// from malloc(), not from the arena, for as long as it is in scope. Never across a scheduling
// point or an unwinding: a task dropped there would leave it set.
class CheckerMemory {
  public:
    explicit CheckerMemory(Execution& ex) : ex_(ex), was_(ex.checker_memory_) {
        ex.checker_memory_ = true;
    }
    ~CheckerMemory() { ex_.checker_memory_ = was_; }
    CheckerMemory(const CheckerMemory&) = delete;
    CheckerMemory& operator=(const CheckerMemory&) = delete;

  private:
    Execution& ex_;
    bool was_;
};

template <class T> T& Execution::local() {
    for (const auto& [key, state] : locals_)
        if (key == &kLocalKey<T>) return *static_cast<T*>(state);
    T& state = make<T>();
    locals_.emplace_back(&kLocalKey<T>, &state);
    // A local whose state later steps can observe says so with a fingerprint() member.
    if constexpr (requires(const T& t, StateHasher& h) { t.fingerprint(h); })
        add_state([&state](StateHasher& h) { state.fingerprint(h); });
    return state;
}

inline void Execution::switch_to(void** save, Task* to) {
    fiber_ = to;
    void* fake_stack = nullptr; // the leaving fiber's, kept here while it is suspended
    fiber_sanitizer::begin_switch(save == &dead_context_ ? nullptr : &fake_stack,
                                  to ? to->stack_ : main_stack_);
    auto back = boost::context::detail::jump_fcontext(to ? to->context_ : main_context_, save);
    fiber_sanitizer::end_switch(fake_stack);
    // Whoever switched here handed over where its own fiber is to be saved.
    *static_cast<void**>(back.data) = back.fctx;
}

// The scheduling point itself is inline. When the task is picked again it goes on without a
// switch; a task resumed by a switch returns into its own model code from here.
inline void Execution::declare(const Operation& op) {
    if (unwinding_) {
        unwound();
        return;
    }
    if (!running_) [[unlikely]]
        outside_task(op.name);
    Task& self = *running_;
    // Field by field: `op` is a temporary of the inlined visible*(). Copied whole, GCC builds
    // it on the stack and reloads it with wide loads that stall on the narrow stores just
    // made, which doubled the step's cost; so, each field goes straight from its register.
    static_assert(sizeof(Operation) == 64, "a field added to Operation is copied here too");
    Operation& pending = self.pending_;
    pending.name = op.name;
    pending.obj = op.obj;
    pending.enabled = op.enabled;
    pending.location = op.location;
    pending.args.v[0] = op.args.v[0];
    pending.args.v[1] = op.args.v[1];
    pending.args.n = op.args.n;
    pending.args.object_first = op.args.object_first;
    pending.read_only = op.read_only;
    pending.fallback = op.fallback;
    pending.global = op.global;
    pending.cpu_wide = op.cpu_wide;
    pending.access = op.access;
    pending.cpu_section = op.cpu_section;
    pending.read_side = op.read_side;
    self.blocked_ = false;
    if (self.starting_) [[unlikely]] {
        started(self);
    } else {
        watchdog::leave_task();
        Task* next = advance();
        // Testing resume_checks_ first lets the task that goes on without a switch skip the
        // test below: it knows the flag from here. The hint is on the flag alone: [[unlikely]]
        // on the whole condition moves the common path out of line (one jump more a step).
        if (__builtin_expect(resume_checks_, false) && unwinding_)
            running_ = &self; // resumed for teardown inside advance(), starting a task: unwind
        else if (next != &self)
            switch_to(&self.context_, next);
    }
    if (resume_checks_) [[unlikely]]
        check_resumed();
}

inline void Execution::visible(const char* op, const Object* obj, std::source_location loc,
                               EnabledFn enabled, OpArgs args, ReadSide read_side) {
    declare(Operation{.name = op,
                      .obj = obj,
                      .enabled = enabled,
                      .location = loc,
                      .args = args,
                      .read_side = read_side});
}

inline void Execution::visible_global(const char* op, const Object* obj, std::source_location loc,
                                      EnabledFn enabled, OpArgs args, ReadSide read_side) {
    declare(Operation{.name = op,
                      .obj = obj,
                      .enabled = enabled,
                      .location = loc,
                      .args = args,
                      .global = true,
                      .read_side = read_side});
}

inline void Execution::visible_cpu_wide(const char* op, const Object* obj, std::source_location loc,
                                        EnabledFn enabled, ReadSide read_side) {
    declare(Operation{.name = op,
                      .obj = obj,
                      .enabled = enabled,
                      .location = loc,
                      .cpu_wide = true,
                      .read_side = read_side});
}

inline void Execution::visible_read(const char* op, const Object* obj, std::source_location loc,
                                    OpArgs args) {
    declare(Operation{.name = op, .obj = obj, .location = loc, .args = args, .read_only = true});
}

inline void Execution::visible_data(const char* op, const Object* var, std::source_location loc,
                                    bool write, DataAccess access, OpArgs args,
                                    std::uint16_t cpu_section) {
    declare(Operation{.name = op,
                      .obj = var,
                      .location = loc,
                      .args = args,
                      .read_only = !write,
                      .access = access,
                      .cpu_section = cpu_section});
}

inline void Execution::visible_spin(const char* op, std::source_location loc, EnabledFn enabled) {
    declare(Operation{
        .name = op, .enabled = enabled, .location = loc, .read_only = true, .fallback = true});
}

} // namespace lockcheck::detail
