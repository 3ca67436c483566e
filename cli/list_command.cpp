// The model/variant table as `lockcheck list` prints it.
#include "list_command.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>
#include <ranges>

#include "checker/model_registry.hpp"

namespace lockcheck::cli {

namespace {
std::string expected(const Expectation& e) {
    if (!e.expects_violation) return "verified";
    return "violation (" + std::string(kind_name(e.kind)) + ")";
}

std::string pad(const std::string& s, std::size_t width) {
    return s + std::string(width - s.size(), ' ');
}

std::string variant_name(const Protocol& p, std::size_t i) {
    return p.variants[i].name + (i == p.default_variant ? " (default)" : "");
}

// The widths of the model, variant and expectation columns: the longest entry of each over
// every model, plus two spaces, so that both sections line up whatever the names.
struct Columns {
    std::size_t model = 0, variant = 0, expected = 0;
    template <class Models> explicit Columns(const Models& models) {
        for (const Protocol& p : models)
            for (std::size_t i = 0; i < p.variants.size(); ++i) {
                model = std::max(model, p.name.size() + 2);
                variant = std::max(variant, variant_name(p, i).size() + 2);
                expected = std::max(expected, cli::expected(p.variants[i].expect).size() + 2);
            }
    }
};

void print_variant(std::ostream& out, const Columns& w, const Protocol& p, std::size_t i) {
    out << pad(p.name, w.model) << pad(variant_name(p, i), w.variant)
        << pad(expected(p.variants[i].expect), w.expected) << p.variants[i].summary << "\n";
}

void print_models(std::ostream& out, const Columns& w, std::vector<Protocol>::const_iterator begin,
                  std::vector<Protocol>::const_iterator end) {
    for (const Protocol& p : std::ranges::subrange(begin, end))
        for (std::size_t i = 0; i < p.variants.size(); ++i)
            print_variant(out, w, p, i);
}

nlohmann::ordered_json variant_json(const Protocol& p, std::size_t i) {
    const Variant& v = p.variants[i];
    nlohmann::ordered_json expect = {
        {"verdict", v.expect.expects_violation ? "violation" : "verified"}};
    if (v.expect.expects_violation) {
        expect["kind"] = kind_name(v.expect.kind);
        expect["property"] = v.expect.property;
    }
    return {{"name", v.name},
            {"summary", v.summary},
            {"default", i == p.default_variant},
            {"expected", expect},
            {"depth", p.depth_for(i)}};
}

nlohmann::ordered_json model_json(const Protocol& p) {
    nlohmann::ordered_json variants = nlohmann::ordered_json::array(),
                           sizes = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < p.variants.size(); ++i)
        variants.push_back(variant_json(p, i));
    for (const Parameter& size : p.parameters)
        sizes.push_back({{"name", size.name},
                         {"help", size.help},
                         {"default", size.default_value},
                         {"min", size.min},
                         {"max", size.max}});
    return {{"name", p.name},
            {"summary", p.summary},
            {"benchmark", p.kind == ModelKind::benchmark},
            {"default_depth", p.default_depth},
            {"sizes", sizes},
            {"variants", variants}};
}
} // namespace

void print_list(std::ostream& out) {
    const std::vector<Protocol>& models = registered_models();
    const Columns widths(models);
    // Models come sorted by kind: each kind but the protocols under a heading of its own.
    static constexpr const char* kHeadings[] = {
        nullptr, "examples: the classic DPOR benchmarks (docs/dpor.md, \"Classic benchmarks\")",
        "litmus tests: verdicts under --memory-model lkmm are LKMM's (docs/memory-model.md)"};
    for (auto from = models.begin(); from != models.end();) {
        const ModelKind kind = from->kind;
        const auto to =
            std::find_if(from, models.end(), [kind](const Protocol& p) { return p.kind != kind; });
        if (const char* heading = kHeadings[static_cast<int>(kind)])
            out << (from == models.begin() ? "" : "\n") << heading << "\n";
        print_models(out, widths, from, to);
        from = to;
    }
}

void print_list_json(std::ostream& out) {
    nlohmann::ordered_json models = nlohmann::ordered_json::array();
    for (const Protocol& p : registered_models())
        models.push_back(model_json(p));
    out << nlohmann::ordered_json{{"schema", "lockcheck-list"}, {"version", 1}, {"models", models}}
               .dump(2)
        << "\n";
}

void print_variants(std::ostream& out, const Protocol& model) {
    out << "variants:\n";
    const Columns widths(std::vector<Protocol>{model});
    for (std::size_t i = 0; i < model.variants.size(); ++i)
        print_variant(out, widths, model, i);
}

} // namespace lockcheck::cli
