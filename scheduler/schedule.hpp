// Schedule: the sequence of choices an execution made: the task id picked at each step, and
// the value of each model choice (a migration) where the step made one. An execution is fully
// determined by its model, options and schedule, so this printable value is what --replay
// consumes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "task_set.hpp"

namespace lockcheck::detail {

using Schedule = std::vector<TaskId>;

// "0.0.1.2": task ids in step order, separated by dots; "none" for the schedule of no step.
std::string format_schedule(const Schedule& schedule);
// Parses format_schedule's output; on failure returns false and a one-line reason.
bool parse_schedule(std::string_view text, Schedule& schedule, std::string& error);

} // namespace lockcheck::detail
