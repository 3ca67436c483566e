// The scheduling step, fiber switching, violation recording and teardown of one execution.
#include "execution.hpp"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <exception>
#include <stdexcept>
#include <typeinfo>

namespace lockcheck {

namespace fc = boost::context::detail;

namespace {

thread_local Execution* g_running = nullptr; // inside run(), for the fault handler

// Thrown into a task to end it early (after a violation, or when the execution is cut).
// Not a std::exception, so model code catching std::exception lets it through.
struct Unwind {};

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

Execution::Execution(StackPool& stacks, Strategy& strategy, Limits limits, TraceSink* sink)
    : stacks_(stacks), strategy_(strategy), limits_(limits), sink_(sink), previous_(current_) {
    current_ = this;
    schedule_.reserve(limits.depth);
    races_.reserve(limits.depth);
}

Execution::~Execution() {
    for (auto& t : tasks_)
        if (t->stack_.top) stacks_.release(t->stack_);
    tasks_.clear();
    owned_.clear();
    current_ = previous_;
}

thread_local Execution* Execution::current_ = nullptr;
thread_local std::vector<const Object*>* Execution::peeks_ = nullptr;

int Execution::register_object(Object* obj, ObjectKind kind) {
    objects_.push_back(obj);
    const int id = static_cast<int>(objects_.size() - 1);
    races_.add_object(id, kind);
    return id;
}

Task& Execution::spawn(std::unique_ptr<Task> task, std::function<void()> body) {
    if (tasks_.size() >= static_cast<std::size_t>(kMaxTasks))
        throw std::length_error("a model may spawn at most " + std::to_string(kMaxTasks) +
                                " tasks");
    task->id_ = static_cast<TaskId>(tasks_.size());
    races_.add_task(task->id_, running_ ? running_->id_ : kNoTask, step_);
    task->body_ = std::move(body);
    tasks_.push_back(std::move(task));
    return *tasks_.back();
}

void Execution::add_invariant(std::string name, std::function<bool()> holds) {
    invariants_.push_back({std::move(name), std::move(holds)});
}

void Execution::add_final_check(std::string name, std::function<bool()> holds) {
    final_checks_.push_back({std::move(name), std::move(holds)});
}

Outcome Execution::run() {
    install_fault_handler();
    watchdog::arm(limits_.step_timeout, &Execution::interrupt_running_task);
    Execution* const outer = g_running;
    g_running = this;
    if (sink_) sink_->on_start(*this);
    // Both escapes out of a running task land here: 1 from a stack overflow, 2 from the
    // watchdog. Nothing below may keep state in locals across them.
    switch (sigsetjmp(escape_jump_, 0)) {
    case 0:
        start_new_tasks();
        // The tasks take it from here; the last one to run switches back when it is over.
        if (!outcome_.violation)
            if (Task* first = advance()) switch_to(&main_context_, first);
        break;
    case 1:
        on_stack_overflow();
        break;
    default:
        on_step_timeout();
        break;
    }
    strategy_.end(*this);
    // The attempt that broke a property is the trace's last step (see fail_attempt()).
    const std::uint32_t steps = attempt_task_ ? step_ + 1 : step_;
    if (sink_ && attempt_task_)
        sink_->on_step(*this, steps, *attempt_task_, attempt_, std::nullopt,
                       TraceSink::Context{task_bit(attempt_task_->id()), false});
    if (sink_) sink_->on_end(*this);
    unwind_all();
    g_running = outer;
    outcome_.steps = steps;
    return std::move(outcome_);
}

void Execution::run_final_checks() {
    for (Property& c : final_checks_)
        if (!holds(c)) fail(ViolationKind::final_check, c.name, "final check failed: " + c.name);
}

inline void Execution::finish_step() {
    Task& t = *stepping_;
    const Object* const obj = step_obj_;
    stepping_ = nullptr;
    if (wrote_) {
        last_write_step_ = step_;
        if (obj) obj->last_written = step_;
    }
    if (const RaceDetector::Race* race = races_.end_step()) [[unlikely]]
        report_race(*race);
    if (t.turn_start_ && obj) {
        if (t.turn_count_ < Task::kTurnObjects)
            t.turn_objects_[t.turn_count_++] = obj;
        else
            t.turn_overflow_ = true;
    }
    if (sink_) sink_->on_step(*this, step_, t, traced_, value_, traced_context_);
    if (started_ != tasks_.size()) start_new_tasks();
}

Task* Execution::advance() {
    running_ = nullptr;
    if (stepping_) {
        finish_step();
        if (outcome_.violation || ended_early_) return nullptr;
        if (!invariants_.empty()) {
            check_invariants();
            if (outcome_.violation) return nullptr;
        }
    }
    TaskSet enabled = 0;
    TaskSet spinning = 0;
    bool unfinished = false;
    for (auto& tp : tasks_) {
        Task& t = *tp;
        if (t.finished_) continue;
        unfinished = true;
        const Operation& op = t.pending_;
        if (!op.enabled || op.enabled(op.obj, t)) {
            enabled |= task_bit(t.id_);
        } else {
            t.blocked_ = true;
            if (op.fallback) spinning |= task_bit(t.id_);
        }
    }
    if (!enabled) [[unlikely]] {
        if (!spinning) {
            if (unfinished)
                report_blocked();
            else
                run_final_checks();
            return nullptr;
        }
        // Only spinners can run: let one spin (their order changes nothing shared).
        enabled = task_bit(lowest(spinning));
    }
    if (step_ >= limits_.depth) [[unlikely]] {
        outcome_.end = End::cut;
        return nullptr;
    }
    const TaskId id = strategy_.pick(step_ + 1, enabled, *this);
    if (id == kNoTask) [[unlikely]] {
        outcome_.end = End::stopped;
        return nullptr;
    }
    if (id >= tasks_.size() || !contains(enabled, id)) [[unlikely]] {
        outcome_.end = End::diverged;
        outcome_.diverged_task = id;
        return nullptr;
    }
    Task& t = *tasks_[id];
    ++step_;
    schedule_.push_back(id);
    t.last_step_ = step_;
    races_.begin_step(t.id_, step_, t.pending_);
    // The task declares its next operation while it runs: keep what finishing the step needs.
    stepping_ = &t;
    step_obj_ = t.pending_.obj;
    if (sink_) {
        traced_ = t.pending_;
        traced_context_ = TraceSink::Context{enabled, t.blocked_};
    }
    value_.reset();
    wrote_ = !t.pending_.read_only;
    step_global_ = false;
    running_ = &t;
    watchdog::enter_task();
    return &t;
}

// A property that throws is a broken model, reported like any other exception. Traced, what
// the property reads is kept until one holds, so that the first one broken keeps its reads.
bool Execution::holds(Property& property) {
    ++property.evaluations;
    const bool traced = sink_ && !outcome_.violation;
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
    if (traced && held && !outcome_.violation) property_reads_.clear();
    return held;
}

void Execution::check_invariants() {
    if (invariants_.empty()) return;
    for (Property& c : invariants_) {
        if (!holds(c)) {
            fail(ViolationKind::invariant, c.name, "invariant violated: " + c.name);
            return;
        }
    }
}

void Execution::start_new_tasks() {
    while (started_ < tasks_.size() && !outcome_.violation)
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
    // Unwinding inside a destructor that already unwinds would terminate: let it finish.
    if (std::uncaught_exceptions() == 0) throw Unwind{};
}

void Execution::fiber_entry(fc::transfer_t transfer) {
    Execution* ex = current_;
    *static_cast<void**>(transfer.data) = transfer.fctx;
    Task& task = *ex->fiber_;
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
    try {
        task.body_();
        if (!unwinding_) task.on_exit();
    } catch (const Unwind&) {
    } catch (const std::exception& e) {
        record(ViolationKind::exception, "exception",
               task.name() + " threw " + demangle(typeid(e).name()) + ": " + e.what());
    } catch (...) {
        record(ViolationKind::exception, "exception", task.name() + " threw an unknown exception");
    }
}

void Execution::begin_spin_turn() {
    running_->turn_start_ = step_;
    running_->turn_count_ = 0;
    running_->turn_overflow_ = false;
}

bool Execution::turn_changed(const Task& task) const {
    // Before its first turn ends the task's touched objects are not tracked: any write counts.
    if (task.turn_overflow_ || task.turn_start_ == 0) return last_write_step_ > task.turn_start_;
    for (int i = 0; i < task.turn_count_; ++i)
        if (task.turn_objects_[i]->last_written > task.turn_start_) return true;
    return false;
}

void Execution::record(ViolationKind kind, std::string property, std::string message,
                       std::source_location loc) {
    // Tearing down a cut or failed execution is not a new finding.
    if (unwinding_ || outcome_.violation) return;
    outcome_.violation =
        Violation{kind, std::move(property), std::move(message), step_, {}, call_site(loc), {}};
    outcome_.end = End::violation;
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

std::uint32_t Execution::choose(std::uint32_t n) {
    if (n <= 1 || unwinding_) return 0;
    const std::uint32_t value = strategy_.choose(step_, n);
    if (value >= n) {
        // A replay that ran out, or does not fit: the execution ends here.
        outcome_.end = value == kNoTask ? End::stopped : End::diverged;
        outcome_.diverged_choice = n;
        ended_early_ = true;
        if (std::uncaught_exceptions() == 0) throw Unwind{};
        return 0;
    }
    schedule_.push_back(static_cast<TaskId>(value));
    return value;
}

void Execution::fail(ViolationKind kind, std::string property, std::string message,
                     std::source_location loc) {
    if (unwinding_) return;
    record(kind, std::move(property), std::move(message), loc);
    if (running_ && std::uncaught_exceptions() == 0) throw Unwind{};
}

void Execution::fail_with_details(ViolationKind kind, std::string property, std::string message,
                                  std::vector<std::string> details, std::source_location loc) {
    if (unwinding_) return;
    if (!outcome_.violation) {
        record(kind, std::move(property), std::move(message), loc);
        outcome_.violation->details = std::move(details);
    }
    if (running_ && std::uncaught_exceptions() == 0) throw Unwind{};
}

void Execution::fail_attempt(const Operation& attempt, ViolationKind kind, std::string property,
                             std::string message, std::vector<std::string> details,
                             std::vector<std::uint32_t> cited) {
    if (unwinding_) return;
    if (!outcome_.violation) {
        record(kind, std::move(property), std::move(message), attempt.location);
        outcome_.violation->details = std::move(details);
        outcome_.violation->cited = std::move(cited);
        if (running_) {
            outcome_.violation->step = step_ + 1;
            attempt_ = attempt;
            attempt_task_ = running_;
        }
    }
    if (running_ && std::uncaught_exceptions() == 0) throw Unwind{};
}

void Execution::report_blocked() {
    // Each blocked task waits for at most one holder: follow the chain to find a cycle.
    std::vector<std::string> details;
    std::string cycle;
    for (auto& tp : tasks_) {
        const Task& t = *tp;
        if (t.finished_) continue;
        std::string line =
            t.name() + ": blocked in " + blocked_on(t) + made_at(t.pending_.location);
        if (const Object* obj = t.pending_.obj) {
            std::string state;
            obj->describe(state);
            if (!state.empty()) line += ", " + state;
        }
        details.push_back(std::move(line));
        if (!cycle.empty()) continue;
        std::vector<const Task*> chain{&t};
        for (;;) {
            const Object* obj = chain.back()->pending_.obj;
            const Task* next = obj ? obj->holder_for(*chain.back()) : nullptr;
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
        fail(ViolationKind::deadlock, "deadlock", "deadlock: wait-for cycle " + cycle);
    } else {
        std::string who;
        for (auto& tp : tasks_) {
            if (tp->finished_) continue;
            if (!who.empty()) who += ", ";
            who += tp->name() + " in " + blocked_on(*tp);
        }
        fail(ViolationKind::hang, "hang", "hang: no task can run and nothing can wake " + who);
    }
    outcome_.violation->details = std::move(details);
}

void Execution::report_race(const RaceDetector::Race& race) {
    auto text = [this](const RaceDetector::Access& a) {
        const char* kind = a.write ? "write" : "read";
        std::string out = kind;
        if (std::string_view(a.op) != kind) out += std::string(" (") + a.op + ")";
        return out + " by " + tasks_[a.task]->name() + " at step " + std::to_string(a.step);
    };
    if (unwinding_ || outcome_.violation) return;
    const std::string& var = objects_[static_cast<std::size_t>(race.variable)]->name();
    record(ViolationKind::data_race, "data race on " + var,
           "data race on " + var + ": " + text(race.earlier) + " and " + text(race.later) +
               " are not ordered");
    outcome_.violation->cited = {race.earlier.step};
    // Where each access was made, a line each (as KCSAN gives each access its stack).
    for (const RaceDetector::Access* a : {&race.earlier, &race.later})
        if (const CallSite site = call_site(a->location); site.known())
            outcome_.violation->details.push_back(text(*a) + ": " + site.text());
}

void Execution::free_memory(const Object& allocation, const void* begin, std::size_t size) {
    // Objects register as they are constructed, so those inside the allocation came after it.
    const auto first = reinterpret_cast<std::uintptr_t>(begin);
    for (std::size_t i = static_cast<std::size_t>(allocation.id()) + 1; i < objects_.size(); ++i) {
        const auto at = reinterpret_cast<std::uintptr_t>(objects_[i]);
        if (at >= first && at - first < size) objects_[i]->freed_with_ = &allocation;
    }
    resume_checks_ = true;
}

void Execution::check_resumed() {
    Execution& ex = current();
    if (ex.unwinding_) {
        unwound();
        return;
    }
    const Task& task = *ex.running_;
    const Object* obj = task.pending_.obj;
    if (obj && obj->freed_with_) ex.report_use_after_free(task);
}

void Execution::report_use_after_free(const Task& task) {
    const Object& obj = *task.pending_.obj;
    const Object& allocation = *obj.freed_with_;
    std::string freed;
    allocation.describe(freed);
    fail(ViolationKind::use_after_free, "use-after-free of " + obj.name(),
         "BUG: KASAN: use-after-free in " + std::string(task.pending_.name) + "(" + obj.name() +
             ") by " + task.name() + " at step " + std::to_string(step_) + "; " +
             allocation.name() + ": " + freed);
}

void Execution::on_stack_overflow() {
    watchdog::leave_task();
    Task& task = *fiber_;
    running_ = nullptr;
    fiber_ = nullptr;
    task.finished_ = true; // its stack is garbage: never resume or unwind it
    fail(ViolationKind::stack_overflow, "stack-overflow",
         task.name() + " overflowed its " + std::to_string(stacks_.stack_size() / 1024) +
             " KiB stack (raise --stack-size if the model needs more)");
}

void Execution::on_step_timeout() {
    watchdog::leave_task();
    Task& task = *fiber_;
    running_ = nullptr;
    fiber_ = nullptr;
    task.finished_ = true; // interrupted at an arbitrary point: never resume or unwind it
    fail(ViolationKind::no_progress, "no-progress",
         task.name() + " ran " + std::to_string(limits_.step_timeout) +
             " s without reaching a scheduling point (an infinite loop in model code?)");
}

void Execution::interrupt_running_task() {
    Execution* ex = g_running;
    if (ex && ex->running_) siglongjmp(ex->escape_jump_, 2);
}

void Execution::unwind_all() {
    unwinding_ = true;
    resume_checks_ = true;
    for (auto& tp : tasks_) {
        Task& t = *tp;
        if (t.finished_) continue;
        t.torn_down_ = true;
        if (t.context_) {
            running_ = &t;
            watchdog::enter_task();
            switch_to(&main_context_, &t);
            watchdog::leave_task();
            running_ = nullptr;
        }
        t.finished_ = true;
    }
}

void Execution::on_fault(int sig, siginfo_t* info, void*) {
    Execution* ex = g_running;
    if (ex && ex->fiber_ && ex->fiber_->stack_.guard_contains(info->si_addr))
        siglongjmp(ex->escape_jump_, 1);
    // Not a model's stack overflow: a bug in lockcheck itself; crash as usual.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, nullptr);
}

void Execution::install_fault_handler() {
    static bool installed = false;
    if (installed) return;
    installed = true;
    // The overflowed fiber's stack is unusable: the handler needs a stack of its own.
    static char altstack[64 * 1024];
    stack_t ss{};
    ss.ss_sp = altstack;
    ss.ss_size = sizeof altstack;
    sigaltstack(&ss, nullptr);
    struct sigaction sa {};
    sa.sa_sigaction = &Execution::on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
}

} // namespace lockcheck
