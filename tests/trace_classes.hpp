// A test oracle for partial-order reduction: the number of Mazurkiewicz traces of a model,
// counted independently of checker/dpor.*. Each execution a search runs is reduced to a
// canonical form under the dependency relation of checker/dependency.hpp (the same
// access_of() and dependent() DPOR uses, nothing else of it), and the distinct forms are
// counted. Run under exhaustive DFS it counts every trace of the model; under a reducing
// search, the traces that search reached.
#pragma once

#include <cstdint>

#include "checker/explorer.hpp"
#include "checker/search.hpp"

namespace lockcheck::detail::testing {

struct TraceClasses {
    std::uint64_t executions = 0;    // executions the search ran
    std::uint64_t finished = 0;      // of which every task returned
    std::uint64_t traces = 0;        // distinct traces among the finished executions
    std::uint64_t sleep_blocked = 0; // executions the search itself stopped (End::stopped)
    std::uint64_t other = 0;         // executions cut by the depth, blocked or failed
};

// The traces of `setup`'s finished executions under `strategy` within `depth` steps.
//
// Canonical form: two executions are the same trace when one can be turned into the other by
// swapping adjacent independent steps of different tasks. Each execution is reduced to its
// lexicographically least equivalent interleaving (at every step, the least task name whose
// next step no earlier unplaced step it depends on precedes), with the values of the model
// choices each step made; equal forms, same trace. Tasks are named, not numbered: a task
// spawned mid-run is numbered in the order of the spawns. The model's invariants, if any, make any
// two writes dependent, as for DPOR.
TraceClasses count_traces(const Setup& setup, Strategy& strategy, std::uint32_t depth);
TraceClasses count_traces(const Setup& setup, Search search, std::uint32_t depth);

} // namespace lockcheck::detail::testing
