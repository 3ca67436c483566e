// Tearing tasks down: an execution that ends with tasks mid-code (a depth cut, a violation, a
// state met before) unwinds each of them (scheduler/fiber_unwind.hpp) where `new` in model code
// is not the execution's (this binary, whose CppUTest replaces operator new), and with
// --unwind-tasks. Their locals must be destroyed, a destructor may reach a scheduling point on
// the way, a catch (...) in the model may hold the unwinding up only until its task's next
// scheduling point, and nothing a task torn down does on its way out counts as model behaviour.
// The lockcheck command drops such tasks with the execution's arena instead, and reports the
// same bytes either way.
#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct State {
    spinlock_t lock{"lock"};
    shared<int> x{"x"};
    shared<int> y{"y"};
};

// Counts the locals alive: constructed and destroyed on the tasks' fibers.
struct Tally {
    int made = 0;
    int destroyed = 0;
};

struct Counted {
    explicit Counted(Tally& t) : tally(t) { ++tally.made; }
    ~Counted() { ++tally.destroyed; }
    Counted(const Counted&) = delete;
    Counted& operator=(const Counted&) = delete;
    Tally& tally;
};

// Releases the lock when its scope ends, as the kernel's guard(spinlock) does: a scheduling
// point inside a destructor, where an execution may end. `Throwing`: declared noexcept(false),
// so that the teardown may unwind through it.
template <bool Throwing> struct SpinGuard {
    explicit SpinGuard(spinlock_t* l) : lock(l) { spin_lock(lock); }
    ~SpinGuard() noexcept(!Throwing) { spin_unlock(lock); }
    SpinGuard(const SpinGuard&) = delete;
    SpinGuard& operator=(const SpinGuard&) = delete;
    spinlock_t* lock;
};

// Two tasks, each with a local around a guard around a local, cut at a step where some
// executions end inside the guard's destructor.
template <bool Throwing> SearchResult guarded_tasks(Tally& tally) {
    CheckOptions options;
    options.max_steps = 3;
    return check_model(
        [&tally] {
            auto& s = this_execution().make<State>();
            for (const char* name : {"a", "b"})
                spawn(name, [&s, &tally] {
                    Counted outer(tally);
                    SpinGuard<Throwing> guard(&s.lock);
                    Counted inner(tally);
                    WRITE_ONCE(s.x, READ_ONCE(s.x) + 1);
                });
        },
        Search::dfs, options);
}

} // namespace

TEST_GROUP(Teardown){};

TEST(Teardown, every_local_of_a_task_cut_mid_code_is_destroyed_and_its_guard_runs) {
    Tally tally;
    const SearchResult r = guarded_tasks<true>(tally);
    CHECK(r.stats.executions > 1);
    CHECK(tally.made > 0);
    CHECK_EQUAL(tally.made, tally.destroyed);
}

// A noexcept destructor cannot be unwound through: the unwinding stops there and leaves the
// locals of the frames above it (docs/writing-models.md), and the search goes on unchanged.
TEST(Teardown, a_task_cut_inside_a_noexcept_destructor_is_abandoned_there_and_the_search_goes_on) {
    Tally unwound, abandoned;
    const SearchResult all = guarded_tasks<true>(unwound);
    const SearchResult r = guarded_tasks<false>(abandoned);
    CHECK_EQUAL(all.stats.executions, r.stats.executions);
    CHECK_EQUAL(all.findings.size(), r.findings.size());
    CHECK_EQUAL(unwound.made, abandoned.made);
    CHECK(abandoned.destroyed < abandoned.made);
}

TEST(Teardown, a_catch_all_holds_the_unwinding_up_only_until_the_next_scheduling_point) {
    int swallowed = 0, went_past = 0;
    Tally tally;
    CheckOptions options;
    options.max_steps = 1; // cut right after the first write
    const SearchResult r = check_model(
        [&] {
            auto& s = this_execution().make<State>();
            spawn("a", [&] {
                Counted local(tally);
                try {
                    WRITE_ONCE(s.x, 1);
                    WRITE_ONCE(s.x, 2);
                } catch (...) {
                    ++swallowed; // and not rethrown
                }
                WRITE_ONCE(s.y, 1);
                ++went_past;
            });
        },
        Search::dfs, options);
    CHECK_EQUAL(1u, r.stats.executions);
    CHECK_EQUAL(1, swallowed);
    CHECK_EQUAL(0, went_past);
    CHECK_EQUAL(1, tally.made);
    CHECK_EQUAL(1, tally.destroyed);
}

TEST(Teardown, an_operation_its_task_fails_inside_is_not_counted_as_ended) {
    const SearchResult r = check_model([] {
        auto& s = this_execution().make<State>();
        spawn("a", [&s] {
            op named("a");
            WRITE_ONCE(s.x, 1);
            check(READ_ONCE(s.x) == 0, "x is still 0");
        });
    });
    CHECK_EQUAL(1u, r.findings.size());
    for (const OpWaits& w : r.stats.ops)
        CHECK_TEXT(w.op != "a" || w.count == 0, ("ended " + std::to_string(w.count)).c_str());
}

TEST(Teardown, what_a_model_makes_lies_in_its_arena_at_the_same_address_in_every_execution) {
    std::vector<std::array<const void*, 3>> made;
    const SearchResult r = check_model([&made] {
        auto& s = this_execution().make<State>();
        const int* item = kmalloc<int>("item");
        const auto& own = model_state<std::array<long, 4>>();
        made.push_back({&s, item, &own});
        spawn("a", [&s] { WRITE_ONCE(s.x, 1); });
        spawn("b", [&s] { WRITE_ONCE(s.y, READ_ONCE(s.x)); });
    });
    CHECK(r.stats.executions > 1);
    CHECK_EQUAL(r.stats.executions, made.size());
    for (const auto& addresses : made) {
        for (const void* p : addresses)
            CHECK(Arena::holds(p));
        CHECK(addresses == made.front());
    }
}

namespace {

// faulty's loud-locals under breadth first, whose executions nearly all end with both tasks
// mid-code, under `memory_model`: the report, and how many locals were destroyed.
struct LoudRun {
    std::string out;
    std::size_t destroyed = 0;
};
LoudRun loud_locals(bool unwind, const std::string& memory_model) {
    std::vector<std::string> args{
        "faulty", "--variant", "loud-locals", "--strategy",     "bfs",
        "-j",     "1",         "--no-timing", "--memory-model", memory_model};
    if (unwind) args.emplace_back("--unwind-tasks");
    const Run run = run_binary(LOCKCHECK_FAULTY_BINARY, args);
    CHECK_EQUAL_TEXT(0, run.exit_code, (run.out + run.err).c_str());
    LoudRun loud{run.out};
    for (std::size_t at = run.err.find("destroyed\n"); at != std::string::npos;
         at = run.err.find("destroyed\n", at + 1))
        ++loud.destroyed;
    return loud;
}

// A --json report of the command without what differs from one run to the next (its own
// command line, the seconds taken).
nlohmann::json without_timing(nlohmann::json json) {
    if (json.is_object()) {
        for (const char* key : {"command", "elapsed_seconds", "minimizing_seconds"})
            json.erase(key);
        for (auto& [key, value] : json.items())
            value = without_timing(value);
    } else if (json.is_array()) {
        for (auto& value : json)
            value = without_timing(value);
    }
    return json;
}

} // namespace

// Under either memory model: under lkmm the weak memory's own allocations stay out of the arena
// (model/weak_memory.cpp), and model code's `new` comes from it as under sc.
TEST(Teardown, the_command_drops_tasks_cut_mid_code_instead_of_unwinding_them) {
    for (const char* memory_model : {"sc", "lkmm"}) {
        const LoudRun dropped = loud_locals(false, memory_model);
        const LoudRun unwound = loud_locals(true, memory_model);
        STRCMP_EQUAL_TEXT(unwound.out.c_str(), dropped.out.c_str(), memory_model);
        // Unwound, every task's local is destroyed; dropped, only those of tasks that returned.
        CHECK_TEXT(dropped.destroyed < unwound.destroyed,
                   (std::string(memory_model) + ": " + std::to_string(dropped.destroyed) + " of " +
                    std::to_string(unwound.destroyed))
                       .c_str());
    }
}

namespace {

// check-all with `args` reports the same with tasks dropped as unwound, in more than `runs` runs.
void expect_check_all_the_same_dropped_as_unwound(const std::vector<std::string>& args,
                                                  std::size_t runs) {
    TempDir dir;
    const std::string dropped = dir / "dropped.json", unwound = dir / "unwound.json";
    std::vector<std::string> a_args{"check-all", "-j", "1", "--no-timing", "--json", dropped};
    std::vector<std::string> b_args{"check-all",      "-j",     "1",    "--no-timing",
                                    "--unwind-tasks", "--json", unwound};
    a_args.insert(a_args.end(), args.begin(), args.end());
    b_args.insert(b_args.end(), args.begin(), args.end());
    const Run a = run_lockcheck(a_args);
    const Run b = run_lockcheck(b_args);
    CHECK_EQUAL_TEXT(0, a.exit_code, a.out.c_str());
    STRCMP_EQUAL(b.out.c_str(), a.out.c_str());
    const nlohmann::json x = without_timing(nlohmann::json::parse(read_file(dropped)));
    const nlohmann::json y = without_timing(nlohmann::json::parse(read_file(unwound)));
    CHECK(x["runs"].size() > runs);
    for (std::size_t i = 0; i < x["runs"].size(); ++i)
        CHECK_TEXT(x["runs"][i] == y["runs"][i], (x["runs"][i]["model"].get<std::string>() + " " +
                                                  x["runs"][i]["variant"].get<std::string>())
                                                     .c_str());
}

} // namespace

TEST(Teardown, every_shipped_variant_reports_the_same_dropped_as_unwound) {
    expect_check_all_the_same_dropped_as_unwound({}, 100);
}

// Under lkmm, every variant of the models whose lkmm searches take seconds (buffered-write,
// tree-lock and cil-push take minutes there). A group of its own: minutes under ASan.
TEST_GROUP(TeardownLkmm){};

TEST(TeardownLkmm, the_variants_report_the_same_dropped_as_unwound) {
    expect_check_all_the_same_dropped_as_unwound(
        {"--memory-model", "lkmm", "aio-lookup", "delayed-iput", "ext4-error-teardown", "flctx",
         "fuse-i-size", "iomap-uptodate", "lkmm-shapes", "log-during-commit", "rename-pin"},
        90);
}

// Breadth first ends nearly every execution with tasks mid-code: the summary of a search whose
// executions are nearly all dropped is the one of the search that unwound them.
TEST(Teardown, a_breadth_first_search_reports_the_same_dropped_as_unwound) {
    for (const char* model : {"rename-pin", "tree-lock", "cil-push"}) {
        const std::vector<std::string> args{model, "--strategy", "bfs", "-j", "1", "--no-timing"};
        std::vector<std::string> unwind = args;
        unwind.emplace_back("--unwind-tasks");
        const Run a = run_lockcheck(args);
        const Run b = run_lockcheck(unwind);
        STRCMP_EQUAL(b.out.c_str(), a.out.c_str());
        CHECK_EQUAL(b.exit_code, a.exit_code);
    }
}
