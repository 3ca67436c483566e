// Runs the built lockcheck binary as a user would and captures what it prints, for the
// command-line tests. No shell in between: each argument reaches the process as it is.
#pragma once

#include <string>
#include <vector>

namespace lockcheck::detail::testing {

struct Run {
    int exit_code = -1; // 128 + signal number if the process was killed by a signal
    std::string out;
    std::string err;
};

// Runs the binary as `lockcheck` found on the PATH would be (argv[0] is "lockcheck"). A JSON
// report it wrote (--json FILE) is kept for the schema check (keep_for_schema_check).
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
// The same, run by the name `argv0` ("build/lockcheck"), which replay lines repeat.
Run run_lockcheck_as(const std::string& argv0, const std::vector<std::string>& args);
// run_lockcheck for another build of the command (a binary with test-only models).
Run run_binary(const char* binary, const std::vector<std::string>& args);
// As run_lockcheck, with stderr on a pseudo-terminal `columns` wide (stdout still a file, unless
// `stdout_too`), as a user at a terminal sees it: `err` is what the terminal received (both
// streams, with `stdout_too`).
Run run_lockcheck_on_terminal(const std::vector<std::string>& args, unsigned short columns,
                              bool stdout_too = false);
// As run_lockcheck_on_terminal (100 columns), sending the process `signal` once the terminal
// shows `ready`, as a user presses ^C on seeing the progress line: a line drawn while the
// search (or minimizing) runs, after the signal handlers are in place. Never after a fixed
// time, which a loaded machine or a sanitizer build can outlast before the handlers exist.
Run run_lockcheck_interrupted(const std::vector<std::string>& args, int signal,
                              const std::string& ready);

// Runs `args` with --jobs 1 and with -j 2 and checks that both print the same bytes and exit
// alike (the args say --no-timing); returns the one-thread run.
Run expect_same_output_on_one_and_two_threads(const std::vector<std::string>& args);

// The row of the search summary in `out` whose key is `key` ("verdict"): the text after its
// 14-column key, or empty if there is none.
std::string summary_row(const std::string& out, const std::string& key);
// The text of a run's output before the summary's rows that vary from one run of a search to
// the next: "checkpoints" (how the threads split it) and "elapsed".
std::string before_timing(const std::string& out);
// The text of `text` before the first `marker` (all of it if there is none).
std::string text_before(const std::string& text, const std::string& marker);
// The argument words after "replay: lockcheck " in a run's output; empty if there is none.
std::vector<std::string> replay_arguments(const std::string& out);
// True if `text` is exactly one non-empty line, ending in a newline (as every CLI error is).
bool is_one_line(const std::string& text);

} // namespace lockcheck::detail::testing
