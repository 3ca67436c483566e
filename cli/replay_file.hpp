// `lockcheck replay FILE.json`: reruns a counterexample saved by --json, as `--replay` would
// from the command line the report records: the same trace, summary and picture.
#pragma once

#include <iosfwd>
#include <string>

#include "check_command.hpp"

namespace lockcheck::detail::cli {

// The replay request that the report `text` describes, for its `index`-th counterexample
// (from 1), with nothing run or read; false with a one-line reason if it is not a report this
// lockcheck can replay. The fields the command line sets (colour, program, files, ...) are left
// as they were.
bool replay_request(const std::string& text, unsigned index, CheckRequest& request,
                    std::string& error);
// The same from a report read already: its model, sizes, bounds and checks, and the schedule
// of its `index`-th counterexample.
bool request_of(const RunReport& report, unsigned index, CheckRequest& request, std::string& error);

// `index`: which counterexample of the report, from 1; `shown`: how to show it, as a check
// would (colour, locations, columns, full_trace, program for the replay lines, command and
// report files); what it checks comes from the report. Returns the process exit code.
int run_replay_file(const std::string& path, unsigned index, const CheckRequest& shown,
                    std::ostream& out, std::ostream& err);

} // namespace lockcheck::detail::cli
