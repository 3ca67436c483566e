// Trace: a counterexample in full, step by step, as reports print and draw it. It is made by
// replaying a schedule with a TraceRecorder, never during the search itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/trace_sink.hpp"

namespace lockcheck {

struct TraceStep {
    std::uint32_t step = 0;
    std::string task;
    std::string operation;          // "mutex_lock"
    std::string object;             // "log_mutex"; empty for operations on no object
    std::vector<std::int64_t> args; // shown before the object: set_bit(1, log_tree)
    std::optional<std::int64_t> value;
    std::string state; // the object's state after the step: "held by fsync0"
};

struct Trace {
    std::vector<std::string> tasks; // names, by task id
    std::vector<TraceStep> steps;
};

class TraceRecorder final : public TraceSink {
  public:
    void on_step(const Execution& ex, std::uint32_t step, const Task& task, const Operation& op,
                 std::optional<std::int64_t> value) override;
    // Call after the execution ran, while it still exists.
    Trace take(const Execution& ex);

  private:
    Trace trace_;
};

} // namespace lockcheck
