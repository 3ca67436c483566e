// The scheduling step, fiber switching, violation recording and teardown of one execution.
#include "execution.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <exception>
#include <new>
#include <stdexcept>
#include <typeinfo>
#include <unistd.h>

namespace lockcheck::detail {

namespace fc = boost::context::detail;

namespace {

thread_local Execution* g_running = nullptr; // inside run(), for the fault handler

std::string demangle(const char* name) {
    int status = 0;
    char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    std::string result = status == 0 ? out : name;
    std::free(out);
    return result;
}

std::string blocked_on(const Task& t) {
    const Operation& op = t.pending();
    std::string s = op.name;
    if (op.obj) s += "(" + op.obj->name() + ")";
    return s;
}

// " (rename_pin.cpp:97 btrfs_sync_log)" after what a report names, if the model's call is known.
std::string made_at(const std::source_location& loc) {
    const CallSite site = call_site(loc);
    return site.known() ? " (" + site.text() + ")" : "";
}

} // namespace

Object::Object(std::string name, ObjectKind kind) : name_(std::move(name)) {
    id_ = Execution::current().register_object(this, kind);
    conflict_id_ = id_;
}

Execution::ArenaLease::ArenaLease(bool inside) : arena(Arena::of_thread()), nested(inside) {
    if (arena && !nested) arena->release(arena->begin());
    mark = arena ? arena->mark() : nullptr;
}

Execution::ArenaLease::~ArenaLease() {
    if (arena && nested) arena->release(mark);
}

Execution::Execution(StackPool& stacks, Strategy& strategy, Limits limits, TraceSink* sink)
    : stacks_(stacks), strategy_(strategy), limits_(limits), sink_(sink), previous_(current_) {
    current_ = this;
    // The race detector's log is the thread's, kept from one execution to the next: sized once.
    races_.reserve(limits.max_steps);
    // A replay that traces keeps no checkpoints: it runs once.
    if (sink_) limits_.checkpoints = nullptr;
    live_ = limits_.checkpoints != nullptr;
    // Most executions take a few steps per choice; a longer one grows the schedule.
    schedule_.reserve(std::min(limits.max_steps, 4 * limits.depth + 64));
    if (limits.wait_bounds) wait_bounds_ = *limits.wait_bounds;
}

Execution::~Execution() {
    for (auto& t : tasks_)
        if (t->stack_.top) stacks_.release(t->stack_);
    tasks_.clear();
    for (Holder* h : owned_) {
        h->~Holder();
        deallocate(h);
    }
    owned_.clear();
    current_ = previous_;
}

void* Execution::allocate(std::size_t size, std::size_t align) {
    if (arena_.arena) {
        if (void* p = arena_.arena->allocate(size, align)) return p;
        throw std::bad_alloc();
    }
    // aligned_alloc() wants a multiple of the alignment; free() takes it back whatever it was.
    void* p = std::aligned_alloc(align, (size + align - 1) / align * align);
    if (!p) throw std::bad_alloc();
    return p;
}

bool Execution::drops_tasks() const {
    if (limits_.unwind_tasks || !arena_.arena || !Arena::routes_new()) return false;
    // An exception thrown or caught on a task's fiber stays in the C++ runtime's per-thread
    // record until its handler ends, which only an unwinding reaches.
    if (std::uncaught_exceptions() != 0) return false;
    return *reinterpret_cast<void* const*>(abi::__cxa_get_globals()) == nullptr;
}

int Execution::register_object(Object* obj, ObjectKind kind) {
    objects_.push_back(obj);
    const int id = static_cast<int>(objects_.size() - 1);
    const CheckerMemory thread_wide(*this); // the race detector's tables are the thread's
    races_.add_object(id, kind);
    return id;
}

void Execution::spawn(std::unique_ptr<Task> task, std::function<void()> body) {
    // A step's task sets have one bit per task: a model with more cannot be checked at all,
    // which is bad input, not a search that checked less.
    if (tasks_.size() >= static_cast<std::size_t>(kMaxTasks)) {
        if (unwinding_) return;
        const std::string error = " spawns task '" + task->name() + "', the " +
                                  std::to_string(kMaxTasks + 1) + "th; lockcheck runs at most " +
                                  std::to_string(kMaxTasks) + " tasks in an execution";
        if (!running_) throw std::length_error("the set-up" + error); // nothing runs yet
        too_many_tasks_ = running_->name() + error;
        outcome_.end = End::full;
        ended_early_ = true;
        unwind_running();
        return;
    }
    task->id_ = static_cast<TaskId>(tasks_.size());
    chain_.add_task();
    {
        const CheckerMemory thread_wide(*this);
        races_.add_task(task->id_, running_ ? running_->id_ : kNoTask, step_);
    }
    task->body_ = std::move(body);
    tasks_.push_back(std::move(task));
}

namespace {
// A property the user did not switch off: it is kept all the same, so that the summary lists it
// as off rather than not at all.
Execution::Property property(const std::vector<std::string>* unchecked, std::string name,
                             std::function<bool()> holds) {
    const bool off =
        unchecked && std::find(unchecked->begin(), unchecked->end(), name) != unchecked->end();
    return {std::move(name), std::move(holds), 0, !off};
}
} // namespace

void Execution::add_invariant(std::string name, std::function<bool()> holds) {
    invariants_.push_back(property(limits_.unchecked, std::move(name), std::move(holds)));
    if (invariants_.back().checked) ++checked_invariants_;
}

void Execution::add_final_check(std::string name, std::function<bool()> holds) {
    final_checks_.push_back(property(limits_.unchecked, std::move(name), std::move(holds)));
}

void Execution::add_wait_bound(std::string op, std::uint32_t steps) {
    for (const WaitBound& b : wait_bounds_)
        if (b.op == op) {
            if (b.declared) throw std::logic_error("max_wait(\"" + op + "\") declared twice");
            return;
        }
    wait_bounds_.push_back(WaitBound{std::move(op), steps, true});
}

void Execution::check_wait_bound(const Task& task, const char* op, std::uint32_t waited) {
    for (const WaitBound& b : wait_bounds_) {
        if (b.op != op || waited <= b.steps) continue;
        const std::string bound = std::to_string(b.steps);
        fail_with_details(
            ViolationKind::wait_bound, b.op, b.op + " waited more than " + bound + " steps",
            {task.name() + "'s " + b.op + " waited " + std::to_string(waited) + " steps (" +
             (b.declared ? "max_wait(\"" + b.op + "\", " + bound + ") in the model"
                         : "--max-wait " + b.op + "=" + bound) +
             ")"});
        return;
    }
}

void Execution::prepare_thread(unsigned step_timeout) {
    faults::install();
    watchdog::arm(step_timeout, &Execution::interrupt_running_task, &Execution::report_stuck);
    RaceDetector::prepare_thread();
    Arena::of_thread();
}

Outcome Execution::run() {
    return go(nullptr);
}

Outcome Execution::go(Task* resumed) {
    {
        const CheckerMemory thread_wide(*this); // the crash handler's stack, the watchdog's
        faults::install();
        watchdog::arm(limits_.step_timeout, &Execution::interrupt_running_task,
                      &Execution::report_stuck);
    }
    Execution* const outer = g_running;
    g_running = this;
    // For report_stuck(), which runs on the watchdog's own thread.
    const void* const outer_watched = watchdog::running(this);
    if (sink_) sink_->on_start(*this); // only run(): an execution that traces keeps no checkpoints
    // Every escape out of a running task lands here (see escape()). Nothing below may keep
    // state in locals across it.
    if (sigsetjmp(escape_jump_, 0) == 0) {
        if (resumed) {
            wait_for_tasks(resumed);
        } else {
            start_new_tasks();
            // The tasks take it from here; the last one to run switches back when it is over.
            if (!failed() && !ended_early_)
                if (Task* first = advance()) wait_for_tasks(first);
        }
    } else {
        fiber_sanitizer::end_switch(nullptr);
        on_escape();
        if (fault_.kind == Fault::Kind::out_of_memory) {
            // Whatever the step had done is not a finding or an execution of the search:
            // torn down, it ends here as the allocation that failed would have.
            unwind_all();
            live_ = false;
            g_running = outer;
            watchdog::running(outer_watched);
            throw std::bad_alloc();
        }
    }
    // A finding still waiting for a future read when the execution ended (a livelock found
    // from the scheduler, a cut) went with it.
    if (deferred_) [[unlikely]] {
        drop_deferred();
        if (outcome_.end == End::finished) outcome_.end = End::unsettled;
    }
    {
        const CheckerMemory search(*this);
        strategy_.end(*this);
    }
    // The attempt that broke a property is the trace's last step (see fail_attempt()).
    const std::uint32_t steps = attempt_task_ ? step_ + 1 : step_;
    if (sink_ && attempt_task_)
        sink_->on_step(*this, steps, *attempt_task_, attempt_, std::nullopt,
                       TraceSink::Context{task_bit(attempt_task_->id()), false});
    if (sink_) sink_->on_end(*this);
    unwind_all();
    live_ = false; // what follows is the search's
    g_running = outer;
    watchdog::running(outer_watched);
    // Refused as the set-up's spawn is (spawn()): no search can check the model.
    if (!too_many_tasks_.empty()) throw std::length_error(too_many_tasks_);
    outcome_.steps = steps;
    outcome_.depth = chain_.deepest();
    // A copy, from malloc(): what model code added to a violation lies in the arena.
    return Outcome(outcome_);
}

void Execution::run_final_checks() {
    for (Property& c : final_checks_)
        if (c.checked && !holds(c))
            fail(ViolationKind::final_check, c.name, "final check failed: " + c.name);
}

[[gnu::always_inline]] inline void Execution::finish_step() {
    Task& t = *stepping_;
    const Object* const obj = step_obj_;
    stepping_ = nullptr;
    if (wrote_) {
        last_write_step_ = step_;
        if (obj) obj->last_written = step_;
    }
    // Under a memory model that defines data races itself, the end hook reports them.
    if (const RaceDetector::Race* race = races_.end_step()) [[unlikely]]
        if (limits_.races && !end_hook_) report_race(*race);
    if (t.retrying_since_ && wrote_) [[unlikely]] {
        settle_retry(t, step_);
        t.retrying_since_ = 0;
    }
    // A write no object stands for (a task's state): what it changed, no turn can compare.
    if (t.turn_start_ && wrote_) [[unlikely]] {
        t.turn_wrote_ = true;
        if (!obj) t.turn_disturbed_ = true;
    }
    if (memory_hook_) [[unlikely]] {
        if (!memory_modelled_ && obj && !unwinding_) memory_hook_(*this, t, memory_op_);
        memory_modelled_ = false;
    }
    if (sink_) sink_->on_step(*this, step_, t, traced_, value_, traced_context_);
    if (started_ != tasks_.size()) start_new_tasks();
}

namespace {
bool same_site(const std::source_location& a, const std::source_location& b) {
    return a.line() == b.line() && a.column() == b.column() &&
           std::strcmp(a.file_name(), b.file_name()) == 0;
}

// Whether two operations are the same call: operation, object, arguments and call site.
bool same_call(const Operation& a, const Operation& b) {
    return a.obj == b.obj && a.args.n == b.args.n && a.args.v[0] == b.args.v[0] &&
           a.args.v[1] == b.args.v[1] && std::strcmp(a.name, b.name) == 0 &&
           same_site(a.location, b.location);
}

// `shape` with the operation `op` folded in: its name, object and call site (the pointers of
// string literals, fixed for the run), so that two turns that made the same calls fold alike.
std::uint64_t shape_of(std::uint64_t shape, const Operation& op) {
    const auto mix = [](std::uint64_t h, std::uint64_t v) {
        return (h ^ v) * 0x100000001b3ULL + (h >> 29);
    };
    shape = mix(shape, reinterpret_cast<std::uintptr_t>(op.name));
    shape = mix(shape, reinterpret_cast<std::uintptr_t>(op.obj));
    shape = mix(shape, reinterpret_cast<std::uintptr_t>(op.location.file_name()));
    return mix(shape, std::uint64_t{op.location.line()} << 32 | op.location.column());
}
// Whether `task` is about to repeat one of the `count` operations `watched`.
bool repeats(const Task& task, const Operation* watched, int count) {
    for (int i = 0; i < count; ++i)
        if (same_call(watched[i], task.pending())) return true;
    return false;
}
// Whether one of them is a spin loop's turn: its loop is judged as a spinner's (idle turns).
bool spins(const Operation* watched, int count) {
    return std::any_of(watched, watched + count, [](const Operation& op) { return op.fallback; });
}
} // namespace

TaskSet Execution::within_depth(TaskSet enabled) const {
    TaskSet within = 0;
    for (TaskSet rest = enabled; rest; rest &= rest - 1) {
        const TaskId id = lowest(rest);
        if (chain_.of(id, tasks_[id]->pending_) <= limits_.depth) within |= task_bit(id);
    }
    return within;
}

Task* Execution::advance() {
    running_ = nullptr;
    if (stepping_) {
        finish_step();
        if (failed() || ended_early_) return nullptr;
        if (checked_invariants_) {
            check_invariants();
            if (failed()) return nullptr;
        }
    }
    TaskSet enabled = 0;
    TaskSet spinning = 0;
    bool unfinished = false; // a task that keeps the execution going (not idle) has not finished
    TaskSet idle = 0;
    TaskSet idle_spinners = 0;
    for (auto& tp : tasks_) {
        Task& t = *tp;
        if (t.finished_) continue;
        unfinished |= !t.idle_;
        const Operation& op = t.pending_;
        if (!t.interrupted_by_ && (!op.enabled || op.enabled(op.obj, t))) {
            enabled |= task_bit(t.id_);
            if (t.idle_) [[unlikely]]
                idle |= task_bit(t.id_);
            // A spinner whose turn changed nothing may run only because loops are judged as
            // cycles: while another task takes the step it waits, as it would if watched.
            if (op.fallback && limits_.loops_as_cycles && !turn_changed(t)) [[unlikely]] {
                idle_spinners |= task_bit(t.id_);
                if (!t.retrying_since_) ++t.waited_;
            }
        } else {
            t.blocked_ = true;
            // The next step is another task's: this one waits (a retrying task's wait is
            // counted when it settles).
            if (!t.retrying_since_) ++t.waited_;
            if (op.fallback) spinning |= task_bit(t.id_);
        }
    }
    if (!unfinished) [[unlikely]] {
        if (end_hook_) end_hook_(*this);
        if (ended_early_) return nullptr;
        run_final_checks();
        return nullptr;
    }
    // An idle task goes on at a step of the others (an interrupt arrives while they run), not
    // in their stead: when none of them can, it is as if it never came.
    if (enabled == idle) [[unlikely]]
        enabled = 0;
    // Whether nothing was written for --spin-bound steps: then the picked task's operation is
    // remembered, to tell a loop that changes nothing (see watch_repeats()).
    bool watched = false;
    if (!enabled) [[unlikely]] {
        if (!spinning) {
            // No task can go on: the execution is whole, and a race the end hook finds in it
            // comes before the hang, as the race detector's would under sc.
            if (end_hook_) end_hook_(*this);
            if (!failed() && !ended_early_) report_blocked();
            return nullptr;
        }
        const TaskId spinner = next_spinner(spinning);
        if (spinner == kNoTask) return nullptr; // they hang: reported
        enabled = task_bit(spinner);
        // Its turn is its own step, not a wait.
        if (!tasks_[spinner]->retrying_since_) --tasks_[spinner]->waited_;
        watched = step_ - last_write_step_ >= limits_.spin_bound;
    } else if (step_ - last_write_step_ >= limits_.spin_bound && !limits_.loops_as_cycles)
        [[unlikely]] {
        enabled = watch_repeats(enabled);
        if (!enabled) return nullptr; // a livelock: reported
        watched = true;
    }
    // A step deeper than the depth bound is not taken, and no step past the steps' backstop.
    if (chain_.deepest() >= limits_.depth) [[unlikely]]
        enabled = within_depth(enabled);
    if (!enabled || step_ >= limits_.max_steps) [[unlikely]] {
        outcome_.end = End::cut;
        outcome_.cut_by_steps = enabled != 0;
        return nullptr;
    }
    if (limits_.checkpoints && main_waiting_ && (enabled & (enabled - 1))) [[unlikely]]
        offer_checkpoint();
    TaskId id;
    {
        const CheckerMemory search(*this); // the strategy keeps its picks
        id = strategy_.pick(step_ + 1, enabled, *this);
    }
    if (id == kNoTask) [[unlikely]] {
        outcome_.end = End::stopped;
        return nullptr;
    }
    // `enabled` has bits for existing tasks only: a task id inside the bits is in range.
    if (id >= kMaxTasks || !contains(enabled, id)) [[unlikely]] {
        outcome_.end = End::diverged;
        outcome_.diverged_task = id;
        return nullptr;
    }
    Task& t = *tasks_[id];
    // Its turn is its own step, not a wait.
    if (contains(idle_spinners, id) && !t.retrying_since_) [[unlikely]]
        --t.waited_;
    chain_.take(id, t.pending_);
    if (watched || t.progress_) [[unlikely]]
        t.progress_ = watched && limits_.memory_model != MemoryModel::sc &&
                      t.repeats_since_ == last_write_step_ &&
                      repeats(t, t.watched_ops_, t.watched_count_);
    if (watched) [[unlikely]]
        watch_step(t);
    ++step_;
    if (t.turn_start_) [[unlikely]] {
        if (t.pending_.obj) turn_step(t, *t.pending_.obj);
        if (limits_.memory_model != MemoryModel::sc)
            t.turn_shape_ = shape_of(t.turn_shape_, t.pending_);
    }
    schedule_.push_back(id);
    t.last_step_ = step_;
    t.woken_ = false;
    ++t.own_steps_;
    races_.begin_step(t.id_, step_, t.pending_);
    // The task declares its next operation while it runs: keep what finishing the step needs.
    stepping_ = &t;
    step_obj_ = t.pending_.obj;
    if (memory_hook_) [[unlikely]]
        memory_op_ = t.pending_;
    if (sink_) {
        traced_ = t.pending_;
        traced_context_ = TraceSink::Context{enabled, t.blocked_};
    }
    value_.reset();
    wrote_ = !t.pending_.read_only;
    step_global_ = false;
    step_section_ = t.pending_.read_side;
    running_ = &t;
    watchdog::enter_task();
    return &t;
}

// A property that throws is a broken model, reported like any other exception. Traced, what
// the property reads is kept until one holds, so that the first one broken keeps its reads.
bool Execution::holds(Property& property) {
    ++property.evaluations;
    const bool traced = sink_ && !failed();
    if (traced) {
        property_reads_.clear();
        peeks_ = &property_reads_;
    }
    bool held = true;
    try {
        held = property.holds();
    } catch (const std::exception& e) {
        record(ViolationKind::exception, "exception",
               "property '" + property.name + "' threw " + demangle(typeid(e).name()) + ": " +
                   e.what());
    } catch (...) {
        record(ViolationKind::exception, "exception", "property '" + property.name + "' threw");
    }
    peeks_ = nullptr;
    if (traced && held && !failed()) property_reads_.clear();
    return held;
}

void Execution::check_invariants() {
    for (Property& c : invariants_) {
        if (c.checked && !holds(c)) {
            fail(ViolationKind::invariant, c.name, "invariant violated: " + c.name);
            return;
        }
    }
}

void Execution::start_new_tasks() {
    while (started_ < tasks_.size() && !failed() && !ended_early_)
        start(*tasks_[started_++]);
}

// The new task runs on its fiber up to its first scheduling point (or its end), then comes
// back here: starting a task is not a step.
void Execution::start(Task& task) {
    task.stack_ = stacks_.acquire();
    task.context_ = fc::make_fcontext(task.stack_.top, task.stack_.size, &Execution::fiber_entry);
    task.starting_ = true;
    task.starter_ = fiber_;
    task.started_after_ = step_;
    running_ = &task;
    watchdog::enter_task();
    switch_to(context_of(fiber_), &task);
    watchdog::leave_task();
    running_ = nullptr;
}

void Execution::started(Task& task) {
    task.starting_ = false;
    switch_to(&task.context_, task.starter_);
}

void Execution::outside_task(const char* op) {
    throw std::logic_error((op ? std::string(op) + "()" : std::string("a kernel primitive")) +
                           " needs a running task: call it from a task, not while the model "
                           "sets up (give objects their first state in their constructors)");
}

void Execution::unwound() {
    current().unwind_running();
}

void Execution::fiber_entry(fc::transfer_t transfer) {
    Execution* ex = current_;
    *static_cast<void**>(transfer.data) = transfer.fctx;
    Task& task = *ex->fiber_;
    // The first task starts from the main context: where ASan learns that context's stack.
    fiber_sanitizer::end_switch(nullptr, task.starter_ ? nullptr : &ex->main_stack_);
    ex->run_body(task);
    task.finished_ = true;
    ex->exit_fiber(task);
}

void Execution::exit_fiber(Task& task) {
    Task* next = nullptr;
    if (task.starting_) {
        next = task.starter_;
    } else if (!unwinding_) {
        watchdog::leave_task();
        next = advance();
    }
    // Torn down, or the execution is over: back to the main context, which tears down.
    switch_to(&dead_context_, next);
    __builtin_unreachable(); // a finished fiber is never resumed
}

void Execution::run_body(Task& task) {
    // The body and the checks when it returns, which may end the execution too.
    auto body = [](void* arg) {
        Task& t = *static_cast<Task*>(arg);
        t.body_();
        if (!current().unwinding_) t.on_exit();
    };
    try {
        task.unwind_.run(body, &task);
    } catch (const std::exception& e) {
        record(ViolationKind::exception, "exception",
               task.name() + " threw " + demangle(typeid(e).name()) + ": " + e.what());
    } catch (...) {
        record(ViolationKind::exception, "exception", task.name() + " threw an unknown exception");
    }
}

void Execution::attempt_failed() {
    wrote_ = false;
    Task& t = current_task();
    if (t.retrying_since_) return;
    t.retrying_since_ = step_;
    t.own_steps_then_ = t.own_steps_;
}

void Execution::settle_retry(Task& t, std::uint32_t step) {
    t.waited_ += (step - t.retrying_since_) - (t.own_steps_ - t.own_steps_then_);
    t.retrying_since_ = step;
    t.own_steps_then_ = t.own_steps_;
}

void Execution::begin_op(const char* name) {
    Task& t = current_task();
    if (t.retrying_since_) settle_retry(t, step_);
    if (t.open_count_ < Task::kOpenOps)
        t.open_ops_[t.open_count_] = OpenOp{name, t.waited_};
    else if (t.open_count_ == Task::kOpenOps)
        table_full("named operations open in one task (lockcheck::op)", Task::kOpenOps, false);
    if (t.open_count_ < UINT8_MAX) ++t.open_count_;
    if (sink_) {
        const CheckerMemory trace(*this);
        sink_->on_op(*this, t, name, true);
    }
}

void Execution::end_op(const char* name) {
    // A task torn down leaves its operations without ending them.
    if (!running_ || unwinding_ || running_->unwind_.unwinding()) return;
    Task& t = *running_;
    if (t.open_count_ == 0 ||
        (t.open_count_ <= Task::kOpenOps && t.open_ops_[t.open_count_ - 1].name != name &&
         std::strcmp(t.open_ops_[t.open_count_ - 1].name, name) != 0))
        throw std::logic_error(std::string("op_end(\"") + name + "\") in " + t.name() + ": " +
                               (t.open_count_ ? std::string("the open operation is \"") +
                                                    t.open_ops_[t.open_count_ - 1].name + "\""
                                              : std::string("no operation is open")));
    if (t.retrying_since_) settle_retry(t, step_);
    if (sink_) {
        const CheckerMemory trace(*this);
        sink_->on_op(*this, t, name, false);
    }
    if (t.open_count_-- > Task::kOpenOps) return; // never recorded: the table was full
    const OpenOp& open = t.open_ops_[t.open_count_];
    const auto waited = static_cast<std::uint32_t>(t.waited_ - open.waited_before);
    const auto end = op_waits_.begin() + static_cast<std::ptrdiff_t>(op_wait_count_);
    auto w = std::find_if(op_waits_.begin(), end, [name](const OpWait& w) {
        return w.name == name || std::strcmp(w.name, name) == 0;
    });
    if (w != end)
        w->record(waited);
    else if (op_wait_count_ < kOpWaits) {
        op_waits_[op_wait_count_] = OpWait{name};
        op_waits_[op_wait_count_++].record(waited);
    } else
        table_full("named operations of one execution (lockcheck::op)", kOpWaits, false);
    // Recorded first: the summary's figures count the instance that broke its bound too.
    if (!wait_bounds_.empty()) [[unlikely]]
        check_wait_bound(t, name, waited);
}

namespace {
// What a later step can observe of the object (Object::fingerprint), as the state keeps it.
Fingerprint value_of(const Object& obj, bool lists_as_sets) {
    StateHasher h(lists_as_sets);
    obj.fingerprint(h);
    return h.result();
}
} // namespace

void Execution::turn_step(Task& t, const Object& obj) {
    for (int i = 0; i < t.turn_count_; ++i) {
        Task::TurnObject& o = t.turn_objects_[i];
        if (o.obj != &obj) continue;
        // Written since the task's last step on it: by another task, in the middle of the turn.
        if (obj.last_written > o.touched) t.turn_disturbed_ = true;
        o.touched = step_;
        return;
    }
    if (t.turn_count_ == Task::kTurnObjects) {
        t.turn_overflow_ = true;
        return;
    }
    // Under a weak memory model its first read may see an older write than one made since
    // the turn began: that write is a change for the turn, as any other task's write is there.
    if (limits_.memory_model != MemoryModel::sc && obj.last_written > t.turn_start_)
        t.turn_disturbed_ = true;
    t.turn_objects_[t.turn_count_++] =
        Task::TurnObject{&obj, value_of(obj, limits_.lists_as_sets), step_};
}

void Execution::begin_spin_turn(std::source_location loc, const void* loop) {
    Task& t = *running_;
    const bool tracked = t.turn_start_ && !t.turn_overflow_;
    if (limits_.memory_model != MemoryModel::sc) {
        const bool round = tracked && (loop ? loop == t.turn_loop_
                                            : !t.turn_loop_ && t.turn_shape_ == t.last_shape_ &&
                                                  same_site(loc, t.turn_site_));
        if (round && t.turn_stale_ && !t.turn_wrote_ && limits_.drop_stale_turns) [[unlikely]] {
            outcome_.end = End::redundant;
            ended_early_ = true;
            unwind_running();
            return;
        }
        t.last_shape_ = t.turn_shape_;
        t.turn_shape_ = 0;
        t.turn_site_ = loc;
    }
    t.turn_loop_ = loop;
    const bool idle = tracked ? !turn_changed(t) : last_write_step_ <= t.turn_start_;
    t.idle_turns_ = idle ? t.idle_turns_ + 1 : 0;
    t.fresh_count_ = 0;
    if (idle && tracked && limits_.memory_model != MemoryModel::sc) {
        for (int i = 0; i < t.turn_count_; ++i)
            t.fresh_objects_[i] = t.turn_objects_[i].obj;
        t.fresh_count_ = t.turn_count_;
    }
    t.turn_start_ = step_;
    t.turn_same_at_ = step_;
    t.turn_count_ = 0;
    t.turn_overflow_ = false;
    t.turn_disturbed_ = false;
    t.turn_wrote_ = false;
    t.turn_stale_ = false;
}

bool Execution::turn_changed(const Task& task) const {
    // Before its first turn ends the task's touched objects are not tracked, nor past as many
    // as a turn keeps: any write counts.
    if (task.turn_overflow_ || task.turn_start_ == 0) return last_write_step_ > task.turn_start_;
    if (task.turn_disturbed_) return true;
    // A turn that left what it touched as it found it (a lock taken and released, a failed
    // cmpxchg, a counter raised and lowered) changed nothing another task can see, and the
    // next turn would read the same: it waits until one of those objects holds another value.
    // Under a weak memory model a write that leaves the value (one coherence places before
    // the latest) may still be read: any write by another task counts there.
    const bool any_write = limits_.memory_model != MemoryModel::sc;
    for (int i = 0; i < task.turn_count_; ++i) {
        const Task::TurnObject& o = task.turn_objects_[i];
        if (o.obj->last_written <= task.turn_same_at_) continue;
        if ((any_write && o.obj->last_written > o.touched) ||
            value_of(*o.obj, limits_.lists_as_sets) != o.before)
            return true;
    }
    task.turn_same_at_ = step_;
    return false;
}

bool Execution::read_progresses(const Object& obj) {
    Task& t = *running_;
    if (t.progress_) return true;
    for (int i = 0; i < t.fresh_count_; ++i)
        if (t.fresh_objects_[i] == &obj) {
            t.fresh_objects_[i] = t.fresh_objects_[--t.fresh_count_];
            return true;
        }
    return false;
}

TaskId Execution::next_spinner(TaskSet spinning) {
    outcome_.spin_bound_used = true;
    // Nothing a spinner reads changes until one of them leaves its loop, which only a bound
    // of its loop's own can make it do: each in turn spins to --spin-bound idle turns, the
    // lowest first (their order changes nothing shared), so that each reaches its bound. One
    // after the other, not alternating: a spin turn depends on every step, and alternating
    // spinners would take the depth bound's chain from task to task at every turn.
    TaskId next = lowest(spinning);
    for (TaskSet rest = spinning; rest; rest &= rest - 1)
        if (tasks_[lowest(rest)]->idle_turns_ < limits_.spin_bound) {
            next = lowest(rest);
            break;
        }
    if (tasks_[next]->idle_turns_ < limits_.spin_bound) return next;
    // Each loop by its task, with what it waits on: the objects its last turn read, which
    // nothing will change; a line each with its cpu_relax() and their states.
    std::string who;
    std::vector<std::string> details;
    for (const auto& tp : tasks_) {
        const Task& t = *tp;
        if (t.finished_ || t.idle_) continue;
        who += (who.empty() ? "" : ", ") + t.name() + " in " + blocked_on(t);
        std::string line = t.name() +
                           (contains(spinning, t.id_) ? ": spins in " : ": blocked in ") +
                           blocked_on(t) + made_at(t.pending_.location);
        if (contains(spinning, t.id_) && t.turn_count_) {
            who += " waiting on ";
            line += ", waiting on ";
            for (int i = 0; i < t.turn_count_; ++i) {
                const Object& obj = *t.turn_objects_[i].obj;
                std::string state;
                obj.describe(state);
                who += (i ? ", " : "") + obj.name();
                line += (i ? ", " : "") + obj.name() + (state.empty() ? "" : " (" + state + ")");
            }
            if (t.turn_overflow_) {
                who += ", ...";
                line += ", ...";
            }
        }
        details.push_back(std::move(line));
    }
    fail_with_details(ViolationKind::hang, "hang",
                      "hang: nothing changes while tasks spin: " + who + " (each spun " +
                          std::to_string(limits_.spin_bound) +
                          " turns with nothing changed: --spin-bound " +
                          std::to_string(limits_.spin_bound) + ")",
                      std::move(details), tasks_[next]->pending_.location);
    return kNoTask;
}

TaskSet Execution::watch_repeats(TaskSet enabled) {
    outcome_.spin_bound_used = true;
    TaskSet repeaters = 0;
    for (TaskSet rest = enabled; rest; rest &= rest - 1) {
        const Task& t = *tasks_[lowest(rest)];
        if (t.repeats_since_ == last_write_step_ && repeats(t, t.watched_ops_, t.watched_count_) &&
            !spins(t.watched_ops_, t.watched_count_))
            repeaters |= task_bit(t.id_);
    }
    // A task going round a loop that changes nothing waits while another task can run, as a
    // spinner in cpu_relax() does.
    if (repeaters != enabled) return enabled & ~repeaters;
    TaskId next = lowest(repeaters);
    for (TaskSet rest = repeaters & (repeaters - 1); rest; rest &= rest - 1)
        if (tasks_[lowest(rest)]->repeats_ < tasks_[next]->repeats_) next = lowest(rest);
    if (tasks_[next]->repeats_ < limits_.spin_bound) return task_bit(next);
    report_livelock(repeaters);
    return 0;
}

void Execution::watch_step(Task& task) {
    if (task.repeats_since_ != last_write_step_) {
        task.repeats_since_ = last_write_step_;
        task.watched_count_ = 0;
        task.repeats_ = 0;
    }
    if (repeats(task, task.watched_ops_, task.watched_count_)) {
        ++task.repeats_;
        return;
    }
    if (task.watched_count_ == Task::kWatchedOps) {
        // The oldest goes: a loop of more operations than that is not recognized.
        std::copy(task.watched_ops_ + 1, task.watched_ops_ + Task::kWatchedOps, task.watched_ops_);
        --task.watched_count_;
    }
    task.watched_ops_[task.watched_count_++] = task.pending_;
}

void Execution::report_livelock(TaskSet repeaters) {
    std::string who;
    std::vector<std::string> details;
    for (const auto& tp : tasks_) {
        const Task& t = *tp;
        if (t.finished_) continue;
        const bool repeating = contains(repeaters, t.id_);
        if (repeating) who += (who.empty() ? "" : ", ") + t.name() + " repeats " + blocked_on(t);
        details.push_back(t.name() + (repeating ? ": repeats " : ": cannot run, in ") +
                          blocked_on(t) + made_at(t.pending_.location) +
                          (repeating ? ", " + std::to_string(t.repeats_) + " repeats" : ""));
    }
    details.push_back("nothing was written after step " + std::to_string(last_write_step_));
    fail_with_details(ViolationKind::livelock, "livelock",
                      "livelock: nothing changes while " + who + " (each repeated " +
                          std::to_string(limits_.spin_bound) +
                          " times with nothing changed: --spin-bound " +
                          std::to_string(limits_.spin_bound) + ")",
                      std::move(details));
}

void Execution::table_full(const char* table, std::uint32_t capacity, bool ends) {
    if (unwinding_) return;
    if (!outcome_.table_full.table) outcome_.table_full = TableFull{table, capacity};
    if (!ends || failed()) return;
    outcome_.end = End::full;
    ended_early_ = true;
    if (running_) unwind_running();
}

void Execution::end_unsettled() {
    if (unwinding_ || failed() || ended_early_) return;
    if (deferred_) drop_deferred();
    outcome_.end = End::unsettled;
    ended_early_ = true;
    if (running_) unwind_running();
}

void Execution::drop_deferred() {
    // The finding that waited for a future read rested on a write that did not come.
    deferred_ = false;
    outcome_.violation.reset();
    outcome_.later.clear();
    outcome_.unsettled_finding = true;
}

void Execution::confirm_deferred() {
    deferred_ = false;
    outcome_.end = End::violation;
    outcome_.violation_reached = schedule_.size();
    if (running_) unwind_running();
}

Violation* Execution::record(ViolationKind kind, std::string property, std::string message,
                             std::source_location loc) {
    // Tearing down a cut or failed execution is not a new finding.
    if (unwinding_ || failed() || outcome_.end == End::unsettled) return nullptr;
    // Met while a future read is open: the first such finding waits for it to settle
    // (future_reads_open()); the execution goes on, and the task that broke a property the
    // kernel does not survive ends.
    if (future_reads_ != 0 && (deferred_ || outcome_.violation)) [[unlikely]]
        return nullptr;
    Violation v{kind, std::move(property), std::move(message), step_, {}, call_site(loc), {}};
    if (future_reads_ != 0) [[unlikely]] {
        deferred_ = true;
        outcome_.violation = std::move(v);
        return &*outcome_.violation;
    }
    const std::size_t reached = schedule_.size();
    if (!survivable(kind) || (reached >= limits_.keep_going_until &&
                              (!limits_.reproduces || limits_.reproduces->key() == v.key())))
        outcome_.end = End::violation;
    if (!outcome_.violation) {
        outcome_.violation = std::move(v);
        outcome_.violation_reached = reached;
        return &*outcome_.violation;
    }
    return &outcome_.later.emplace_back(Outcome::Later{std::move(v), reached}).violation;
}

void Execution::count_check(const char* message, bool after_release) {
    if (unwinding_) return; // a task torn down is no evaluation
    auto site = std::find_if(check_sites_.begin(), check_sites_.end(),
                             [message](const CheckSite& s) { return s.message == message; });
    if (site == check_sites_.end()) {
        site = check_sites_.emplace(site);
        site->message = message;
    }
    ++site->evaluations;
    if (!after_release) return;
    const Operation& op = running_->pending_;
    if (site->after_release++ == 0) {
        site->release_op = op.name;
        site->release_obj = op.obj;
    } else if (op.obj != site->release_obj || std::strcmp(op.name, site->release_op) != 0) {
        site->one_release = false;
    }
}

std::uint32_t Execution::choose(std::uint32_t n, bool kept_in_state) {
    if (n <= 1 || unwinding_) return 0;
    if (limits_.checkpoints && main_waiting_) [[unlikely]]
        offer_checkpoint();
    std::uint32_t value = 0;
    {
        const CheckerMemory search(*this); // the strategy keeps its choices
        value = strategy_.choose(step_, n);
    }
    if (value >= n) {
        // A replay that ran out, or does not fit: the execution ends here.
        outcome_.end = value == kNoTask ? End::stopped : End::diverged;
        outcome_.diverged_choice = n;
        ended_early_ = true;
        if (running_) unwind_running();
        return 0;
    }
    schedule_.push_back(static_cast<TaskId>(value));
    if (!kept_in_state) observe(value);
    return value;
}

void Execution::fold_history(std::uint64_t value) {
    // Observations made outside a task (set-up) belong to no history: set-up is the same in
    // every execution.
    if (!running_) return;
    // With the step it came in: the steps that observed nothing count too (see fingerprint()).
    StateHasher h(running_->history_);
    h.add(running_->history_steps());
    h.add(value);
    running_->history_ = h.result();
}

void Execution::count_forgetting(Task& task, bool first) {
    task.forgetting_scopes_ += first ? 1 : -1;
    if (task.forgetting_scopes_)
        forgetting_ |= task_bit(task.id_);
    else
        forgetting_ &= ~task_bit(task.id_);
}

void Execution::restart_history(const HistoryMark& mark, std::uint64_t point) {
    if (running_->unwind_.unwinding()) return; // left by a task torn down: nothing runs after
    StateHasher h(mark.history);
    h.add(mark.steps);
    h.add(point);
    running_->history_ = h.result();
    running_->history_base_ = running_->own_steps_;
}

namespace {
void add_operation(const Operation& op, StateHasher& h) {
    h.add(reinterpret_cast<std::uintptr_t>(op.name));
    h.add(op.obj ? static_cast<std::uint64_t>(op.obj->id()) : ~0ULL);
    h.add(reinterpret_cast<std::uintptr_t>(op.location.file_name()));
    h.add(op.location.line());
    h.add(op.location.column());
    h.add(op.args.n);
    h.add(static_cast<std::uint64_t>(op.args.v[0]));
    h.add(static_cast<std::uint64_t>(op.args.v[1]));
}
} // namespace

// What the spin-loop and retry-loop watches (turn_changed(), watch_repeats()) will decide from
// here, in steps relative to now: the absolute step numbers differ between executions that
// reach one state. Only what a decision to come reads, so that states they cannot tell apart
// are one: a turn's objects in the order of their ids (each is looked up by itself, in
// whatever order it was first touched); none of them past the objects a turn keeps, where the
// turn asks only whether anything was written since it began, nor once the turn has changed
// for good (that, or another task's write disturbed it: no later step makes it idle again).
// Tree-lock with two readers: 3.6 million states, where hashing it all kept 15.3 million.
void Execution::fingerprint_watch(const Task& t, StateHasher& h) const {
    h.add(std::min(t.idle_turns_, limits_.spin_bound));
    h.add(t.turn_start_ != 0);
    std::array<std::uint64_t, Task::kTurnObjects> ids;
    for (int i = 0; i < t.fresh_count_; ++i)
        ids[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(t.fresh_objects_[i]->id());
    std::sort(ids.begin(), ids.begin() + t.fresh_count_);
    h.add(t.fresh_count_);
    for (int i = 0; i < t.fresh_count_; ++i)
        h.add(ids[static_cast<std::size_t>(i)]);
    if (t.turn_start_) {
        // Changed for good: whatever the task does next, its next turn is not idle.
        const bool changed =
            t.turn_overflow_ ? last_write_step_ > t.turn_start_ : t.turn_disturbed_;
        h.add(changed);
        h.add(t.turn_overflow_); // under lkmm, whether a turn may be a round of the one before
        if (!changed && !t.turn_overflow_) {
            std::array<const Task::TurnObject*, Task::kTurnObjects> objects;
            for (int i = 0; i < t.turn_count_; ++i)
                objects[static_cast<std::size_t>(i)] = &t.turn_objects_[i];
            std::sort(objects.begin(), objects.begin() + t.turn_count_,
                      [](const auto* a, const auto* b) { return a->obj->id() < b->obj->id(); });
            h.add(t.turn_count_);
            for (int i = 0; i < t.turn_count_; ++i) {
                const Task::TurnObject& o = *objects[static_cast<std::size_t>(i)];
                h.add(static_cast<std::uint64_t>(o.obj->id()));
                h.add(o.before);
                h.add(o.obj->last_written > o.touched);
            }
        }
    }
    const bool watched = t.repeats_since_ == last_write_step_;
    h.add(watched);
    if (watched) {
        h.add(std::min(t.repeats_, limits_.spin_bound));
        h.add(t.watched_count_);
        for (int i = 0; i < t.watched_count_; ++i)
            add_operation(t.watched_ops_[i], h);
    }
}

Fingerprint Execution::fingerprint() const {
    StateHasher h(limits_.lists_as_sets);
    h.add(objects_.size());
    for (const Object* o : objects_) {
        h.add(o->freed_with_ ? static_cast<std::uint64_t>(o->freed_with_->id()) : ~0ULL);
        o->fingerprint(h);
    }
    for (const auto& add : outside_state_)
        add(h);
    h.add(tasks_.size());
    for (const auto& tp : tasks_) {
        const Task& t = *tp;
        h.add(t.finished_);
        // A finished task's history can no longer matter: only what it left in objects does.
        if (t.finished_) continue;
        // Whether it keeps the execution going, was given something to do since its last step,
        // and which handler it waits for: each changes what can come next.
        h.add(static_cast<std::uint64_t>(t.idle_) | static_cast<std::uint64_t>(t.woken_) << 1);
        h.add(t.interrupted_by_ ? t.interrupted_by_->id_ : kNoTask);
        // The task's code is deterministic: its local variables follow from the steps it took
        // (a loop's counter) and what those steps returned to it, since the last point where
        // its code declared it kept nothing (forget_since()).
        h.add(t.history_steps());
        h.add(t.history_);
        add_operation(t.pending_, h);
        t.fingerprint(h);
        if (!limits_.loops_as_cycles) fingerprint_watch(t, h);
    }
    if (!limits_.loops_as_cycles) h.add(std::min(step_ - last_write_step_, limits_.spin_bound));
    return h.result();
}

void Execution::note_order_read(const char* op, const Object& entry) {
    order_read_ = std::string(op) + "(" + entry.name() + ") at step " + std::to_string(step_);
}

void Execution::fail(ViolationKind kind, std::string property, std::string message,
                     std::source_location loc) {
    fail_with_details(kind, std::move(property), std::move(message), {}, loc);
}

void Execution::fail_with_details(ViolationKind kind, std::string property, std::string message,
                                  std::vector<std::string> details, std::source_location loc,
                                  std::vector<std::uint32_t> cited) {
    if (unwinding_) return;
    if (Violation* v = record(kind, std::move(property), std::move(message), loc)) {
        v->details = std::move(details);
        v->cited = std::move(cited);
    }
    if (running_ && (failed() || (deferred_ && !survivable(kind)))) unwind_running();
}

void Execution::fail_attempt(const Operation& attempt, ViolationKind kind, std::string property,
                             std::string message, std::vector<std::string> details,
                             std::vector<std::uint32_t> cited) {
    if (unwinding_) return;
    if (Violation* v = record(kind, std::move(property), std::move(message), attempt.location)) {
        v->details = std::move(details);
        v->cited = std::move(cited);
        // The attempt is the violation's step, the one after the execution's last. Only an
        // attempt that ends the execution is appended as that step here; one the run goes on
        // past (--keep-going) is declared and scheduled as usual, and its replay, which ends
        // there, shows it.
        if (running_) v->step = step_ + 1;
        if (running_ && failed()) {
            attempt_ = attempt;
            attempt_task_ = running_;
        }
    }
    if (running_ && (failed() || (deferred_ && !survivable(kind)))) unwind_running();
}

void Execution::report_blocked() {
    // Each blocked task waits for at most one holder: follow the chain to find a cycle.
    std::vector<std::string> details;
    std::string cycle;
    for (auto& tp : tasks_) {
        const Task& t = *tp;
        if (t.finished_ || t.idle_) continue;
        std::string line =
            t.interrupted_by_
                ? t.name() + ": interrupted by " + t.interrupted_by_->name() + " in " +
                      blocked_on(t) + made_at(t.pending_.location)
                : t.name() + ": blocked in " + blocked_on(t) + made_at(t.pending_.location);
        if (const Object* obj = t.pending_.obj) {
            std::string state;
            obj->describe(state);
            if (!state.empty()) line += ", " + state;
        }
        details.push_back(std::move(line));
        if (!cycle.empty()) continue;
        std::vector<const Task*> chain{&t};
        for (;;) {
            // An interrupted task waits for its handler to return, else for what it asked.
            const Object* obj = chain.back()->pending_.obj;
            const Task* next = chain.back()->interrupted_by_ ? chain.back()->interrupted_by_
                               : obj                         ? obj->holder_for(*chain.back())
                                                             : nullptr;
            if (!next || next->finished_ || next == chain.back()) break;
            if (next == &t) {
                for (const Task* c : chain)
                    cycle += c->name() + " -> ";
                cycle += t.name();
                break;
            }
            if (std::find(chain.begin(), chain.end(), next) != chain.end()) break;
            chain.push_back(next);
        }
    }
    if (!cycle.empty()) {
        fail_with_details(ViolationKind::deadlock, "deadlock", "deadlock: wait-for cycle " + cycle,
                          std::move(details));
        return;
    }
    std::string who;
    for (auto& tp : tasks_) {
        if (tp->finished_ || tp->idle_) continue;
        if (!who.empty()) who += ", ";
        who += tp->name() + " in " + blocked_on(*tp);
    }
    fail_with_details(ViolationKind::hang, "hang",
                      "hang: no task can run and nothing can wake " + who, std::move(details));
}

void Execution::report_data_race(const RaceDetector::Race& race,
                                 std::vector<std::uint32_t> between) {
    bool reported = false;
    outcome_.each_violation([&reported](const Violation& v, std::size_t) {
        reported = reported || v.kind == ViolationKind::data_race;
    });
    if (reported) return;
    if (Violation* v = report_race(race)) {
        v->step = race.later.step;
        std::string line = "a data race by the memory model's definition";
        if (!between.empty()) {
            // Ascending; runs of consecutive steps as ranges ("13-33").
            line += between.size() == 1 ? ": step " : ": steps ";
            for (std::size_t i = 0; i < between.size();) {
                std::size_t j = i;
                while (j + 1 < between.size() && between[j + 1] == between[j] + 1)
                    ++j;
                line += (i ? ", " : "") + std::to_string(between[i]);
                if (j > i) line += "-" + std::to_string(between[j]);
                i = j + 1;
            }
            line += " between them do not order the two";
        }
        v->details.insert(v->details.begin(), std::move(line));
        v->cited.insert(v->cited.end(), between.begin(), between.end());
    }
}

Violation* Execution::report_race(const RaceDetector::Race& race) {
    auto text = [this](const RaceDetector::Access& a) {
        const char* kind = a.write ? "write" : "read";
        std::string out = kind;
        if (std::string_view(a.op) != kind) out += std::string(" (") + a.op + ")";
        return out + " by " + tasks_[a.task]->name() + " at step " + std::to_string(a.step);
    };
    if (unwinding_ || failed()) return nullptr;
    const std::string& var = objects_[static_cast<std::size_t>(race.variable)]->name();
    Violation* v = record(ViolationKind::data_race, "data race on " + var,
                          "data race on " + var + ": " + text(race.earlier) + " and " +
                              text(race.later) + " are not ordered");
    if (v) v->cited = {race.earlier.step};
    // Where each access was made, a line each (as KCSAN gives each access its stack).
    for (const RaceDetector::Access* a : {&race.earlier, &race.later})
        if (const CallSite site = call_site(a->location); site.known())
            v->details.push_back(text(*a) + ": " + site.text());
    return v;
}

void Execution::free_memory(const Object& allocation, const void* begin, std::size_t size) {
    // Objects register as they are constructed, so those inside the allocation came after it.
    const auto first = reinterpret_cast<std::uintptr_t>(begin);
    for (std::size_t i = static_cast<std::size_t>(allocation.id()) + 1; i < objects_.size(); ++i) {
        const auto at = reinterpret_cast<std::uintptr_t>(objects_[i]);
        if (at >= first && at - first < size) {
            objects_[i]->freed_with_ = &allocation;
            objects_[i]->freed_at_ = step_;
        }
    }
    resume_checks_ = true;
}

void Execution::check_resumed() {
    Execution& ex = current();
    if (ex.unwinding_) {
        ex.unwind_running();
        return;
    }
    const Task& task = *ex.running_;
    const Object* obj = task.pending_.obj;
    if (obj && obj->freed_with_ && (!ex.freed_hook_ || ex.freed_hook_(ex, *obj)))
        ex.report_use_after_free(task);
}

void Execution::report_use_after_free(const Task& task) {
    const Object& obj = *task.pending_.obj;
    const Object& allocation = *obj.freed_with_;
    std::string freed;
    std::vector<std::uint32_t> cited{obj.freed_at_};
    allocation.describe_use(freed, task, cited);
    // One finding per freed object, whichever of its fields a schedule happens to use first.
    // The kfree() is cited: a trace keeps it in view and a drawing ties it to the use.
    if (Violation* v =
            record(ViolationKind::use_after_free, "use-after-free of " + allocation.name(),
                   "BUG: KASAN: use-after-free in " + std::string(task.pending_.name) + "(" +
                       obj.name() + ") by " + task.name() + " at step " + std::to_string(step_) +
                       "; " + allocation.name() + ": " + freed)) {
        v->objects = {obj.name()};
        v->details = {Violation::objects_line(v->objects)};
        v->cited = std::move(cited);
    }
    if (running_ && failed()) unwind_running();
}

void Execution::escape(Fault fault, const void* fault_address) {
    Execution* ex = g_running;
    if (!ex || !ex->fiber_) return;
    if (fault_address && ex->fiber_->stack_.guard_contains(fault_address))
        fault.kind = Fault::Kind::stack_overflow;
    else if (ex->unwinding_)
        return; // a teardown, past the point where run() can take it back
    else if (ex->running_ != ex->fiber_ && fault.kind != Fault::Kind::out_of_memory)
        return; // scheduler code on a task's fiber: no task's own doing
    ex->fault_ = fault;
    // A switch to the main context, whose frames below run() are gone; the fiber's are
    // abandoned (its stack's are forgotten when it goes back to the pool).
    fiber_sanitizer::forget_frames(ex->main_stack_);
    fiber_sanitizer::begin_switch(nullptr, ex->main_stack_);
    siglongjmp(ex->escape_jump_, 1);
}

void Execution::on_escape() {
    watchdog::leave_task();
    Task& task = *fiber_;
    running_ = nullptr;
    fiber_ = nullptr;
    // Its stack is garbage (an overflow), or it stopped at an arbitrary point: never resume
    // or unwind it.
    task.finished_ = true;
    // No finding, nothing allocated: run() ends the execution as lockcheck's own failure.
    if (fault_.kind == Fault::Kind::out_of_memory) return;
    // The step it was taking is the trace's last: the fault came after its operation.
    if (stepping_ == &task) {
        stepping_ = nullptr;
        if (sink_) sink_->on_step(*this, step_, task, traced_, value_, traced_context_);
    }
    const std::string& who = task.name();
    const std::string timeout = std::to_string(limits_.step_timeout) + " s";
    switch (fault_.kind) {
    case Fault::Kind::stack_overflow:
        fail(ViolationKind::stack_overflow, "stack-overflow",
             who + " overflowed its " + std::to_string(stacks_.stack_size() / 1024) +
                 " KiB stack (raise --stack-size if the model needs more)");
        break;
    case Fault::Kind::crash:
        fail(ViolationKind::crash, "crash",
             "crash (SIG" + std::string(sigabbrev_np(fault_.code)) + ") in task " + who + ": " +
                 sigdescr_np(fault_.code));
        break;
    case Fault::Kind::exit:
        fail(ViolationKind::exit, "exit",
             who + " called " + fault_.call + "(" + std::to_string(fault_.code) +
                 "), which would have ended lockcheck");
        break;
    case Fault::Kind::endless_loop:
        fail(ViolationKind::no_progress, "no-progress",
             who + " ran " + timeout +
                 " without reaching a scheduling point (an infinite loop in model code?)");
        break;
    case Fault::Kind::blocked:
        fail(ViolationKind::no_progress, "no-progress",
             who + " waited " + timeout +
                 " inside the C library without reaching a scheduling point (a sleep, or a "
                 "lock another task holds across a scheduling point?)");
        break;
    case Fault::Kind::out_of_memory:
        break; // returned above
    }
}

void Execution::interrupt_running_task(bool blocked) {
    escape(Fault{.kind = blocked ? Fault::Kind::blocked : Fault::Kind::endless_loop}, nullptr);
}

void Execution::report_stuck(const void* running) {
    // The thread that runs the execution is stuck in its task: nothing read here changes.
    const auto* ex = static_cast<const Execution*>(running);
    std::string text;
    if (ex && ex->fiber_) {
        const Task& task = *ex->fiber_;
        text = "VIOLATION (no-progress) at step " + std::to_string(ex->step_) + ": " + task.name() +
               " ran " + std::to_string(2 * ex->limits_.step_timeout) +
               " s without reaching a scheduling point, where it cannot be interrupted (a spin "
               "inside the C library, or a loop while its execution is torn down?)\n  " +
               task.name() + ": its last scheduling point: " +
               (task.starting_ ? "none, it was starting"
                               : blocked_on(task) + made_at(task.pending_.location)) +
               "\n";
        if (!ex->schedule_.empty())
            text += "  schedule so far: " + format_schedule(ex->schedule_) +
                    " (--replay it to see its steps)\n";
    }
    text += "lockcheck: the task cannot be stopped, so the run ends here, without a summary\n";
    // What the stuck thread printed before, unless it is stuck printing.
    if (ftrylockfile(stdout) == 0) {
        fflush_unlocked(stdout);
        funlockfile(stdout);
    }
    if (::write(STDOUT_FILENO, text.data(), text.size()) < 0) {
        // stdout is gone: the exit code still tells.
    }
    _exit(faults::kExitModelFault);
}

void Execution::unwind_all() {
    const bool drop = drops_tasks();
    unwinding_ = true;
    resume_checks_ = true;
    for (auto& tp : tasks_) {
        Task& t = *tp;
        if (t.finished_) continue;
        t.torn_down_ = true;
        // Dropped: its stack goes back to the pool as it is, and what its locals own goes with
        // the arena.
        if (t.context_ && !drop) {
            running_ = &t;
            watchdog::enter_task();
            switch_to(&main_context_, &t);
            watchdog::leave_task();
            running_ = nullptr;
        }
        t.finished_ = true;
    }
}

void Execution::drop_running() {
    // As if it had been unwound out of its body: finished, not torn down (fiber_entry()).
    Task& task = *running_;
    task.finished_ = true;
    exit_fiber(task);
}

} // namespace lockcheck::detail
