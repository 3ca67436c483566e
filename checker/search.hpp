// The exhaustive searches a check can run, by name, and the strategy object for each.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "scheduler/strategy.hpp"

namespace lockcheck {

enum class Search : std::uint8_t {
    dfs,  // every interleaving
    dpor, // one interleaving of each class that differs only in the order of independent steps
};

const char* search_name(Search search);
std::unique_ptr<Strategy> make_search(Search search, std::uint32_t depth);

} // namespace lockcheck
