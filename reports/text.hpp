// Plain-text reports: the numbered step-by-step trace of a counterexample, the violation it
// ends in, and the fixed summary block every run ends with (stable, greppable, as SPIN's).
#pragma once

#include <string>

#include "checker/explorer.hpp"
#include "checker/trace.hpp"
#include "scheduler/violation.hpp"

namespace lockcheck {

struct Summary {
    std::string model;
    std::string variant;
    std::string strategy;
    std::string bound;
    SearchStats stats;
    std::size_t violations = 0;
};

std::string format_trace(const Trace& trace);
std::string format_violation(const Violation& violation);
// The verdict line's text: what the run may claim, and no more.
std::string verdict(const Summary& summary);
std::string format_summary(const Summary& summary);

} // namespace lockcheck
