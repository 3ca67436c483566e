// What one benchmark run measured, judged against the targets, printed as a table for people
// or as JSON for scripts (bench/callgrind_baseline.sh, regression tracking).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "measure.hpp"

namespace lockcheck::detail::bench {

struct Results {
    std::string build_type;
    int reps = 0;
    std::vector<SwitchCost> switches; // the plain shape is the reference for a step
    std::vector<StepCost> steps;
    std::vector<SearchCost> searches;
    std::vector<CheckpointCost> checkpoints;
};

// True when every measured figure meets its target (figures not measured do not count).
bool targets_met(const Results& r);
void print_table(const Results& r, std::ostream& out);
void print_json(const Results& r, std::ostream& out);

} // namespace lockcheck::detail::bench
