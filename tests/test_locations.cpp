// Locations: every step of a trace names the model's line that made it (file base name, line,
// bare function), whichever primitive made it and whatever that primitive is built on, never a
// line of model/; violations raised from model code name theirs; GCC's function names reduce to
// bare ones; a location never splits one finding into two.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "checker/lowest_first.hpp"
#include "harness.hpp"
#include "reports/text.hpp"
#include "scheduler/replay.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

constexpr const char* kThisFile = "test_locations.cpp";

// --- one execution, recorded: the lowest enabled task always goes on ---

// The model's lines each task marked, in the order it ran them: the steps a task takes after
// a mark, up to its next one, come from the marked line.
struct Mark {
    TaskId task;
    std::uint32_t after; // the last step taken when the task marked the line
    CallSite site;
};
std::vector<Mark> g_marks; // of the execution being run
struct World;
World* g_item_lock = nullptr; // whose spinlock release_item_locked() drops

void mark(std::uint32_t line, std::source_location here = std::source_location::current()) {
    CallSite site = call_site(here);
    site.line = line;
    g_marks.push_back({current()->id(), this_execution().step(), site});
}

// A call, marked: its steps must name this line and the function around it.
#define MARKED(call) (mark(__LINE__), call)

struct Recorded {
    Trace trace;
    Outcome outcome;
    std::vector<Mark> marks;
};

Recorded record(const Setup& setup, Strategy& strategy) {
    g_marks.clear();
    StackPool stacks(CheckOptions{}.stack_size);
    TraceRecorder recorder;
    Recorded r;
    {
        Execution ex(stacks, strategy, Execution::Limits{1000, 10}, &recorder);
        setup();
        r.outcome = ex.run();
        r.trace = recorder.take(ex);
    }
    r.marks = std::move(g_marks);
    return r;
}

Recorded run_once(const Setup& setup) {
    LowestFirst lowest_first;
    return record(setup, lowest_first);
}

// The mark a step comes from: its task's last mark before it.
const Mark* mark_of(const Recorded& r, const TraceStep& s) {
    const Mark* found = nullptr;
    for (const Mark& m : r.marks)
        if (m.task == s.task_id && m.after < s.step) found = &m;
    return found;
}

// Every step names its task's marked line and function (or a lambda written on that line:
// wait_event's condition).
void check_every_step_names_its_mark(const Recorded& r) {
    CHECK_TEXT(!r.trace.steps.empty(), "no steps");
    for (const TraceStep& s : r.trace.steps) {
        const std::string what =
            "step " + std::to_string(s.step) + " " + operation_text(s) + " at " + s.location.text();
        const Mark* m = mark_of(r, s);
        CHECK_TEXT(m, (what + ": no mark before it").c_str());
        CHECK_EQUAL_TEXT(kThisFile, s.location.file, what.c_str());
        CHECK_EQUAL_TEXT(m->site.line, s.location.line, what.c_str());
        CHECK_TEXT(s.location.function == m->site.function ||
                       s.location.function == m->site.function + "::<lambda>",
                   what.c_str());
    }
}

// A task's n-th mark.
const Mark& nth_mark(const Recorded& r, TaskId task, std::size_t n) {
    std::vector<const Mark*> of_task;
    for (const Mark& m : r.marks)
        if (m.task == task) of_task.push_back(&m);
    CHECK_TEXT(n < of_task.size(), ("task " + std::to_string(task) + " has fewer marks").c_str());
    return *of_task[n];
}

// --- every primitive ---

// Two CPUs, before the per-CPU objects are made.
struct TwoCpus {
    TwoCpus() { set_nr_cpus(2); }
};

struct World : TwoCpus {
    struct mutex m {
        "m"
    };
    spinlock_t s{"s"};
    rw_semaphore sem{"sem"};
    atomic_t a{"a"};
    bitmap_word bits{"bits"};
    shared<int> x{"x"};
    shared<int> flag{"flag"};
    struct completion c {
        "c"
    };
    struct completion done {
        "done"
    };
    list_head head{"head"}, other{"other"}, e1{"e1"}, e2{"e2"};
    extent_io_tree tree{"tree"};
    struct inode ino {
        "ino"
    };
    percpu<atomic_t> pcpu{"pcpu"};
    percpu_counter fbc{"fbc"};
    wait_queue_head_t wq{"wq"};
    wait_queue_head_t wq2{"wq2"};
    refcount_t refs{"refs", 1};
};

// An object with a kref, allocated and freed by the task.
struct item {
    struct kref ref {
        "item.ref"
    };
};
// A release's own steps name its own lines.
void release_item(struct kref* k) {
    MARKED(kfree(container_of(k, &item::ref)));
}
void release_item_locked(struct kref* k) {
    MARKED(spin_unlock(&g_item_lock->s));
    MARKED(kfree(container_of(k, &item::ref)));
}

// Sleeps in wait_event() until every_primitive() sets the flag, then waits for `done`.
void waiter(World& w) {
    MARKED(wait_event(w.wq, READ_ONCE(w.flag) != 0));
    MARKED(wait_for_completion(&w.done));
}

void every_primitive(World& w) {
    MARKED(mutex_lock(&w.m));
    MARKED(mutex_is_locked(&w.m));
    MARKED(mutex_unlock(&w.m));
    MARKED(mutex_lock_nested(&w.m, 1));
    MARKED(mutex_unlock(&w.m));
    MARKED(mutex_trylock(&w.m));
    MARKED(mutex_unlock(&w.m));

    MARKED(spin_lock(&w.s));
    MARKED(spin_is_locked(&w.s));
    MARKED(spin_unlock(&w.s));
    MARKED(spin_lock_nested(&w.s, 1));
    MARKED(spin_unlock(&w.s));
    MARKED(spin_trylock(&w.s));
    MARKED(spin_unlock(&w.s));

    MARKED(down_read(&w.sem));
    MARKED(up_read(&w.sem));
    MARKED(down_write(&w.sem));
    MARKED(up_write(&w.sem));
    MARKED(down_read_nested(&w.sem, 1));
    MARKED(up_read(&w.sem));
    MARKED(down_write_nested(&w.sem, 1));
    MARKED(downgrade_write(&w.sem));
    MARKED(up_read(&w.sem));
    MARKED(down_read_trylock(&w.sem));
    MARKED(up_read(&w.sem));
    MARKED(down_write_trylock(&w.sem));
    MARKED(up_write(&w.sem));

    MARKED(atomic_read(&w.a));
    MARKED(atomic_set(&w.a, 1));
    MARKED(atomic_inc(&w.a));
    MARKED(atomic_dec(&w.a));
    MARKED(atomic_add(2, &w.a));
    MARKED(atomic_sub(2, &w.a));
    MARKED(atomic_add_return(1, &w.a));
    MARKED(atomic_inc_return(&w.a));
    MARKED(atomic_dec_and_test(&w.a));
    MARKED(atomic_cmpxchg(&w.a, 1, 0));

    MARKED(test_bit(0, &w.bits));
    MARKED(set_bit(0, &w.bits));
    MARKED(clear_bit(0, &w.bits));
    MARKED(test_and_set_bit(1, &w.bits));
    MARKED(test_and_clear_bit(1, &w.bits));

    MARKED(w.x.read());
    MARKED(w.x.write(1));
    MARKED(w.x.read_once());
    MARKED(w.x.write_once(2));
    MARKED(READ_ONCE(w.x));
    MARKED(WRITE_ONCE(w.x, 3));

    MARKED(init_completion(&w.c));
    MARKED(reinit_completion(&w.c));
    MARKED(complete(&w.c));
    MARKED(try_wait_for_completion(&w.c));
    MARKED(completion_done(&w.c));
    MARKED(complete_all(&w.c));
    MARKED(wait_for_completion(&w.c));

    MARKED(INIT_LIST_HEAD(&w.head));
    MARKED(list_add(&w.e1, &w.head));
    MARKED(list_add_tail(&w.e2, &w.head));
    MARKED(list_move_tail(&w.e1, &w.head));
    MARKED(list_del(&w.e1));
    MARKED(list_del_init(&w.e2));
    MARKED(list_empty(&w.head));
    MARKED(list_add(&w.e2, &w.other));
    MARKED(list_splice_init(&w.other, &w.head));
    MARKED(list_splice_tail_init(&w.head, &w.other));

    MARKED(lock_extent(&w.tree, 0, 4095));
    MARKED(unlock_extent(&w.tree, 0, 4095));

    MARKED(inode_lock(&w.ino));
    MARKED(i_size_write(&w.ino, 10));
    MARKED(i_size_read(&w.ino));
    MARKED(inode_unlock(&w.ino));
    MARKED(inode_lock_shared(&w.ino));
    MARKED(inode_unlock_shared(&w.ino));
    MARKED(inode_dio_begin(&w.ino));
    MARKED(inode_dio_end(&w.ino));
    MARKED(inode_dio_wait(&w.ino));

    MARKED(refcount_inc(&w.refs));
    MARKED(refcount_add(2, &w.refs));
    MARKED(refcount_inc_not_zero(&w.refs));
    MARKED(refcount_add_not_zero(1, &w.refs));
    MARKED(refcount_dec(&w.refs));
    MARKED(refcount_sub_and_test(2, &w.refs));
    MARKED(refcount_dec_not_one(&w.refs));
    MARKED(refcount_dec_and_test(&w.refs));
    MARKED(refcount_read(&w.refs));
    MARKED(refcount_set(&w.refs, 2));
    MARKED(refcount_dec_and_lock(&w.refs, &w.s));
    MARKED(atomic_inc_not_zero(&w.a));
    MARKED(atomic_add_unless(&w.a, 1, 0));
    MARKED(atomic_set(&w.a, 1));
    MARKED(atomic_dec_and_lock(&w.a, &w.s));
    MARKED(spin_unlock(&w.s));
    item* it = MARKED(kmalloc<item>("item"));
    MARKED(kref_init(&it->ref));
    MARKED(kref_get(&it->ref));
    MARKED(kref_get_unless_zero(&it->ref));
    MARKED(kref_read(&it->ref));
    MARKED(kref_put(&it->ref, release_item));
    MARKED(kref_put(&it->ref, release_item));
    g_item_lock = &w;
    MARKED(kref_put_lock(&it->ref, release_item_locked, &w.s));
    mark(__LINE__ + 1);
    BUG_ON(w.refs.peek() < 0);

    MARKED(cpu_online(1));
    [[maybe_unused]] int online = 0; // only the loop's scheduling points matter
    mark(__LINE__ + 1);
    for_each_online_cpu(cpu) online += cpu;
    preempt_disable();
    MARKED(atomic_inc(this_cpu_ptr(&w.pcpu)));
    MARKED(preempt_enable());
    MARKED(cond_resched());
    MARKED(remove_cpu(1));
    MARKED(add_cpu(1));
    MARKED(percpu_counter_add_batch(&w.fbc, 1, 32));
    MARKED(percpu_counter_add(&w.fbc, 1));
    MARKED(percpu_counter_set(&w.fbc, 5));
    MARKED(percpu_counter_read(&w.fbc));
    MARKED(percpu_counter_sum(&w.fbc));

    MARKED(set_current_state(TASK_RUNNING));
    MARKED(__set_current_state(TASK_RUNNING));
    MARKED(schedule());
    MARKED(wake_up_process(current()));
    MARKED(cpu_relax());

    DEFINE_WAIT(wait);
    MARKED(prepare_to_wait(&w.wq2, &wait, TASK_UNINTERRUPTIBLE));
    MARKED(finish_wait(&w.wq2, &wait));
    MARKED(prepare_to_wait_exclusive(&w.wq2, &wait, TASK_UNINTERRUPTIBLE));
    MARKED(finish_wait(&w.wq2, &wait));
    MARKED(waitqueue_active(&w.wq2));
    MARKED(wq_has_sleeper(&w.wq2));
    MARKED(wake_up_all(&w.wq2));

    MARKED(WRITE_ONCE(w.flag, 1));
    MARKED(wake_up(&w.wq));
    MARKED(complete(&w.done));
}

Recorded every_primitive_run() {
    return run_once([] {
        auto& w = this_execution().make<World>();
        spawn("waiter", [&w] { waiter(w); });
        spawn("worker", [&w] { every_primitive(w); });
    });
}

// --- violations: the line that broke the property ---

struct Broken {
    const char* what;
    ViolationKind kind;
    void (*body)(World& w);
};

const Broken kBroken[] = {
    {"check", ViolationKind::check_failed, [](World&) { MARKED(check(false, "x")); }},
    {"bad unlock", ViolationKind::lock_misuse, [](World& w) { MARKED(mutex_unlock(&w.m)); }},
    {"recursive mutex", ViolationKind::lock_misuse,
     [](World& w) {
         mutex_lock(&w.m);
         MARKED(mutex_lock(&w.m));
     }},
    {"lockdep_assert_held", ViolationKind::lock_misuse,
     [](World& w) { MARKED(lockdep_assert_held(&w.m)); }},
    {"unlock_extent", ViolationKind::lock_misuse,
     [](World& w) { MARKED(unlock_extent(&w.tree, 0, 1)); }},
    {"sleep under a spinlock", ViolationKind::sleep_in_atomic,
     [](World& w) {
         spin_lock(&w.s);
         MARKED(mutex_lock(&w.m));
     }},
    {"schedule under a spinlock", ViolationKind::sleep_in_atomic,
     [](World& w) {
         spin_lock(&w.s);
         MARKED(schedule());
     }},
    {"this_cpu_ptr while preemptible", ViolationKind::preempt,
     [](World& w) { MARKED(this_cpu_ptr(&w.pcpu)); }},
    {"list_add twice", ViolationKind::list_corruption,
     [](World& w) {
         list_add(&w.e1, &w.head);
         MARKED(list_add(&w.e1, &w.head));
     }},
    {"same class without nesting", ViolationKind::lock_order,
     [](World& w) {
         lockdep_set_class(&w.sem.dep_map, "m");
         mutex_lock(&w.m);
         MARKED(down_write(&w.sem));
     }},
    {"spinning for ever", ViolationKind::hang,
     [](World&) {
         for (;;)
             MARKED(cpu_relax());
     }},
};

} // namespace

namespace lockcheck::detail {
// So that CHECK_EQUAL can print a call site (found by argument-dependent lookup).
SimpleString StringFrom(const CallSite& site) {
    return SimpleString(site.known() ? site.text().c_str() : "(unknown)");
}
} // namespace lockcheck::detail

TEST_GROUP(FunctionName){};

// The strings GCC 12 gives function_name() for a model's functions, as the brief and the
// shipped models have them.
TEST(FunctionName, reduces_gccs_text_to_the_bare_function_name) {
    const struct {
        const char* pretty;
        const char* bare;
    } cases[] = {
        {"void lockcheck::protocols::{anonymous}::btrfs_sync_log(lockcheck::protocols::"
         "{anonymous}::btrfs_root*)",
         "btrfs_sync_log"},
        {"lockcheck::protocols::{anonymous}::setup(int)::<lambda()>", "setup::<lambda>"},
        {"lockcheck::protocols::{anonymous}::setup(int)::<lambda()>::<lambda(int)>",
         "setup::<lambda>::<lambda>"},
        {"void lockcheck::protocols::{anonymous}::tmpl(T) [with T = std::__cxx11::basic_string"
         "<char>]",
         "tmpl"},
        {"static std::string lockcheck::protocols::{anonymous}::Tm<T>::go(std::function<void()>) "
         "[with T = int; std::string = std::__cxx11::basic_string<char>]",
         "go"},
        {"void lockcheck::protocols::{anonymous}::locking::btrfs_tree_lock_nested("
         "lockcheck::protocols::{anonymous}::extent_buffer*, int)",
         "btrfs_tree_lock_nested"},
        {"void lockcheck::protocols::{anonymous}::S::method(int) const", "method"},
        {"bool lockcheck::protocols::{anonymous}::S::operator()(int)", "operator()"},
        {"bool lockcheck::protocols::{anonymous}::S::operator<(const lockcheck::protocols::"
         "{anonymous}::S&) const",
         "operator<"},
        {"lockcheck::protocols::{anonymous}::S::operator bool() const", "operator bool"},
        {"lockcheck::protocols::{anonymous}::S::S()", "S"},
        {"lockcheck::protocols::{anonymous}::S::~S()", "~S"},
        {"void f<int>(int)", "f"},
        {"int main()", "main"},
        {"main()::<lambda()>", "main::<lambda>"},
        {"lockcheck::<lambda()>", "<lambda>"},
        {"", ""},
    };
    for (const auto& c : cases)
        CHECK_EQUAL_TEXT(std::string(c.bare), bare_function_name(c.pretty), c.pretty);
}

TEST(FunctionName, reduces_clangs_text_to_the_same_bare_function_name) {
    // Clang 16 (the asan preset's compiler) writes scopes, lambdas and template arguments
    // its own way; a model built with it must name the same functions.
    const struct {
        const char* pretty;
        const char* bare;
    } cases[] = {
        {"void lockcheck::protocols::(anonymous namespace)::btrfs_sync_log(lockcheck::protocols::"
         "(anonymous namespace)::btrfs_root *)",
         "btrfs_sync_log"},
        {"auto lockcheck::protocols::(anonymous namespace)::setup(int)::(anonymous class)::"
         "operator()() const",
         "setup::<lambda>"},
        {"auto lockcheck::protocols::(anonymous namespace)::setup(int)::(anonymous class)::"
         "operator()()::(anonymous class)::operator()(int) const",
         "setup::<lambda>::<lambda>"},
        {"auto setup(int)::(lambda at rename_pin.cpp:229:15)::operator()() const",
         "setup::<lambda>"},
        {"auto tl(int)::(anonymous class)::operator()(auto) const [x:auto = int]", "tl::<lambda>"},
        {"void lockcheck::protocols::(anonymous namespace)::tmpl(T) [T = int]", "tmpl"},
        {"static std::string lockcheck::protocols::(anonymous namespace)::Tm<int>::go("
         "std::function<void ()>) [T = int]",
         "go"},
        {"bool lockcheck::protocols::(anonymous namespace)::S::operator<(const S &) const",
         "operator<"},
        {"bool lockcheck::protocols::(anonymous namespace)::S::operator bool() const",
         "operator bool"},
        {"std::source_location (anonymous namespace)::Callable::operator()(int) const",
         "operator()"},
        {"auto main()::(anonymous class)::operator()() const", "main::<lambda>"},
    };
    for (const auto& c : cases)
        CHECK_EQUAL_TEXT(std::string(c.bare), bare_function_name(c.pretty), c.pretty);
}

namespace {
std::source_location free_function(int*) {
    return std::source_location::current();
}
template <class T> std::source_location function_template(T) {
    return std::source_location::current();
}
struct Callable {
    std::source_location operator()(int) const { return std::source_location::current(); }
    bool operator<(const Callable&) const { return true; }
    std::source_location method() const { return std::source_location::current(); }
};
std::source_location from_a_lambda() {
    return [] { return [](int) { return std::source_location::current(); }(1); }();
}
} // namespace

// What this compiler gives, live: the rule must keep up with it.
TEST(FunctionName, reduces_what_this_compiler_gives_for_functions_templates_operators_lambdas) {
    CHECK_EQUAL("free_function", bare_function_name(free_function(nullptr).function_name()));
    CHECK_EQUAL("function_template",
                bare_function_name(function_template(std::string()).function_name()));
    CHECK_EQUAL("operator()", bare_function_name(Callable{}(1).function_name()));
    CHECK_EQUAL("method", bare_function_name(Callable{}.method().function_name()));
    CHECK_EQUAL("from_a_lambda::<lambda>::<lambda>",
                bare_function_name(from_a_lambda().function_name()));
}

TEST(FunctionName, a_call_site_is_the_base_name_the_line_and_the_bare_function) {
    const std::uint32_t line = __LINE__ + 1;
    const CallSite site = call_site(std::source_location::current());
    CHECK_EQUAL(kThisFile, site.file);
    CHECK_EQUAL(line, site.line);
    CHECK_EQUAL("testBody", site.function);
    CHECK_EQUAL(std::string(kThisFile) + ":" + std::to_string(line) + " testBody", site.text());
    // No model call: nothing to name.
    const CallSite none = call_site(std::source_location{});
    CHECK(!none.known());
    CHECK_EQUAL("", none.text());
}

TEST_GROUP(Locations){};

TEST(Locations, every_primitive_names_the_models_line_never_one_of_model) {
    const Recorded r = every_primitive_run();
    CHECK_TEXT(!r.outcome.violation,
               r.outcome.violation ? r.outcome.violation->headline().c_str() : "");
    CHECK(r.outcome.end == End::finished);
    check_every_step_names_its_mark(r);
    // Not one step names a file of model/, the layer the primitives live in.
    // The source tree's, not one next to __FILE__: a compiler cache may make that path relative.
    const std::filesystem::path model = std::filesystem::path(LOCKCHECK_SOURCE_DIR) / "model";
    std::set<std::string> model_files;
    for (const auto& entry : std::filesystem::directory_iterator(model))
        model_files.insert(entry.path().filename().string());
    CHECK_TEXT(model_files.count("mutex.cpp"), "model/ not found in the source tree");
    for (const TraceStep& s : r.trace.steps)
        CHECK_TEXT(!model_files.count(s.location.file), s.location.text().c_str());
    // And the model exercised every primitive.
    std::set<std::string> seen;
    for (const TraceStep& s : r.trace.steps)
        seen.insert(s.operation);
    for (const char* op : {"mutex_lock",
                           "mutex_is_locked",
                           "mutex_unlock",
                           "mutex_lock_nested",
                           "mutex_trylock",
                           "spin_lock",
                           "spin_is_locked",
                           "spin_unlock",
                           "spin_lock_nested",
                           "spin_trylock",
                           "down_read",
                           "up_read",
                           "down_write",
                           "up_write",
                           "down_read_nested",
                           "down_write_nested",
                           "downgrade_write",
                           "down_read_trylock",
                           "down_write_trylock",
                           "atomic_read",
                           "atomic_set",
                           "atomic_inc",
                           "atomic_dec",
                           "atomic_add",
                           "atomic_sub",
                           "atomic_add_return",
                           "atomic_inc_return",
                           "atomic_dec_and_test",
                           "atomic_cmpxchg",
                           "test_bit",
                           "set_bit",
                           "clear_bit",
                           "test_and_set_bit",
                           "test_and_clear_bit",
                           "read",
                           "write",
                           "READ_ONCE",
                           "WRITE_ONCE",
                           "reinit_completion",
                           "complete",
                           "try_wait_for_completion",
                           "completion_done",
                           "complete_all",
                           "wait_for_completion",
                           "INIT_LIST_HEAD",
                           "list_add",
                           "list_add_tail",
                           "list_move_tail",
                           "list_del",
                           "list_del_init",
                           "list_empty",
                           "list_splice_init",
                           "list_splice_tail_init",
                           "lock_extent",
                           "unlock_extent",
                           "i_size_write",
                           "i_size_read",
                           "cpu_online",
                           "cpumask_next",
                           "preempt_enable",
                           "cond_resched",
                           "remove_cpu",
                           "add_cpu",
                           "percpu_counter_add_batch",
                           "percpu_counter_set",
                           "percpu_counter_read",
                           "percpu_counter_sum",
                           "set_current_state",
                           "schedule",
                           "wake_up_process",
                           "cpu_relax",
                           "prepare_to_wait",
                           "finish_wait",
                           "prepare_to_wait_exclusive",
                           "waitqueue_active",
                           "wake_up_all",
                           "wake_up",
                           "refcount_inc",
                           "refcount_add",
                           "refcount_inc_not_zero",
                           "refcount_add_not_zero",
                           "refcount_dec",
                           "refcount_sub_and_test",
                           "refcount_dec_not_one",
                           "refcount_dec_and_test",
                           "refcount_read",
                           "refcount_set",
                           "atomic_inc_not_zero",
                           "atomic_add_unless",
                           "kmalloc",
                           "kref_init",
                           "kref_get",
                           "kref_get_unless_zero",
                           "kref_read",
                           "kref_put",
                           "kfree",
                           "BUG_ON"})
        CHECK_TEXT(seen.count(op), op);
}

// Primitives built on others pass their caller's line down: inode_lock() on down_write(),
// wait_event() on prepare_to_wait() and schedule().
TEST(Locations, inode_lock_and_wait_event_name_the_line_that_calls_them) {
    const Recorded r = every_primitive_run();
    // The waiter's first mark is its wait_event(), which slept: prepare_to_wait, schedule
    // and finish_wait all name that line.
    const CallSite wait_event_line = nth_mark(r, 0, 0).site;
    std::set<std::string> waits;
    for (const TraceStep& s : r.trace.steps) {
        if (s.task != "waiter" || s.object != "wq") continue;
        waits.insert(s.operation);
        CHECK_EQUAL(wait_event_line, s.location);
    }
    CHECK_EQUAL(3u, waits.size());
    // inode_lock() and its kin are the rwsem operations on ino.i_rwsem, each on its own line.
    std::set<std::uint32_t> inode_lines;
    for (const TraceStep& s : r.trace.steps) {
        if (s.object != "ino.i_rwsem") continue;
        CHECK_EQUAL(kThisFile, s.location.file);
        CHECK_EQUAL("every_primitive", s.location.function);
        CHECK_EQUAL(mark_of(r, s)->site.line, s.location.line);
        inode_lines.insert(s.location.line);
    }
    CHECK_EQUAL(4u, inode_lines.size());
}

TEST(Locations, violations_from_model_code_name_the_line_that_broke_the_property) {
    for (const Broken& b : kBroken) {
        const Recorded r = run_once([&b] {
            auto& w = this_execution().make<World>();
            spawn("t", [&w, &b] { b.body(w); });
        });
        CHECK_TEXT(r.outcome.violation.has_value(), b.what);
        const Violation& v = *r.outcome.violation;
        CHECK_EQUAL_TEXT(b.kind, v.kind, b.what);
        CHECK_TEXT(!r.marks.empty(), b.what);
        const CallSite& marked = r.marks.back().site;
        CHECK_EQUAL_TEXT(kThisFile, v.location.file, b.what);
        CHECK_EQUAL_TEXT(marked.line, v.location.line, b.what);
        CHECK_EQUAL_TEXT(v.message + " (" + marked.text() + ")", v.headline(), b.what);
        CHECK_EQUAL_TEXT("VIOLATION (" + std::string(kind_name(v.kind)) + ") at step " +
                             std::to_string(v.step) + ": " + v.headline() + "\n",
                         format_violation(v).substr(0, format_violation(v).find('\n') + 1), b.what);
    }
}

namespace {
struct Two {
    struct mutex A {
        "A"
    };
    struct mutex B {
        "B"
    };
    struct completion done {
        "done"
    };
    shared<int> x{"x"};
};

void a_then_b(Two& t) {
    MARKED(mutex_lock(&t.A));
    MARKED(mutex_lock(&t.B));
    mutex_unlock(&t.B);
    mutex_unlock(&t.A);
    complete(&t.done);
}

void b_then_a(Two& t) {
    wait_for_completion(&t.done);
    MARKED(mutex_lock(&t.B));
    MARKED(mutex_lock(&t.A));
}

} // namespace

// lockdep names where each acquisition of the cycle was made: the one being tried (the
// headline), the held lock's, and each dependency of the chain.
TEST(Locations, lockdep_names_where_each_acquisition_of_the_cycle_was_made) {
    const Recorded r = run_once([] {
        auto& t = this_execution().make<Two>();
        spawn("first", [&t] { a_then_b(t); });
        spawn("second", [&t] { b_then_a(t); });
    });
    CHECK(r.outcome.violation.has_value());
    const Violation& v = *r.outcome.violation;
    CHECK_EQUAL(ViolationKind::lock_order, v.kind);
    const Mark& first_takes_b = nth_mark(r, 0, 1);
    const Mark& second_takes_b = nth_mark(r, 1, 0);
    const Mark& second_takes_a = nth_mark(r, 1, 1);
    CHECK_EQUAL(second_takes_a.site, v.location);
    // The steps second and first took B at: each the one after its mark (nothing else could
    // run then).
    const std::vector<std::string> expected = {
        "second is trying to acquire A while holding B",
        "  B: second took it at step " + std::to_string(second_takes_b.after + 1) + ", " +
            second_takes_b.site.text(),
        "existing dependency chain: A --> B",
        "  A --> B: first took it at step " + std::to_string(first_takes_b.after + 1) + ", " +
            first_takes_b.site.text()};
    CHECK(v.details.size() > expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        CHECK_EQUAL(expected[i], v.details[i]);
    CHECK_EQUAL(kThisFile + std::string(":") + std::to_string(second_takes_b.site.line) +
                    " b_then_a",
                second_takes_b.site.text());
}

TEST(Locations, a_deadlock_names_the_line_each_blocked_task_waits_at) {
    // Each takes its first lock, then waits for the other's.
    Replay each_takes_one(Schedule{0, 1});
    const Recorded r = record(
        [] {
            auto& t = this_execution().make<Two>();
            lockdep_off();
            spawn("ab", [&t] {
                mutex_lock(&t.A);
                MARKED(mutex_lock(&t.B));
            });
            spawn("ba", [&t] {
                mutex_lock(&t.B);
                MARKED(mutex_lock(&t.A));
            });
        },
        each_takes_one);
    CHECK(r.outcome.violation.has_value());
    const Violation& v = *r.outcome.violation;
    CHECK_EQUAL(ViolationKind::deadlock, v.kind);
    CHECK_EQUAL(2u, v.details.size());
    CHECK_EQUAL("ab: blocked in mutex_lock(B) (" + nth_mark(r, 0, 0).site.text() + "), held by ba",
                v.details[0]);
    CHECK_EQUAL("ba: blocked in mutex_lock(A) (" + nth_mark(r, 1, 0).site.text() + "), held by ab",
                v.details[1]);
    // The trace's pending tasks carry the same lines.
    CHECK_EQUAL(2u, r.trace.pending.size());
    CHECK_EQUAL(nth_mark(r, 0, 0).site, r.trace.pending[0].location);
    CHECK_EQUAL(nth_mark(r, 1, 0).site, r.trace.pending[1].location);
}

TEST(Locations, a_data_race_names_the_line_of_each_access) {
    const Recorded r = run_once([] {
        auto& t = this_execution().make<Two>();
        spawn("writer", [&t] { MARKED(t.x.write(1)); });
        spawn("reader", [&t] { MARKED(t.x.read()); });
    });
    CHECK(r.outcome.violation.has_value());
    const Violation& v = *r.outcome.violation;
    CHECK_EQUAL(ViolationKind::data_race, v.kind);
    const std::vector<std::string> expected = {
        "write by writer at step 1: " + nth_mark(r, 0, 0).site.text(),
        "read by reader at step 2: " + nth_mark(r, 1, 0).site.text()};
    CHECK_EQUAL(expected.size(), v.details.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        CHECK_EQUAL(expected[i], v.details[i]);
}

TEST(Locations, a_lock_held_at_exit_names_where_it_was_taken) {
    const Recorded r = run_once([] {
        auto& t = this_execution().make<Two>();
        spawn("leaker", [&t] { MARKED(mutex_lock(&t.A)); });
    });
    CHECK(r.outcome.violation.has_value());
    const Violation& v = *r.outcome.violation;
    CHECK_EQUAL(ViolationKind::lock_held_at_exit, v.kind);
    CHECK_EQUAL("lock held when returning to user space: leaker exited holding A (mutex)",
                v.message);
    CHECK_EQUAL(1u, v.details.size());
    CHECK_EQUAL("A taken at step 1 (" + r.marks.front().site.text() + ")", v.details[0]);
}

// Findings are told apart by kind and message: the same broken check reached from two lines
// is one finding, and the execution counts stay what they were.
TEST(Locations, one_finding_reached_from_two_lines_is_one_finding) {
    Violation a{ViolationKind::check_failed, "x", "check failed: x", 3, {}, {"m.cpp", 10, "f"}};
    Violation b = a;
    b.location = {"m.cpp", 20, "g"};
    CHECK_EQUAL(a.key(), b.key());

    // Whichever task goes first fails its check, on a line of its own.
    const SearchResult r = check_keep_going([] {
        auto& n = this_execution().make<atomic_t>("n");
        spawn("a", [&n] {
            atomic_inc(&n);
            check(false, "x");
        });
        spawn("b", [&n] {
            atomic_inc(&n);
            check(false, "x");
        });
    });
    CHECK_EQUAL(2u, r.stats.executions);
    CHECK_EQUAL(1u, r.findings.size());
}
