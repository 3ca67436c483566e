// `lockcheck replay FILE.json`: reruns a counterexample saved by --json, as `--replay` would
// from the command line the report records: the same trace, summary and picture.
#pragma once

#include <iosfwd>
#include <string>

#include "check_command.hpp"

namespace lockcheck::cli {

// `index`: which counterexample of the report, from 1; `shown`: how to show it, as a check
// would (colour, locations, columns, full_trace, program for the replay lines, command and
// report files); what it checks comes from the report. Returns the process exit code.
int run_replay_file(const std::string& path, unsigned index, const CheckRequest& shown,
                    std::ostream& out, std::ostream& err);

} // namespace lockcheck::cli
