// --check NAME and --no-check NAME: which of a model's own invariants and final checks a run
// checks, so that a user can switch one off to see what else breaks, or look at one alone.
#pragma once

#include <string>
#include <vector>

#include "checker/explorer.hpp"

namespace lockcheck::detail::cli {

// The names given, each an invariant's or final check's name or the start of only one such
// name (the summary cuts long names): `only` are the ones checked (--check), `off` the ones
// not (--no-check); at most one of the two is given.
struct PropertyChoice {
    std::vector<std::string> only;
    std::vector<std::string> off;
    bool empty() const { return only.empty() && off.empty(); }
};

// The whole names of the properties `choice` switches off among those the model `declared`,
// in their order. False with a one-line reason in `error` for a name that matches none or
// several, or for --check and --no-check together.
bool unchecked_properties(const PropertyChoice& choice, const std::vector<PropertyStats>& declared,
                          std::vector<std::string>& unchecked, std::string& error);

} // namespace lockcheck::detail::cli
