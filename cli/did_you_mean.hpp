// "did you mean": the choice closest to a mistyped name (a model, a variant, a strategy, an
// option), as git and cargo suggest a command, so that a typo costs one reading, not a listing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lockcheck::detail::cli {

// The choice nearest to `given` by edit distance (insertions, deletions, substitutions and
// swaps of neighbours), if it is near enough to be the intended one: at most a third of its
// length away, and nearer than every other choice. Empty otherwise.
std::string nearest_choice(std::string_view given, const std::vector<std::string>& choices);

// " (did you mean 'X'?)" for nearest_choice(), or "" when there is none.
std::string did_you_mean(std::string_view given, const std::vector<std::string>& choices);

} // namespace lockcheck::detail::cli
