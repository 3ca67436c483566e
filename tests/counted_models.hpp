// Small models whose Mazurkiewicz traces are counted by hand: the trace counter must count
// them (test_trace_classes.cpp) and DPOR must run one execution per trace (test_dpor.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "checker/explorer.hpp"

namespace lockcheck::detail::testing {

struct CountedModel {
    const char* what;
    std::uint64_t traces;
    Setup setup;
};

const std::vector<CountedModel>& counted_models();

} // namespace lockcheck::detail::testing
