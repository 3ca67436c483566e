// explore() of a breadth-first search on several threads (--jobs). Each round of a level is cut
// into slices of consecutive items, which the threads take in turn, each slice with a runner
// and a result of its own. Once every slice has run, the calling thread merges the results in
// the round's order and hands the runners to the search in that order (Bfs::take), so that
// the next round, the findings and every figure are the ones a single thread gets, whatever
// the number of threads and whichever thread ran which slice.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <new>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "bfs.hpp"
#include "explore_loop.hpp"

namespace lockcheck::detail {

namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kWatchTick = std::chrono::milliseconds(100);
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
constexpr std::size_t kCacheLine = 64;
// Executions a thread runs between two additions to the progress line's count.
constexpr std::uint64_t kCountEvery = 64;

// Items a slice holds: enough that merging the slices costs little beside running them, few
// enough that the threads finish a round close together.
std::size_t slice_size(std::size_t items, unsigned threads) {
    return std::clamp<std::size_t>(items / (std::size_t{threads} * 8), 1, 256);
}

struct Slice {
    std::size_t first = 0;
    std::size_t last = 0;
    std::optional<BfsRunner> runner; // once it ran
    SearchResult result;
    LoopEnd end = LoopEnd::stopped;
};

class LevelSearch {
  public:
    LevelSearch(const Setup& setup, Bfs& bfs, const CheckOptions& options)
        : setup_(setup), bfs_(bfs), options_(options) {}
    SearchResult run();

  private:
    class Between;
    void work();
    // On the calling thread: runs the current round on the workers and merges it into
    // `result`; false when the search ends with it.
    bool round(SearchResult& result, Clock::time_point start);
    void run_slice(std::size_t index, StackPool& stacks);
    // The calling thread's part while a round runs: progress, signals, the time limit.
    void watch(std::unique_lock<std::mutex>& lock, const SearchResult& so_far,
               Clock::time_point start);

    const Setup& setup_;
    Bfs& bfs_;
    const CheckOptions& options_;
    std::mutex mutex_;
    std::condition_variable wake_; // a round to run, or none left
    std::condition_variable done_; // every worker is out of the round
    std::uint64_t round_ = 0;      // how many rounds were started
    bool quit_ = false;
    std::vector<Slice> slices_;
    std::atomic<std::size_t> next_slice_{0};
    std::size_t finished_ = 0; // slices of the round that ran
    unsigned busy_ = 0;        // workers in the round
    // Read by every thread after each execution, written rarely: on a cache line of their own,
    // away from the counters the threads write.
    // The first slice of the round that broke a property (without --keep-going): the slices
    // after it do not count, and stop.
    alignas(kCacheLine) std::atomic<std::size_t> violated_at_{kNone};
    std::atomic<bool> stop_{false};
    // This round's executions, for the progress line: each thread adds its count now and then.
    alignas(kCacheLine) std::atomic<std::uint64_t> running_executions_{0};
    std::string stopped_by_;
    std::exception_ptr error_;
    std::atomic<std::uint32_t> threads_used_{0};
    unsigned prepared_ = 0; // threads set up (Execution::prepare_thread()), before any round
};

class LevelSearch::Between final : public BetweenExecutions {
  public:
    Between(LevelSearch& search, std::size_t slice) : search_(search), slice_(slice) {}
    ~Between() { search_.running_executions_.fetch_add(uncounted_, std::memory_order_relaxed); }
    bool go_on(const SearchResult&, Strategy&) override {
        if (++uncounted_ == kCountEvery) {
            search_.running_executions_.fetch_add(uncounted_, std::memory_order_relaxed);
            uncounted_ = 0;
        }
        return !search_.stop_.load(std::memory_order_relaxed) &&
               slice_ < search_.violated_at_.load(std::memory_order_relaxed);
    }

  private:
    LevelSearch& search_;
    std::size_t slice_;
    std::uint64_t uncounted_ = 0;
};

void LevelSearch::run_slice(std::size_t index, StackPool& stacks) {
    Slice& slice = slices_[index];
    if (stop_ || index > violated_at_) return;
    try {
        slice.runner.emplace(bfs_.runner(slice.first, slice.last));
        Between between(*this, index);
        slice.end = run_executions(setup_, *slice.runner, options_, stacks, slice.result, between);
        if (slice.end == LoopEnd::out_of_memory) {
            // The results so far stand: the search stops as it does at a signal.
            slice.end = LoopEnd::stopped;
            std::lock_guard lock(mutex_);
            if (!stop_) stopped_by_ = kOutOfMemory;
            stop_ = true;
        }
        if (slice.end == LoopEnd::violation && !options_.keep_going) {
            std::size_t at = violated_at_;
            while (index < at && !violated_at_.compare_exchange_weak(at, index)) {
            }
        }
    } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
        stop_ = true;
    }
}

void LevelSearch::work() {
    StackPool stacks(options_.stack_size);
    const WorkerSetUp set_up = set_up_worker(options_, stacks);
    std::uint64_t seen = 0;
    bool ran = false;
    std::unique_lock lock(mutex_);
    if (set_up.out_of_memory && !stop_) stopped_by_ = kOutOfMemory;
    if (set_up.error && !error_) error_ = set_up.error;
    if (set_up.failed()) stop_ = true;
    ++prepared_;
    done_.notify_all();
    for (;;) {
        wake_.wait(lock, [&] { return quit_ || round_ != seen; });
        if (quit_) return;
        seen = round_;
        // The calling thread changes the slices only once no worker is busy.
        const std::size_t count = slices_.size();
        ++busy_;
        lock.unlock();
        for (std::size_t i; (i = next_slice_.fetch_add(1)) < count;) {
            threads_used_ += !ran;
            ran = true;
            run_slice(i, stacks);
            std::lock_guard finished(mutex_);
            ++finished_;
        }
        lock.lock();
        if (--busy_ == 0) done_.notify_all();
    }
}

void LevelSearch::watch(std::unique_lock<std::mutex>& lock, const SearchResult& so_far,
                        Clock::time_point start) {
    while (finished_ < slices_.size() || busy_) {
        done_.wait_for(lock, kWatchTick);
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        // No --max-executions here: a search bounded by it runs on one thread.
        if (!stop_) {
            stopped_by_ = stop_reason(options_, 0, [seconds] { return seconds; });
            if (!stopped_by_.empty()) stop_ = true;
        }
        if (options_.progress) {
            ProgressReport report;
            report.seconds = seconds;
            report.executions = so_far.stats.executions + running_executions_;
            report.deepest = so_far.stats.deepest;
            report.violations = so_far.findings.size();
            if (options_.time_limit > 0) report.explored = seconds / options_.time_limit;
            lock.unlock();
            options_.progress->show(report);
            lock.lock();
        }
    }
}

bool LevelSearch::round(SearchResult& result, Clock::time_point start) {
    const std::size_t items = bfs_.round_size();
    const std::size_t size = slice_size(items, options_.jobs);
    std::unique_lock lock(mutex_);
    // A worker woken late for the round before may still be on its way out of it, with that
    // round's slice count: the slices change only once it has left.
    done_.wait(lock, [this] { return busy_ == 0; });
    slices_.clear();
    slices_.resize((items + size - 1) / size);
    for (std::size_t i = 0; i < slices_.size(); ++i) {
        slices_[i].first = i * size;
        slices_[i].last = std::min(items, (i + 1) * size);
    }
    next_slice_ = 0;
    finished_ = 0;
    running_executions_ = 0;
    ++round_;
    wake_.notify_all();
    watch(lock, result, start);
    if (error_) return false;
    bool complete = true;
    for (Slice& slice : slices_) {
        if (!slice.runner) {
            complete = false;
            break;
        }
        result.merge(std::move(slice.result));
        if (slice.end == LoopEnd::violation && !options_.keep_going) return false;
        // The slices after it ran what one thread would not have run before the read.
        if (slice.end == LoopEnd::list_order_read) return false;
        complete = complete && slice.end == LoopEnd::done;
    }
    if (!complete) {
        result.stats.stopped_by = stopped_by_;
        return false;
    }
    for (const Slice& slice : slices_)
        bfs_.take(*slice.runner);
    if (bfs_.next_round()) return true;
    check_wait_ratios(options_.wait_ratios, result);
    return false;
}

SearchResult LevelSearch::run() {
    const auto start = Clock::now();
    std::vector<std::thread> threads = start_workers(options_.jobs, [this] { work(); });
    {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [this, &threads] { return prepared_ == threads.size(); });
    }
    SearchResult result;
    while (round(result, start)) {
    }
    {
        std::lock_guard lock(mutex_);
        quit_ = true;
        wake_.notify_all();
    }
    for (std::thread& t : threads)
        t.join();
    if (error_) std::rethrow_exception(error_);
    result.stats.states = bfs_.states();
    result.stats.threads = threads_used_;
    result.stats.elapsed_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
}

} // namespace

SearchResult explore_levels(const Setup& setup, Bfs& bfs, const CheckOptions& options) {
    return LevelSearch(setup, bfs, options).run();
}

} // namespace lockcheck::detail
