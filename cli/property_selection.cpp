// Resolves --check and --no-check against the properties a model declares.
#include "property_selection.hpp"

#include <algorithm>

#include "did_you_mean.hpp"

namespace lockcheck::detail::cli {

namespace {

// The declared property `given` names: its whole name, or the start of only one name. Null
// with the reason in `error`.
const PropertyStats* find_property(const std::string& option, const std::string& given,
                                   const std::vector<PropertyStats>& declared, std::string& error) {
    std::vector<std::string> names;
    for (const PropertyStats& p : declared) {
        if (p.name == given) return &p;
        names.push_back(p.name);
    }
    std::vector<const PropertyStats*> starting;
    for (const PropertyStats& p : declared)
        if (!given.empty() && p.name.starts_with(given)) starting.push_back(&p);
    if (starting.size() == 1) return starting.front();
    std::string listed;
    for (const std::string& n : names)
        listed += (listed.empty() ? "\"" : ", \"") + n + "\"";
    if (starting.size() > 1)
        error = option + " '" + given + "' starts " + std::to_string(starting.size()) +
                " property names: give more of it (the model's: " + listed + ")";
    else if (names.empty())
        error = option + ": the model has no invariants or final checks";
    else
        error = option + " '" + given + "': the model has no such invariant or final check" +
                did_you_mean(given, names) + " (it has: " + listed + ")";
    return nullptr;
}

} // namespace

bool unchecked_properties(const PropertyChoice& choice, const std::vector<PropertyStats>& declared,
                          std::vector<std::string>& unchecked, std::string& error) {
    if (!choice.only.empty() && !choice.off.empty()) {
        error = "--check names the only properties checked and --no-check those not: give one "
                "of them";
        return false;
    }
    const bool only = !choice.only.empty();
    std::vector<const PropertyStats*> named;
    for (const std::string& given : only ? choice.only : choice.off) {
        const PropertyStats* p =
            find_property(only ? "--check" : "--no-check", given, declared, error);
        if (!p) return false;
        named.push_back(p);
    }
    unchecked.clear();
    for (const PropertyStats& p : declared)
        if ((std::find(named.begin(), named.end(), &p) != named.end()) != only)
            unchecked.push_back(p.name);
    return true;
}

} // namespace lockcheck::detail::cli
