// The nearest choice to a mistyped name, by optimal-string-alignment edit distance.
#include "did_you_mean.hpp"

#include <algorithm>

namespace lockcheck::detail::cli {

namespace {

// The edit distance with adjacent transpositions (optimal string alignment): "varient" is 1
// from "variant", "rnaem-pin" 1 from "raname-pin".
std::size_t edit_distance(std::string_view a, std::string_view b) {
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::size_t> d((n + 1) * (m + 1));
    auto at = [m, &d](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
    for (std::size_t i = 0; i <= n; ++i)
        at(i, 0) = i;
    for (std::size_t j = 0; j <= m; ++j)
        at(0, j) = j;
    for (std::size_t i = 1; i <= n; ++i)
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
        }
    return at(n, m);
}

} // namespace

std::string nearest_choice(std::string_view given, const std::vector<std::string>& choices) {
    std::string best;
    std::size_t best_distance = 0;
    bool tie = false;
    for (const std::string& choice : choices) {
        const std::size_t distance = edit_distance(given, choice);
        if (best.empty() || distance < best_distance) {
            best = choice;
            best_distance = distance;
            tie = false;
        } else if (distance == best_distance) {
            tie = true;
        }
    }
    const std::size_t allowed = std::max<std::size_t>(1, given.size() / 3);
    if (best.empty() || tie || best_distance == 0 || best_distance > allowed) return {};
    return best;
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& choices) {
    const std::string nearest = nearest_choice(given, choices);
    return nearest.empty() ? "" : " (did you mean '" + nearest + "'?)";
}

} // namespace lockcheck::detail::cli
