// RaceDetector: happens-before data-race detection for plain shared variables, the model's
// KCSAN. The scheduling step tells it each step's task and operation. It keeps each task's
// last accesses of every variable and, to order them, vector clocks (per task, per
// synchronizing object, one for operations on no object) computed lazily: from a model's
// first access of a variable on, a step only logs what it synchronizes with, and the clocks
// catch up with the log when an access has another task's conflicting access to be checked
// against. Nothing here allocates or formats during a step: tables grow when tasks spawn and
// objects register (and are kept for the next execution), and a race comes back as data.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "malloc_allocator.hpp"
#include "object.hpp"
#include "operation.hpp"
#include "task_set.hpp"

namespace lockcheck::detail {

// Happens-before is the synchronization order: program order; a task spawned by a running
// task starts after that task's step; every operation of a synchronizing object acquires the
// object's clock and, unless it only reads, releases into it (operations on no object, spin
// turns and global operations do the same with one execution-wide clock). Plain and marked
// accesses order nothing. This orders more than the kernel's memory model does (there an
// atomic_inc or a failed trylock orders nothing), so it may miss a race, never invent one.
// Two accesses of one variable by different tasks, at least one a write and at least one
// plain, that it leaves unordered are a data race.
//
// Read-side sections (Operation::read_side) order as RCU's guarantee does, not as a lock's:
// readers do not exclude each other, so two tasks' entries and exits order nothing between
// them. Each task's entries and exits release into a clock of its own, which a step that reads
// every task's section (a grace period's start and end) acquires before it acquires and
// releases its object's; an rcu_read_lock() or rcu_read_unlock() (read_side_entry) only acquires
// its object's. So what a reader did before it left its section happens before what follows
// the grace period's end, and what the updater did before a grace period happens before a
// section entered after it. That is more than LKMM orders in two ways, so a race that needs
// either may be missed: a section entered after the grace period began but before it ended is
// ordered after the updater's earlier accesses too (the start also releases the rcu state's
// clock), and through the grace period one reader's section before a later one's.
//
// Per-CPU data is accessed on its CPU by code that cannot be preempted there instead of under
// a lock: two tasks of the CPU with preemption off (or a task with interrupts off and the
// CPU's interrupt handler) cannot both be inside their sections, so their accesses cannot
// overlap, while a handler that may interrupt the section can break into it. The model lets
// such sections interleave (the search would cost more if it did not), so the detector orders
// these accesses itself: an access in a section of its CPU (Operation::cpu_section) orders
// after every earlier one of that CPU whose context it keeps out and whose section keeps its
// own context out, which is exactly when the kernel would have run one section to its end
// before the other began. One clock per CPU and pair of contexts carries that order (an
// access from context c keeping out up to p releases into (c, b) for b <= p and acquires
// (a, c) for a <= p). Only per-CPU data: the model's tasks all run on CPU 0 unless it says
// otherwise, and two of them holding different spinlocks may still race on anything else.
class RaceDetector {
  public:
    // One access of a race, as a report names it.
    struct Access {
        TaskId task = 0;
        std::uint32_t step = 0;
        const char* op = nullptr; // "write", "READ_ONCE", "set_bit"
        bool write = false;
        bool plain = false;
        std::source_location location{}; // the model's call that made it
    };
    struct Race {
        int variable = 0; // its object id
        Access earlier;
        Access later; // the access of the step just taken
    };

    // Whether `a` and `b`, pending for two tasks at once, race whichever runs first: accesses
    // of one variable, at least one a write and at least one plain, not in sections of a CPU
    // that keep each other out. Nothing else can order two steps with none between them, so
    // the detector reports the second.
    static bool races(const Operation& a, const Operation& b) {
        if (a.access == DataAccess::sync || b.access == DataAccess::sync || a.obj != b.obj)
            return false;
        return (!a.read_only || !b.read_only) &&
               (a.access == DataAccess::plain || b.access == DataAccess::plain) &&
               !exclusive(a.cpu_section, b.cpu_section);
    }
    // Whether accesses in CPU sections `a` and `b` cannot overlap: both on one CPU, each
    // keeping the other's context out.
    static bool exclusive(std::uint16_t a, std::uint16_t b) {
        if (!a || !b) return false;
        const CpuSection x = unpack(a), y = unpack(b);
        return x.cpu == y.cpu && x.excludes >= y.context && y.excludes >= x.context;
    }

    RaceDetector();
    ~RaceDetector();
    // Makes the calling thread's store of spare tables (Execution::prepare_thread()).
    static void prepare_thread();
    RaceDetector(const RaceDetector&) = delete;
    RaceDetector& operator=(const RaceDetector&) = delete;

    // Set-up: an execution takes at most `steps` steps.
    void reserve(std::size_t steps);
    // An object registers (at set-up, or when task code makes one).
    void add_object(int id, ObjectKind kind);
    // A task is spawned: at set-up (parent kNoTask) it starts knowing nothing; spawned by the
    // running task `parent` during step `step`, it starts after that step.
    void add_task(TaskId id, TaskId parent, std::uint32_t step);

    // `task` takes step `step` (the steps are 1, 2, ...) with `op`.
    void begin_step(TaskId task, std::uint32_t step, const Operation& op) {
        if (op.access != DataAccess::sync) [[unlikely]]
            begin_access(task, step, op);
        if (log_)
            log_[step - first_] = Entry{op.obj,    task,      op.read_only, op.fallback,
                                        op.global, op.access, op.read_side, op.cpu_section};
    }
    // The task of step `step`, in progress, entered or left its read-side section, which the
    // step's operation did not declare (Execution::changed_section()).
    void changed_section(std::uint32_t step) {
        if (log_)
            log_[step - first_].read_side =
                ReadSide(log_[step - first_].read_side | read_side_change);
    }
    // The step is over: a data access is checked against the other tasks' accesses of its
    // variable. Returns the race found, if any (valid until the next step).
    // What a checkpoint keeps of the thread's tables (checkpoint.hpp): every clock and record,
    // and the log's entry of step `step`, the one in progress (a choice's checkpoint comes in
    // the middle of a step, which may still change its entry); the entries before it stay as
    // they are, and later steps write only past it.
    struct Saved;
    void save(Saved& saved, std::uint32_t step) const;
    void restore(const Saved& saved, std::uint32_t step);
    const Race* end_step() {
        if (!pending_.active) [[likely]]
            return nullptr;
        pending_.active = false;
        return check_access() ? &race_ : nullptr;
    }

  private:
    // A step as synchronization sees it: its task and what its operation touched.
    struct Entry {
        const Object* obj;
        TaskId task;
        bool read_only;
        bool fallback;
        bool global;
        DataAccess access;
        ReadSide read_side;
        std::uint16_t cpu_section;
    };
    // A task's last access of a variable in one class; step 0: none.
    struct Last {
        std::uint32_t step;
        const char* op;
        std::source_location location;
    };
    // The classes of access kept per variable and task: a task's accesses of one class are in
    // program order, so its last one is ordered before a step only if all of them are.
    enum Class { plain_write, marked_write, plain_read, marked_read, kClasses };
    // Every table, kept from one execution to the next so that set-up does not allocate.
    // Grown while executions run, they come from malloc() whatever model code's `new` does.
    template <class T> using Table = std::vector<T, MallocAllocator<T>>;
    struct Tables {
        std::unique_ptr<Entry[]> log; // by step - first_; only the steps logged are read
        std::size_t log_capacity = 0;
        // By task: for each task, its last step this one is ordered after.
        Table<std::uint32_t> task_clocks;
        // Row 0: operations on no object; row 1 + conflict id: a synchronizing object.
        Table<std::uint32_t> sync_clocks;
        // By task: what the task did before it last entered or left its read-side section.
        Table<std::uint32_t> section_clocks;
        // Per-CPU data's order: row (cpu * kCpuContexts + from) * kCpuContexts + to.
        Table<std::uint32_t> cpu_clocks;
        Table<int> variable_ids;         // by variable index: its object id
        Table<std::int32_t> variable_of; // by object id: its variable index, or -1
        Table<Last> last;    // by (variable * kClasses + class) * width + task, where seen
        Table<TaskSet> seen; // by variable * kClasses + class: who has a Last
    };

  public:
    struct Saved {
        Tables tables; // its log unused
        Entry entry{};
    };

  private:
    // The data access of the step in progress, checked when it ends.
    struct Pending {
        bool active = false;
        bool write = false;
        bool plain = false;
        TaskId task = 0;
        std::int32_t variable = -1;
        std::uint32_t step = 0;
        const char* op = nullptr;
        std::source_location location{};
    };

    std::uint32_t* clock_of(TaskId task) { return &t_->task_clocks[task * width_]; }
    std::uint32_t* sync_clock(std::size_t row) { return &t_->sync_clocks[row * width_]; }
    std::uint32_t* section_clock(TaskId task) { return &t_->section_clocks[task * width_]; }
    [[gnu::noinline]] void begin_access(TaskId task, std::uint32_t step, const Operation& op);
    // Maps the variables registered since the last call to their tables.
    void index_variables();
    // Brings every clock up to step `step` of the log.
    void catch_up(std::uint32_t step);
    // Orders `clock`, of the task that took `e`, after what `e`'s operation synchronizes with.
    void order_step(const Entry& e, std::uint32_t* clock);
    // Orders `clock`, an access in CPU section `section`, after the accesses it cannot overlap.
    void order_in_cpu_section(std::uint32_t* clock, std::uint16_t section);
    bool check_access();
    // Makes every clock `width` entries wide.
    void widen(std::size_t width);

    // The tables of finished executions, for the next ones on this thread (they may nest).
    static thread_local std::vector<std::unique_ptr<Tables>> spare_tables_;
    static thread_local std::size_t tables_made_; // on this thread, spare or in use

    std::unique_ptr<Tables> t_;
    std::size_t width_ = 4;     // every clock's stride: 4, 8, ... (at least the tasks)
    std::size_t objects_ = 0;   // registered so far
    std::size_t variables_ = 0; // of them, indexed in variable_of
    Entry* log_ = nullptr;      // set at the first access of a variable: steps before it
                                // cannot order it after anything
    std::uint32_t first_ = 0;   // the step log_[0] is
    std::uint32_t applied_ = 0; // the last step the clocks include
    Pending pending_;
    Race race_;
};

} // namespace lockcheck::detail
