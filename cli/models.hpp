// Every model the command runs, by name: the shipped protocols (protocols/), then the
// examples (examples/: the classic DPOR benchmarks).
#pragma once

#include <string>
#include <vector>

#include "checker/protocol.hpp"

namespace lockcheck::cli {

// The protocols in `lockcheck list` order, then the examples.
const std::vector<Protocol>& all_models();
// nullptr if no model has that name.
const Protocol* find_model(const std::string& name);

} // namespace lockcheck::cli
