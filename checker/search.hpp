// The searches a check can run, by name, and the strategy object for each: the exhaustive
// ones (DFS, with or without a preemption bound, source and optimal DPOR) and the sampling
// ones (random walks and PCT).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/strategy.hpp"

namespace lockcheck::detail {

enum class Search : std::uint8_t {
    dfs,  // every interleaving
    dpor, // one interleaving of each class that differs only in the order of independent steps
    optimal_dpor, // dpor with wake-up trees: no class is run twice
    random,       // a uniformly random enabled task at each step
    pct,          // probabilistic concurrency testing
    bfs,          // every state, level by level, each stored and explored once (bfs.hpp)
};

// The search `lockcheck MODEL` runs without --strategy: it checks the same as DFS (the tests
// prove it on every model) in a fraction of the executions.
inline constexpr Search kDefaultSearch = Search::dpor;

// One of N pieces of a search that run apart (--shard I/N, checker/shard.hpp).
struct Shard {
    unsigned index = 1; // 1..count
    unsigned count = 1;
};

struct SearchOptions {
    Search search = Search::dfs;
    std::uint32_t depth = 200;                // the step bound of an execution
    std::optional<std::uint32_t> preemptions; // DFS, DPOR: at most this many per execution
    std::uint64_t iterations = 1000;          // random, pct: executions to run
    std::uint64_t seed = 1;                   // random, pct
    std::uint32_t pct_depth = 3;              // pct: the bug depth d it aims at
    bool state_cache = false;                 // dfs: stateful (stateful_dfs.hpp)
    std::optional<Shard> shard;               // dfs: run only this shard
};

const char* search_name(Search search);
// Every search's name, in the order of the enum.
std::vector<std::string> search_names();
// The search by that name, if there is one.
std::optional<Search> find_search(std::string_view name);
// Whether the search runs every execution (within its bounds) rather than a sample.
bool exhaustive(Search search);
// Whether it stores the states it explored (--state-cache, bfs): it then explores each state
// from one path only, which a wait bound cannot take.
bool stores_states(const SearchOptions& options);
// "dfs", "dfs, at most 2 preemptions", "pct, depth 3, seed 1"
std::string describe(const SearchOptions& options);
std::unique_ptr<Strategy> make_search(const SearchOptions& options);
// make_search with every option but the search and depth at its default.
std::unique_ptr<Strategy> make_search(Search search, std::uint32_t depth);

} // namespace lockcheck::detail
