// The table behind LOCKCHECK_MODEL: filled while the program starts, sorted on first use.
#include "model_registry.hpp"

#include <algorithm>
#include <set>

namespace lockcheck::detail {

namespace {

// Filled by static initialisers, in whatever order the linker put their files.
std::vector<Protocol>& table() {
    static std::vector<Protocol> models;
    return models;
}

bool valid_name(const std::string& name) {
    return !name.empty() && name[0] != '-' && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    });
}

// A variant may also keep the name of the litmus test it is ("MP+fencewmbonceonce+..."):
// upper-case letters, '+' and '.' are safe in a file name and on a command line too.
bool valid_variant_name(const std::string& name) {
    return !name.empty() && name[0] != '-' && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_' || c == '+' || c == '.';
    });
}

} // namespace

ModelRegistration::ModelRegistration(Protocol (*make)()) {
    table().push_back(make());
}

const std::vector<Protocol>& registered_models() {
    static const bool sorted = [] {
        std::stable_sort(table().begin(), table().end(), [](const Protocol& a, const Protocol& b) {
            return a.kind != b.kind ? a.kind < b.kind : a.name < b.name;
        });
        return true;
    }();
    (void)sorted;
    return table();
}

const Protocol* find_registered_model(const std::string& name) {
    for (const Protocol& p : registered_models())
        if (p.name == name) return &p;
    return nullptr;
}

std::vector<std::string> registration_problems() {
    return model_problems(registered_models());
}

std::vector<std::string> model_problems(const std::vector<Protocol>& models) {
    std::vector<std::string> problems;
    std::set<std::string> seen;
    for (const Protocol& p : models) {
        const std::string model = "model '" + p.name + "'";
        if (!valid_name(p.name))
            problems.push_back(model + ": a name is lower-case letters, digits, '-' and '_'");
        if (std::find(kCommandNames.begin(), kCommandNames.end(), p.name) != kCommandNames.end())
            problems.push_back(model + ": the name is one of lockcheck's own commands");
        if (!seen.insert(p.name).second) problems.push_back(model + " is registered twice");
        if (p.variants.empty()) problems.push_back(model + " has no variants");
        if (p.default_variant >= p.variants.size() && !p.variants.empty())
            problems.push_back(model + ": default_variant is out of range");
        if (!p.setup) problems.push_back(model + " has no setup");
        std::set<std::string> variants;
        for (const Variant& v : p.variants) {
            if (!valid_variant_name(v.name))
                problems.push_back(model + ": variant '" + v.name +
                                   "': a name is letters, digits, '-', '_', '+' and '.'");
            if (!variants.insert(v.name).second)
                problems.push_back(model + ": variant '" + v.name + "' is declared twice");
        }
        std::set<std::string> sizes;
        for (const Parameter& s : p.parameters) {
            if (!valid_name(s.name))
                problems.push_back(model + ": size option --" + s.name +
                                   ": a name is lower-case letters, digits, '-' and '_'");
            if (!sizes.insert(s.name).second)
                problems.push_back(model + ": size option --" + s.name + " is declared twice");
            if (s.min > s.max || s.default_value < s.min || s.default_value > s.max)
                problems.push_back(model + ": size option --" + s.name +
                                   ": the default is not within [min, max]");
        }
        if (const auto& c = p.comparison) {
            for (const std::string& v : {c->before, c->after})
                if (!variants.contains(v))
                    problems.push_back(model + ": comparison: no variant '" + v + "'");
            if (c->strategy != "dfs" && c->strategy != "random" && c->strategy != "pct")
                problems.push_back(model + ": comparison: strategy '" + c->strategy +
                                   "' is not dfs, random or pct (waits need every order)");
        }
    }
    return problems;
}

} // namespace lockcheck::detail
