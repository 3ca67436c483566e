// Runs the built lockcheck binary as a user would and captures what it prints, for the
// command-line tests, and checks its JSON reports against the shipped JSON Schema. No shell
// in between: each argument reaches the process as it is.
#pragma once

#include <string>
#include <vector>

namespace lockcheck::testing {

struct Run {
    int exit_code = -1; // 128 + signal number if the process was killed by a signal
    std::string out;
    std::string err;
};

// Runs the binary with `args`. A JSON report it wrote (--json FILE) is kept for the schema
// check (keep_for_schema_check).
Run run_lockcheck(const std::vector<std::string>& args);
// Keeps a copy of the JSON document at `path` for the suite's last test, JsonOutputsValidate,
// which validates every document the suite wrote against the schemas in docs/ in one run of
// python3-jsonschema (one run per document would take longer than the tests).
void keep_for_schema_check(const std::string& path);
// Runs `argv` (the program found on PATH), as run_lockcheck does.
Run run_program(const std::vector<std::string>& argv);
// What python3-jsonschema says is wrong with these JSON documents against the schemas in
// docs/ (tests/validate_json.py): empty if every one validates.
std::string schema_errors(const std::vector<std::string>& json_files);

// The text of `text` before the first `marker` (all of it if there is none).
std::string text_before(const std::string& text, const std::string& marker);
// The argument words after "replay: lockcheck " in a run's output; empty if there is none.
std::vector<std::string> replay_arguments(const std::string& out);
// True if `text` is exactly one non-empty line, ending in a newline (as every CLI error is).
bool is_one_line(const std::string& text);

} // namespace lockcheck::testing
