// Splitting a search without threads (Strategy::split): after every few executions, the part
// handed over run next in line and the giver's rest after it if it resumes, each part run to
// its end in list order. Such a search must run the schedules the whole one runs, in order.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "checker/explorer.hpp"
#include "scheduler/schedule.hpp"

namespace lockcheck::detail::testing {

// Every schedule a search runs, in order, split every `every` executions (0: never), with
// --keep-going; and how many splits there were.
std::pair<std::vector<Schedule>, unsigned>
split_schedules(const Setup& setup, std::unique_ptr<Strategy> root, unsigned every);

} // namespace lockcheck::detail::testing
