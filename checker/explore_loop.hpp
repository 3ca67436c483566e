// The loop of executions one thread runs for a search (explorer.cpp), shared by a search on
// one thread and by each thread of a search on several (parallel_explore.cpp).
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "explorer.hpp"
#include "model/weak_memory.hpp"
#include "scheduler/stack_pool.hpp"

namespace lockcheck::detail {

enum class LoopEnd : std::uint8_t {
    done,          // the strategy ran every execution it had
    violation,     // one broke a property, and the search does not keep going
    stopped,       // asked to stop between two executions
    out_of_memory, // lockcheck's own allocation failed: the executions before it stand
    // Lists were kept as sets and a step or property read one's order: the states stored may
    // have merged what the model tells apart (SearchStats::list_order_read says where).
    list_order_read,
    // Loops were judged as cycles and an execution met what that search does not judge (a
    // violation, a cut) or the search found a loop that can go on for ever: the search begins
    // again with loops watched (SearchStats::loops_unjudged says why).
    loops_unjudged,
};

// Asked between two executions, once the strategy has prepared the next one: whether to go on.
class BetweenExecutions {
  public:
    virtual ~BetweenExecutions() = default;
    virtual bool go_on(const SearchResult& so_far, Strategy& strategy) = 0;
};

// Why a search must stop now: a signal ("SIGINT"), --max-executions after `executions`, or
// its --time-limit after `seconds()` (read only when there is one); "" to go on.
template <class Seconds>
std::string stop_reason(const CheckOptions& options, std::uint64_t executions, Seconds seconds) {
    if (options.stop && *options.stop) return signal_name(*options.stop);
    if (options.max_executions && executions >= options.max_executions)
        return "--max-executions " + std::to_string(options.max_executions);
    if (options.time_limit > 0 && seconds() >= options.time_limit) return "--time-limit";
    return "";
}

// Why the executions of `strategy` cannot go on from checkpoints (CheckOptions::checkpoints):
// "--no-checkpoints", "this search" (it replays every execution), ...; empty when they can.
std::string checkpoints_off(const CheckOptions& options, const Strategy& strategy);

// Runs executions under `strategy` into `result` (its findings distinct among themselves).
LoopEnd run_executions(const Setup& setup, Strategy& strategy, const CheckOptions& options,
                       StackPool& stacks, SearchResult& result, BetweenExecutions& between);

// What setting a worker thread up before any model code runs on it (Execution::prepare_thread)
// met: a thread that set itself up at its first execution could find the memory used up by a
// model on another thread and die inside the allocator (jemalloc does, setting up the thread's
// arena). Either ends the search. The thread's first fiber stack is mapped then too, into
// `stacks`: the stack of its first task, mapped later, found the address space taken by a model
// that allocates without end on another thread.
struct WorkerSetUp {
    bool out_of_memory = false;
    std::exception_ptr error; // the watchdog's thread could not start
    bool failed() const { return out_of_memory || error; }
};
WorkerSetUp set_up_worker(const CheckOptions& options, StackPool& stacks);

// Starts `jobs` threads running `work`, or as many as can be started: one that cannot (no
// memory for its stack) leaves the search to the others; none at all is an error (thrown).
// Each runs in the round of the thread that starts it (weak_memory::Round).
template <class Work> std::vector<std::thread> start_workers(unsigned jobs, const Work& work) {
    std::vector<std::thread> threads;
    const weak_memory::Round round = weak_memory::current_round();
    try {
        for (unsigned i = 0; i < jobs; ++i)
            threads.emplace_back([round, work] {
                weak_memory::set_round(round);
                work();
            });
    } catch (const std::system_error&) {
        if (threads.empty()) throw;
    }
    return threads;
}

// After a search that ran every execution it was to run: each operation whose worst wait is
// more than its bound times its mean is a finding, shown by the execution of that worst wait.
void check_wait_ratios(const std::vector<WaitRatio>& ratios, SearchResult& result);

// A run of consecutive parts of a search, in its order, for explore_parallel: each a strategy,
// its share of the run, and what it ran already (a shard's plan): all of it if `over`.
struct StartingPart {
    Strategy* strategy;
    double width;
    SearchResult result;
    bool over = false;
    bool violated = false; // it ran to a violation
};

// explore() on `options.jobs` threads (parallel_explore.cpp), of the whole search or of a run
// of its parts (a shard's).
SearchResult explore_parallel(const Setup& setup, Strategy& strategy, const CheckOptions& options);
SearchResult explore_parallel(const Setup& setup, std::vector<StartingPart> parts,
                              const CheckOptions& options);

class Bfs;
// explore() of a breadth-first search on `options.jobs` threads, level by level
// (parallel_levels.cpp).
SearchResult explore_levels(const Setup& setup, Bfs& bfs, const CheckOptions& options);

} // namespace lockcheck::detail
