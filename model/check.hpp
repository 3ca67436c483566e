// Properties a model states: check() inside task code, invariant() after every step,
// final_check() when every task has finished. Evaluating them is never a scheduling point.
#pragma once

#include <functional>
#include <source_location>
#include <string>

namespace lockcheck {

// Fails the execution with `message` if `cond` is false. The step that checks counts as
// reading all shared state (`cond` may peek at any of it). A failure names `loc`, the check's
// line in the model.
void check(bool cond, const char* message,
           std::source_location loc = std::source_location::current());
// Set-up only: `holds` must read state with peek(), never through scheduling points.
void invariant(std::string name, std::function<bool()> holds);
void final_check(std::string name, std::function<bool()> holds);

} // namespace lockcheck
