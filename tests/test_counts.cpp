// How many executions DFS explores: tasks whose steps are independent must give exactly the
// number of interleavings (each one once), and the depth bound must cut and count executions.
// A regression in the search's coverage or its bookkeeping fails here first.
#include <set>
#include <string>
#include <vector>

#include "checker/dfs.hpp"
#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// One task per entry, each taking that many steps on a variable of its own.
Setup independent_tasks(std::vector<int> steps) {
    return [steps] {
        for (std::size_t i = 0; i < steps.size(); ++i) {
            auto& x = this_execution().make<shared<int>>("x" + std::to_string(i));
            spawn("t" + std::to_string(i), [&x, n = steps[i]] {
                for (int k = 1; k <= n; ++k)
                    x.write(k);
            });
        }
    };
}

struct InterleavingCount {
    std::vector<int> steps; // per task
    std::uint64_t executions;
};

// Multinomial coefficients: (a+b)! / (a! b!) for two tasks, n! / (a! b! c!) for three.
const InterleavingCount kInterleavings[] = {
    {{1, 1}, 2},  {{2, 1}, 3},   {{2, 2}, 6},    {{3, 2}, 10},    {{3, 3}, 20},
    {{4, 3}, 35}, {{5, 5}, 252}, {{1, 1, 1}, 6}, {{2, 1, 1}, 12}, {{0, 3}, 1},
};

std::string name_of(const std::vector<int>& steps) {
    std::string s = "tasks with steps";
    for (int n : steps)
        s += " " + std::to_string(n);
    return s;
}

// DFS behind a recorder of the schedule each execution took.
class RecordingDfs final : public Strategy {
  public:
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override {
        const TaskId id = dfs_.pick(step, enabled, ex);
        current_.push_back(id);
        return id;
    }
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override {
        const std::uint32_t value = dfs_.choose(step, n);
        current_.push_back(static_cast<TaskId>(value));
        return value;
    }
    bool next_execution() override {
        schedules.push_back(current_);
        current_.clear();
        return dfs_.next_execution();
    }
    std::vector<Schedule> schedules;

  private:
    Dfs dfs_;
    Schedule current_;
};

} // namespace

TEST_GROUP(Counts){};

TEST(Counts, independent_steps_give_exactly_the_number_of_interleavings) {
    for (const InterleavingCount& c : kInterleavings) {
        const SearchResult r = check_model(independent_tasks(c.steps));
        const std::string what = name_of(c.steps);
        expect_verified(r, what);
        CHECK_EQUAL_TEXT(c.executions, r.stats.executions, what.c_str());
        CHECK_EQUAL_TEXT(0ul, r.stats.cut, what.c_str());
    }
}

TEST(Counts, three_one_step_tasks_run_in_all_six_orders) {
    const SearchResult r = check_model(independent_tasks({1, 1, 1}));
    CHECK_EQUAL(6ul, r.stats.executions);
    CHECK_EQUAL(18ul, r.stats.steps);
    CHECK_EQUAL(3u, r.stats.longest);
    CHECK_EQUAL(0u, r.stats.deepest); // no step depends on another task's
}

TEST(Counts, every_explored_schedule_is_a_different_interleaving) {
    RecordingDfs dfs;
    const SearchResult r = explore(independent_tasks({3, 3}), dfs, CheckOptions{});
    const std::set<Schedule> distinct(dfs.schedules.begin(), dfs.schedules.end());
    CHECK_EQUAL(20ul, r.stats.executions);
    CHECK_EQUAL(r.stats.executions, dfs.schedules.size());
    CHECK_EQUAL(dfs.schedules.size(), distinct.size());
    for (const Schedule& s : distinct)
        CHECK_EQUAL(6ul, s.size());
}

TEST(Counts, max_steps_cuts_executions_and_counts_them) {
    // Two tasks of three steps: 6 steps finish an execution.
    struct Bound {
        std::uint32_t max_steps;
        std::uint64_t executions; // distinct schedule prefixes of that length
        std::uint64_t cut;
    };
    const Bound bounds[] = {{4, 14, 14}, {5, 20, 20}, {6, 20, 0}, {200, 20, 0}};
    for (const Bound& b : bounds) {
        CheckOptions options;
        options.max_steps = b.max_steps;
        const SearchResult r = check_model(independent_tasks({3, 3}), options);
        const std::string what = "max_steps " + std::to_string(b.max_steps);
        expect_verified(r, what);
        CHECK_EQUAL_TEXT(b.executions, r.stats.executions, what.c_str());
        CHECK_EQUAL_TEXT(b.cut, r.stats.cut, what.c_str());
        CHECK_EQUAL_TEXT(b.cut, r.stats.cut_by_steps, what.c_str());
        CHECK_TEXT(r.stats.longest <= b.max_steps, what.c_str());
    }
}

TEST(Counts, tasks_working_apart_are_never_deeper_than_zero) {
    CheckOptions options;
    options.depth = 1;
    const SearchResult r = check_model(independent_tasks({3, 3}), options);
    CHECK_EQUAL(20ul, r.stats.executions);
    CHECK_EQUAL(0ul, r.stats.cut);
    CHECK_EQUAL(0u, r.stats.deepest);
}

TEST(Counts, the_depth_bound_cuts_executions_whose_steps_pass_between_tasks_too_often) {
    // Two tasks that increment one counter three times each: every step depends on the one
    // before, so an execution's depth is how often it switches task (AABBBA: 2).
    struct Bound {
        std::uint32_t depth;
        std::uint64_t executions;
        std::uint64_t cut;
    };
    // Depth 1: AAABBB, BBBAAA finish; A BBB, AA BBB and their mirrors cannot go on within it.
    const Bound bounds[] = {{1, 6, 4}, {5, 20, 0}};
    for (const Bound& b : bounds) {
        CheckOptions options;
        options.depth = b.depth;
        const SearchResult r = check_model(
            [] {
                auto& counter = this_execution().make<atomic_t>("counter");
                for (const char* name : {"a", "b"})
                    spawn(name, [&counter] {
                        for (int i = 0; i < 3; ++i)
                            atomic_inc(&counter);
                    });
            },
            options);
        const std::string what = "depth " + std::to_string(b.depth);
        expect_verified(r, what);
        CHECK_EQUAL_TEXT(b.executions, r.stats.executions, what.c_str());
        CHECK_EQUAL_TEXT(b.cut, r.stats.cut, what.c_str());
        CHECK_EQUAL_TEXT(0ul, r.stats.cut_by_steps, what.c_str());
        CHECK_TEXT(r.stats.deepest <= b.depth, what.c_str());
    }
}

TEST(Counts, a_held_mutex_prunes_the_interleavings_it_excludes) {
    // Without the lock, two tasks of four steps interleave 70 ways; with it, a critical
    // section runs whole, so only the order of the two sections is a choice.
    const SearchResult r = check_model([] {
        auto& lock = this_execution().make<mutex>("lock");
        for (const char* name : {"a", "b"})
            spawn(name, [&lock] {
                mutex_lock(&lock);
                mutex_is_locked(&lock);
                mutex_is_locked(&lock);
                mutex_unlock(&lock);
            });
    });
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
}
