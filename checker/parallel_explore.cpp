// explore() on several threads (--jobs). The search is cut into parts, each a strategy of its
// own that one thread runs at a time: the first part is the whole search, and a thread with
// nothing to run asks a running part to hand over what it has left that comes last in the
// search's order (work stealing, Strategy::split); that becomes the next part in the list. The
// parts' results are merged in list order, which is the search's order, so that the result is
// the one a single thread gets: the same executions, findings, counterexamples and figures,
// whatever the number of threads and however the work was shared.
//
// A strategy whose split resumes (DPOR) stops where the part it handed over begins and goes
// on after it: its rest is a part of its own, after the one handed over and whatever that
// splits off, which runs once every part before it back to the strategy's previous one has.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <list>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include "explore_loop.hpp"

namespace lockcheck::detail {

namespace {

using Clock = std::chrono::steady_clock;

// A part of the search, in the list of parts in the search's order.
struct Part {
    Part(Strategy& s, double w, std::unique_ptr<Strategy> o = nullptr, Part* from = nullptr)
        : owned(std::move(o)), strategy(s), width(w), resumes_after(from) {}
    std::unique_ptr<Strategy> owned; // none: the caller's strategy, or a strategy's rest
    Strategy& strategy;
    double width; // its share of the whole search, for the progress line
    // The rest of a strategy: the part it handed over, which it resumes after.
    Part* resumes_after;
    bool handed = false; // split off another part, which counts it as run (progress)
    enum class State : std::uint8_t { waiting, running, finished } state = State::waiting;
    LoopEnd end = LoopEnd::stopped; // until it ran
    SearchResult result;
    // After a part that broke a property: its results are not the search's.
    std::atomic<bool> cancelled{false};
    std::atomic<bool> split_wanted{false};
    // Its executions when it last had nothing to hand over: it is asked again a little later.
    std::uint64_t refused_at = 0;
    bool refused = false;
    // What the progress line shows, written by the part's thread between executions.
    std::atomic<std::uint64_t> executions{0};
    std::atomic<std::uint32_t> deepest{0};
    std::atomic<std::uint64_t> violations{0};
    std::atomic<double> explored{0};
};

// Executions a part runs after it had nothing to hand over, before it is asked again.
constexpr std::uint64_t kAskAgainAfter = 32;
// How often a waiting thread looks for work again, and the progress line is drawn.
constexpr auto kIdleTick = std::chrono::milliseconds(5);
constexpr auto kWatchTick = std::chrono::milliseconds(100);

class ParallelSearch {
  public:
    ParallelSearch(const Setup& setup, std::vector<StartingPart> parts, const CheckOptions& options)
        : setup_(setup), options_(options) {
        for (StartingPart& s : parts) {
            Part& p = parts_.emplace_back(*s.strategy, s.width);
            p.result = std::move(s.result);
            p.executions = p.result.stats.executions;
            if (s.over) {
                p.state = Part::State::finished;
                p.end = s.violated ? LoopEnd::violation : LoopEnd::done;
            }
            // The search stops at its first violation: the parts after it never run.
            if (s.violated && !options.keep_going) break;
        }
    }
    SearchResult run();

  private:
    class Between;
    void work();
    // On a new thread: its set-up, and the wait until every thread has done it.
    void prepare(StackPool& stacks);
    // Under the lock: the first part that can run, if any.
    Part* waiting_part();
    // Under the lock: whether the rest of a strategy at `it` has what it needs to go on.
    bool can_resume(std::list<Part>::iterator it) const;
    // Under the lock: whether no part runs and none will.
    bool over() const;
    // Under the lock: asks the running part with the largest share to split.
    void ask_split();
    // On the part's thread, between its executions.
    void split(Part& part);
    void finish(Part& part);
    void watch(Clock::time_point start);
    ProgressReport progress(double seconds) const;
    SearchResult merge();

    const Setup& setup_;
    const CheckOptions& options_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::list<Part> parts_; // in the search's order; a split inserts after the part split
    std::atomic<bool> stop_{false};
    std::string stopped_by_;
    std::exception_ptr error_;
    std::uint32_t threads_used_ = 0; // that ran a part
    // Threads started, and of them prepared; none runs a part before all are.
    std::uint32_t threads_ = 0;
    std::uint32_t prepared_ = 0;
    bool starting_ = true;
};

class ParallelSearch::Between final : public BetweenExecutions {
  public:
    Between(ParallelSearch& search, Part& part) : search_(search), part_(part) {}
    bool go_on(const SearchResult& so_far, Strategy& strategy) override {
        const SearchStats& s = so_far.stats;
        part_.executions.store(s.executions, std::memory_order_relaxed);
        part_.deepest.store(s.deepest, std::memory_order_relaxed);
        part_.violations.store(so_far.findings.size(), std::memory_order_relaxed);
        if (s.executions % 16 == 0)
            part_.explored.store(strategy.explored(), std::memory_order_relaxed);
        if (search_.stop_.load(std::memory_order_relaxed) ||
            part_.cancelled.load(std::memory_order_relaxed))
            return false;
        if (part_.split_wanted.exchange(false, std::memory_order_relaxed)) search_.split(part_);
        return true;
    }

  private:
    ParallelSearch& search_;
    Part& part_;
};

Part* ParallelSearch::waiting_part() {
    for (auto it = parts_.begin(); it != parts_.end(); ++it)
        if (it->state == Part::State::waiting && (!it->resumes_after || can_resume(it)))
            return &*it;
    return nullptr;
}

// Everything between its strategy's previous part and it is what that part handed over and
// what was split from it; that part finished means the ones before it had too.
bool ParallelSearch::can_resume(std::list<Part>::iterator it) const {
    Strategy& strategy = it->strategy;
    do {
        --it;
        if (it->state != Part::State::finished) return false;
    } while (&it->strategy != &strategy);
    return true;
}

bool ParallelSearch::over() const {
    bool waiting = false;
    for (const Part& p : parts_) {
        if (p.state == Part::State::running) return false;
        waiting = waiting || p.state == Part::State::waiting;
    }
    return !waiting || stop_;
}

void ParallelSearch::ask_split() {
    Part* victim = nullptr;
    for (Part& p : parts_) {
        if (p.state != Part::State::running || p.cancelled || p.split_wanted) continue;
        if (p.refused && p.executions < p.refused_at + kAskAgainAfter) continue;
        if (!victim || p.width > victim->width) victim = &p;
    }
    if (victim) victim->split_wanted = true;
}

void ParallelSearch::split(Part& part) {
    Handoff handoff = part.strategy.split();
    std::lock_guard lock(mutex_);
    if (!handoff.part || part.cancelled) {
        part.refused = true;
        part.refused_at = part.executions;
        return;
    }
    part.refused = false;
    auto at =
        std::find_if(parts_.begin(), parts_.end(), [&part](const Part& p) { return &p == &part; });
    Strategy& s = *handoff.part;
    const auto handed =
        parts_.emplace(std::next(at), s, part.width * handoff.share, std::move(handoff.part));
    handed->handed = true;
    // The rest weighs nothing in the progress line: the part split counts it as run.
    if (handoff.resumes) parts_.emplace(std::next(handed), part.strategy, 0.0, nullptr, &*handed);
    changed_.notify_all();
}

// Under the lock: a part that broke a property ends the search there unless it keeps going;
// the parts after it (and whatever they would split off) are not run or are stopped.
void ParallelSearch::finish(Part& part) {
    part.state = Part::State::finished;
    if (part.end == LoopEnd::violation && !options_.keep_going) {
        auto it = std::find_if(parts_.begin(), parts_.end(),
                               [&part](const Part& p) { return &p == &part; });
        for (++it; it != parts_.end(); ++it) {
            it->cancelled = true;
            if (it->state == Part::State::waiting) it->state = Part::State::finished;
        }
    }
    changed_.notify_all();
}

// Every thread sets itself up before any runs model code (set_up_worker()).
void ParallelSearch::prepare(StackPool& stacks) {
    const WorkerSetUp set_up = set_up_worker(options_, stacks);
    std::unique_lock lock(mutex_);
    ++prepared_;
    if (set_up.out_of_memory && stopped_by_.empty()) stopped_by_ = kOutOfMemory;
    if (set_up.error && !error_) error_ = set_up.error;
    if (set_up.failed()) stop_ = true;
    changed_.notify_all();
    changed_.wait(lock, [this] { return !starting_ && prepared_ == threads_; });
}

void ParallelSearch::work() {
    StackPool stacks(options_.stack_size);
    prepare(stacks);
    bool ran = false;
    std::unique_lock lock(mutex_);
    while (!over()) {
        Part* part = stop_ ? nullptr : waiting_part();
        if (!part) {
            ask_split();
            changed_.wait_for(lock, kIdleTick);
            continue;
        }
        part->state = Part::State::running;
        threads_used_ += !ran;
        ran = true;
        lock.unlock();
        try {
            Between between(*this, *part);
            if (part->resumes_after && !part->strategy.resume(part->resumes_after->strategy))
                part->end = LoopEnd::done;
            else
                part->end =
                    run_executions(setup_, part->strategy, options_, stacks, part->result, between);
            part->result.stats.states = part->strategy.states();
            if (part->end == LoopEnd::out_of_memory) {
                // The results so far stand: the search stops as it does at a signal.
                part->end = LoopEnd::stopped;
                lock.lock();
                if (stopped_by_.empty()) stopped_by_ = kOutOfMemory;
                stop_ = true;
                lock.unlock();
            }
        } catch (...) {
            lock.lock();
            if (!error_) error_ = std::current_exception();
            stop_ = true;
            part->state = Part::State::finished;
            changed_.notify_all();
            continue;
        }
        lock.lock();
        finish(*part);
    }
}

ProgressReport ParallelSearch::progress(double seconds) const {
    ProgressReport report;
    report.seconds = seconds;
    double explored = 0;
    for (const Part& p : parts_) {
        if (p.cancelled) continue;
        report.executions += p.executions.load(std::memory_order_relaxed);
        report.deepest = std::max(report.deepest, p.deepest.load(std::memory_order_relaxed));
        report.violations += p.violations.load(std::memory_order_relaxed);
        // A part counts what it handed over as run; the part that runs it counts that again.
        const double f = p.state == Part::State::finished ? 1 : p.explored.load();
        explored += p.width * f - (p.handed ? p.width : 0);
    }
    report.explored = std::clamp(explored, 0.0, 1.0);
    if (options_.time_limit > 0)
        report.explored = std::max(report.explored, seconds / options_.time_limit);
    return report;
}

// The calling thread's part: draws progress, and stops the search at a signal or a time limit.
void ParallelSearch::watch(Clock::time_point start) {
    std::unique_lock lock(mutex_);
    while (!over()) {
        changed_.wait_for(lock, kWatchTick);
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        // No --max-executions here: a search bounded by it runs on one thread.
        if (!stop_) {
            stopped_by_ = stop_reason(options_, 0, [seconds] { return seconds; });
            if (!stopped_by_.empty()) stop_ = true;
        }
        if (options_.progress && !over()) {
            const ProgressReport report = progress(seconds);
            lock.unlock();
            options_.progress->show(report);
            lock.lock();
        }
    }
}

SearchResult ParallelSearch::merge() {
    SearchResult result;
    bool complete = true;
    for (Part& p : parts_) {
        result.merge(std::move(p.result));
        if (p.end == LoopEnd::violation && !options_.keep_going) return result;
        // Only a stop leaves a part before the first violation unfinished.
        complete = complete && p.end == LoopEnd::done;
    }
    if (complete)
        check_wait_ratios(options_.wait_ratios, result);
    else
        result.stats.stopped_by = stopped_by_;
    return result;
}

SearchResult ParallelSearch::run() {
    const auto start = Clock::now();
    std::vector<std::thread> threads = start_workers(options_.jobs, [this] { work(); });
    {
        std::lock_guard lock(mutex_);
        threads_ = static_cast<std::uint32_t>(threads.size());
        starting_ = false;
        changed_.notify_all();
    }
    watch(start);
    for (std::thread& t : threads)
        t.join();
    if (error_) std::rethrow_exception(error_);
    SearchResult result = merge();
    result.stats.threads = threads_used_;
    result.stats.elapsed_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
}

} // namespace

SearchResult explore_parallel(const Setup& setup, Strategy& strategy, const CheckOptions& options) {
    std::vector<StartingPart> whole;
    whole.push_back(StartingPart{&strategy, 1.0, {}});
    return explore_parallel(setup, std::move(whole), options);
}

SearchResult explore_parallel(const Setup& setup, std::vector<StartingPart> parts,
                              const CheckOptions& options) {
    return ParallelSearch(setup, std::move(parts), options).run();
}

} // namespace lockcheck::detail
