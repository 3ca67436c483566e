// The JSON report: one run (what it checked, its summary, every counterexample with its full
// trace) as a versioned document for tools, written and read back. docs/json-schema.md is its
// contract; this file must not print anything or decide what a run claims (text.hpp does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/trace.hpp"
#include "scheduler/schedule.hpp"
#include "scheduler/violation.hpp"
#include "text.hpp"

namespace lockcheck::detail {

// The name and version every report carries at its top: a reader refuses any other.
inline constexpr const char* kReportSchema = "lockcheck-report";
inline constexpr int kReportVersion = 1;
// The minor additions to version 1 (fields added, none changed): docs/json-schema.md numbers
// them; the document says which it has.
inline constexpr int kReportMinorVersion = 20;
// This lockcheck's version ("0.2.0"), as --version prints it and every report carries it.
extern const char* const kLockcheckVersion;
// The schema of `check-all --json`: {"schema", "version", ..., "runs": [a report per variant]}.
inline constexpr const char* kCheckAllSchema = "lockcheck-check-all";

struct Counterexample {
    Violation violation;
    Schedule schedule;          // replays it
    Trace trace;                // the replay of `schedule`, step by step
    std::string replay_command; // the command line that replays it
};

// --worst-wait OP: the execution in which an instance of OP waited longest, replayed, and
// that instance's span in it.
struct WorstWait {
    Schedule schedule;
    Trace trace;
    OpSpan span;
    std::string replay_command;
};

// What a run checked (enough to rerun it: the summary holds the model's sizes) and found.
struct RunReport {
    Summary summary;
    std::uint32_t depth = 0; // scheduling choices (--depth)
    std::uint32_t max_steps = Execution::kDefaultMaxSteps;
    std::uint32_t spin_bound = CheckOptions{}.spin_bound;
    std::vector<Counterexample> counterexamples;
    std::optional<WorstWait> worst_wait; // drawn by --trace and --report; not in the JSON
    std::string command; // the command line that ran it, as a shell would take it back
    int exit_code = 0;   // what that command exited with (the verdict's, never an output error)
};

// check-all's run: its command line, its exit code and each variant's report.
struct CheckAllReport {
    std::string command;
    int exit_code = 0;
    std::vector<RunReport> runs;
};

// Pretty-printed, keys in a fixed order, ending with a newline. Bytes that are not UTF-8 are
// written as U+FFFD, so that the document is always valid JSON.
std::string to_json(const RunReport& report);
// check-all's document: every variant's run report, in the order checked.
std::string to_json(const CheckAllReport& check_all);
// Reads what to_json wrote. On a malformed document, or one of another schema or version,
// returns false with a one-line reason in `error` and leaves `report` as it was; never throws.
// Fields it does not know are ignored: later minor versions may add some.
bool from_json(const std::string& text, RunReport& report, std::string& error);

} // namespace lockcheck::detail
