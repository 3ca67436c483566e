// Source and optimal DPOR against exhaustive DFS on generated models: 240 small random programs
// (2-4 tasks, shared variables whose writes depend on what the task read, atomics, mutex-protected
// sections, a completion one task may wait for and another may signal) must reach the same
// final states and the same kinds of violation under both, and DPOR must never run more
// executions. The generator is seeded: a failure names the model's seed to rerun it.
#include <string>
#include <vector>

#include "checker/dfs.hpp"
#include "checker/dpor.hpp"
#include "checker/random_source.hpp"
#include "harness.hpp"
#include "trace_classes.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::testing;

namespace {

enum class Kind { read, write, atomic_inc, atomic_read, lock, unlock, wait, complete };

struct Op {
    Kind kind;
    int target; // which variable, atomic, mutex
    int value;  // a write stores what the task last read plus this
};

using Program = std::vector<std::vector<Op>>; // one list of operations per task

struct Shared {
    shared<int> vars[3] = {shared<int>{"x"}, shared<int>{"y"}, shared<int>{"z"}};
    atomic_t atomics[2] = {atomic_t{"a"}, atomic_t{"b"}};
    struct mutex locks[2] = {mutex{"m0"}, mutex{"m1"}};
    struct completion done {
        "done"
    };
};

// At most kMaxOps visible operations in all, so that DFS stays small.
constexpr int kMaxOps = 9;

Program generate(std::uint64_t seed) {
    RandomSource random(seed);
    const int tasks = 2 + static_cast<int>(random.below(3));
    Program program(static_cast<std::size_t>(tasks));
    int budget = kMaxOps;
    for (auto& ops : program) {
        const int n = 1 + static_cast<int>(random.below(3));
        for (int i = 0; i < n && budget > 0; ++i, --budget) {
            const int target = static_cast<int>(random.below(3));
            const int value = static_cast<int>(random.below(3));
            switch (random.below(6)) {
            case 0:
                ops.push_back({Kind::read, target, 0});
                break;
            case 1:
                ops.push_back({Kind::write, target, value});
                break;
            case 2:
                ops.push_back({Kind::atomic_inc, target % 2, 0});
                break;
            case 3:
                ops.push_back({Kind::atomic_read, target % 2, 0});
                break;
            default:
                // A critical section around one access: lock, access, unlock.
                if (budget < 3) break;
                ops.push_back({Kind::lock, target % 2, 0});
                ops.push_back({random.below(2) ? Kind::read : Kind::write, target, value});
                ops.push_back({Kind::unlock, target % 2, 0});
                budget -= 2;
            }
        }
    }
    // Random blocking: one task may wait for the completion, another may signal it.
    if (random.below(2) && budget > 0) {
        program[0].insert(program[0].begin() +
                              random.below(static_cast<std::uint32_t>(program[0].size() + 1)),
                          Op{Kind::wait, 0, 0});
        if (random.below(4) && budget > 1) program[1].push_back({Kind::complete, 0, 0});
    }
    return program;
}

void run(const std::vector<Op>& ops, Shared& s) {
    int reg = 0;
    for (const Op& op : ops) {
        switch (op.kind) {
        case Kind::read:
            reg = READ_ONCE(s.vars[op.target]);
            break;
        case Kind::write:
            WRITE_ONCE(s.vars[op.target], reg + op.value);
            break;
        case Kind::atomic_inc:
            atomic_inc(&s.atomics[op.target]);
            break;
        case Kind::atomic_read:
            reg = atomic_read(&s.atomics[op.target]);
            break;
        case Kind::lock:
            mutex_lock(&s.locks[op.target]);
            break;
        case Kind::unlock:
            mutex_unlock(&s.locks[op.target]);
            break;
        case Kind::wait:
            wait_for_completion(&s.done);
            break;
        case Kind::complete:
            complete(&s.done);
            break;
        }
    }
}

// The generated program's set-up: its objects, and a task per list of operations.
Setup setup_of(const Program& program) {
    return [&program] {
        Shared& s = this_execution().make<Shared>();
        for (std::size_t t = 0; t < program.size(); ++t)
            spawn("t" + std::to_string(t), [&s, &ops = program[t]] { run(ops, s); });
    };
}

// Source and optimal DPOR against DFS on the same 240 models.
void check_against_dfs(Dpor::Mode mode) {
    std::uint64_t dfs_total = 0, dpor_total = 0;
    for (std::uint64_t seed = 1; seed <= 240; ++seed) {
        const Program program = generate(seed);
        Dfs dfs;
        Dpor dpor(0, mode);
        const Reached all = reach(setup_of(program), dfs, 200);
        const Reached reduced = reach(setup_of(program), dpor, 200);
        const std::string what = std::string(mode == Dpor::Mode::optimal ? "optimal " : "") +
                                 "DPOR, generated model, seed " + std::to_string(seed);
        CHECK_TEXT(reduced.executions <= all.executions, what.c_str());
        CHECK_TEXT(reduced.final_states == all.final_states,
                   (what + ": DPOR reached " + std::to_string(reduced.final_states.size()) +
                    " final states, DFS " + std::to_string(all.final_states.size()))
                       .c_str());
        CHECK_TEXT(reduced.violations == all.violations, what.c_str());
        dfs_total += all.executions;
        dpor_total += reduced.executions;
    }
    // The reduction is real on this population, not only sound.
    CHECK_TEXT(dpor_total * 2 < dfs_total, (std::to_string(dpor_total) + " DPOR executions, " +
                                            std::to_string(dfs_total) + " DFS")
                                               .c_str());
}

} // namespace

TEST_GROUP(DporGenerated){};

TEST(DporGenerated, dpor_reaches_what_dfs_reaches_on_240_generated_models) {
    check_against_dfs(Dpor::Mode::source);
}

TEST(DporGenerated, optimal_dpor_reaches_what_dfs_reaches_on_240_generated_models) {
    check_against_dfs(Dpor::Mode::optimal);
}

TEST(DporGenerated,
     both_dpors_reach_every_trace_of_240_generated_models_and_optimal_runs_each_once) {
    std::uint64_t traces_total = 0;
    for (std::uint64_t seed = 1; seed <= 240; ++seed) {
        const Program program = generate(seed);
        const std::string what = "generated model, seed " + std::to_string(seed);
        const TraceClasses all = count_traces(setup_of(program), Search::dfs, 200);
        const TraceClasses source = count_traces(setup_of(program), Search::dpor, 200);
        const TraceClasses optimal = count_traces(setup_of(program), Search::optimal_dpor, 200);
        CHECK_EQUAL_TEXT(all.traces, source.traces, (what + ": DPOR").c_str());
        CHECK_EQUAL_TEXT(all.traces, optimal.traces, (what + ": optimal DPOR").c_str());
        // Not one execution more than there are traces: none twice, none sleep-set blocked,
        // even with locks and completions (a step that waits is never scheduled before the
        // step it waits for).
        CHECK_EQUAL_TEXT(optimal.traces, optimal.finished, what.c_str());
        CHECK_EQUAL_TEXT(0u, optimal.sleep_blocked, what.c_str());
        traces_total += all.traces;
    }
    CHECK(traces_total > 240); // the models race: most have more than one trace
}

#include "checker/bounded_dfs.hpp"
TEST(DporGenerated, bounded_dpor_reaches_what_bounded_dfs_reaches_on_240_generated_models) {
    std::uint64_t dfs_total = 0, dpor_total = 0;
    for (std::uint32_t bound : {0u, 1u, 2u}) {
        for (std::uint64_t seed = 1; seed <= 240; ++seed) {
            const Program program = generate(seed);
            BoundedDfs dfs(bound);
            Dpor dpor(0, Dpor::Mode::source, bound);
            const Reached all = reach(setup_of(program), dfs, 200);
            const Reached reduced = reach(setup_of(program), dpor, 200);
            const std::string what = "DPOR within " + std::to_string(bound) +
                                     " preemptions, generated model, seed " + std::to_string(seed);
            CHECK_TEXT(reduced.final_states == all.final_states,
                       (what + ": DPOR reached " + std::to_string(reduced.final_states.size()) +
                        " final states, DFS " + std::to_string(all.final_states.size()))
                           .c_str());
            CHECK_TEXT(reduced.violations == all.violations, what.c_str());
            dfs_total += all.executions;
            dpor_total += reduced.executions;
        }
    }
    CHECK_TEXT(dpor_total < dfs_total, (std::to_string(dpor_total) + " DPOR executions, " +
                                        std::to_string(dfs_total) + " DFS")
                                           .c_str());
}
