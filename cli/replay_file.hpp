// `lockcheck replay FILE.json`: reruns a counterexample saved by --json, as `--replay` would
// from the command line the report records: the same trace, summary and picture.
#pragma once

#include <iosfwd>
#include <string>

#include "check_command.hpp"
#include "report_files.hpp"

namespace lockcheck::cli {

// The replay request that the report `text` describes, for its `index`-th counterexample
// (from 1), with nothing run or read; false with a one-line reason if it is not a report this
// lockcheck can replay. The fields the command line sets (colour, program, files, ...) are left
// as they were.
bool replay_request(const std::string& text, unsigned index, CheckRequest& request,
                    std::string& error);

// `index`: which counterexample of the report, from 1; `colour` and `locations` as in
// CheckRequest; `program`: the command's name, for replay lines; `command`: the whole command
// line, for the reports. Returns the process exit code.
int run_replay_file(const std::string& path, unsigned index, const ReportFiles& files, bool colour,
                    bool locations, const std::string& program, const std::string& command,
                    std::ostream& out, std::ostream& err);

} // namespace lockcheck::cli
