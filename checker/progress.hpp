// What a long run shows while it goes, and how it is asked to stop early. A search hands a
// ProgressReport to a ProgressSink a few times a second (the command line draws it on a
// terminal) and reads the clock only every so many executions, never per step; a signal
// handler sets a StopRequest that the search reads between executions.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace lockcheck::detail {

struct ProgressReport {
    enum class Phase : std::uint8_t {
        search,     // looking for violations
        minimizing, // looking for a smaller counterexample of one found
    };
    Phase phase = Phase::search;
    std::uint64_t executions = 0; // run in this phase
    double seconds = 0;           // spent in this phase
    // search: the most steps one execution took, the distinct violations found, and the
    // fraction of the search run (negative: no estimate).
    std::uint32_t deepest = 0;
    std::uint64_t violations = 0;
    double explored = -1;
    // minimizing: the preemption bound being searched and the smallest counterexample so far.
    std::uint32_t bound = 0;
    std::uint32_t preemptions = 0;
    std::uint32_t steps = 0;
};

class ProgressSink {
  public:
    virtual ~ProgressSink() = default;
    virtual void show(const ProgressReport& report) = 0;
};

// The number of the signal that asked the run to stop (0: none), written by its handler.
using StopRequest = std::atomic<int>;
static_assert(StopRequest::is_always_lock_free, "a signal handler sets it");

// "SIGINT", "SIGTERM": how a summary names the signal that stopped a run.
std::string signal_name(int signal);

// What stopped a search (or minimizing) whose own allocations failed between or around its
// executions: its results so far stand, as a signal's do. (Model code that runs out of
// memory in a task is that execution's finding, as its other exceptions are.)
inline constexpr const char* kOutOfMemory = "running out of memory";

// Paces a loop of executions: after each one, tick() says whether to look at the clock's
// news. It reads the clock every `stride` executions, the stride adapting so that reads are
// a few milliseconds apart however long an execution takes, and says a report is due a few
// times a second.
class ProgressPacer {
  public:
    ProgressPacer() : start_(std::chrono::steady_clock::now()), last_read_(start_) {}
    // After an execution: true when the clock was read and a report is due.
    bool tick() {
        if (++since_read_ < stride_) return false;
        return read_clock();
    }
    // Seconds since the pacer was made, as of the last read of the clock.
    double seconds() const { return seconds_; }

  private:
    bool read_clock();

    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_read_;
    double seconds_ = 0;
    double last_report_ = 0;
    std::uint32_t stride_ = 1;
    std::uint32_t since_read_ = 0;
};

// The fraction of a depth-first tree run, estimated from the branch points nearest the root:
// at each, the branches finished before the current one out of those it has (as far as the
// search knows), a level weighing its share of the tree. Stops reading levels too deep to
// change the estimate.
class ExploredFraction {
  public:
    // The next level down: `finished` of its `branches`. False once deeper levels no longer
    // matter.
    bool level(int finished, int branches);
    double fraction() const { return fraction_; }

  private:
    double fraction_ = 0;
    double weight_ = 1;
};

} // namespace lockcheck::detail
