// --worst-wait OP: after a search, the execution in which OP waited longest, replayed and
// printed with the steps it waited marked and, under the trace, whom it waited for.
#pragma once

#include <iosfwd>
#include <string>

#include "check_command.hpp"

namespace lockcheck::detail::cli {

// Replays the schedule `report`'s search kept for request.worst_wait's worst wait, prints it
// to `out` and keeps it in report.worst_wait for the files. False with a one-line reason in
// `error` if no instance of that operation finished in the search.
bool show_worst_wait(const CheckRequest& request, RunReport& report, std::ostream& out,
                     std::string& error);

} // namespace lockcheck::detail::cli
