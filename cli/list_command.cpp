// The model/variant table as `lockcheck list` prints it.
#include "list_command.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>
#include <ranges>

#include "check_all.hpp"
#include "checker/model_registry.hpp"

namespace lockcheck::detail::cli {

namespace {
std::string expected(const Variant& v, MemoryModel model) {
    const Expectation& e = v.expected(model);
    if (!e.expects_violation) return "verified";
    return "violation (" + std::string(kind_name(e.kind)) + ")";
}

std::string pad(const std::string& s, std::size_t width) {
    return s + std::string(width - s.size(), ' ');
}

std::string variant_name(const Protocol& p, std::size_t i) {
    return p.variants[i].name + (i == p.default_variant ? " (default)" : "");
}

// The header over the columns: a variant declares its verdict under each memory model.
constexpr const char* kHeader[] = {"model", "variant", "expected (sc)", "expected (lkmm)",
                                   "summary"};

// The widths of the model, variant and expectation columns: the longest entry of each over
// every model (and the header), plus two spaces, so that every section lines up whatever the
// names.
struct Columns {
    std::size_t model = 0, variant = 0, sc = 0, lkmm = 0;
    template <class Models> explicit Columns(const Models& models) {
        const auto fit = [](std::size_t& width, const std::string& text) {
            width = std::max(width, text.size() + 2);
        };
        fit(model, kHeader[0]);
        fit(variant, kHeader[1]);
        fit(sc, kHeader[2]);
        fit(lkmm, kHeader[3]);
        for (const Protocol& p : models)
            for (std::size_t i = 0; i < p.variants.size(); ++i) {
                fit(model, p.name);
                fit(variant, variant_name(p, i));
                fit(sc, expected(p.variants[i], MemoryModel::sc));
                fit(lkmm, expected(p.variants[i], MemoryModel::lkmm));
            }
    }
};

void print_header(std::ostream& out, const Columns& w) {
    out << pad(kHeader[0], w.model) << pad(kHeader[1], w.variant) << pad(kHeader[2], w.sc)
        << pad(kHeader[3], w.lkmm) << kHeader[4] << "\n";
}

void print_variant(std::ostream& out, const Columns& w, const Protocol& p, std::size_t i) {
    const Variant& v = p.variants[i];
    out << pad(p.name, w.model) << pad(variant_name(p, i), w.variant)
        << pad(expected(v, MemoryModel::sc), w.sc) << pad(expected(v, MemoryModel::lkmm), w.lkmm)
        << v.summary << "\n";
}

void print_models(std::ostream& out, const Columns& w, std::vector<Protocol>::const_iterator begin,
                  std::vector<Protocol>::const_iterator end) {
    for (const Protocol& p : std::ranges::subrange(begin, end))
        for (std::size_t i = 0; i < p.variants.size(); ++i)
            print_variant(out, w, p, i);
}

nlohmann::ordered_json expectation_json(const Expectation& e) {
    nlohmann::ordered_json expect = {{"verdict", e.expects_violation ? "violation" : "verified"}};
    if (e.expects_violation) {
        expect["kind"] = kind_name(e.kind);
        expect["property"] = e.property;
    }
    return expect;
}

nlohmann::ordered_json variant_json(const Protocol& p, std::size_t i) {
    const Variant& v = p.variants[i];
    return {{"name", v.name},
            {"summary", v.summary},
            {"default", i == p.default_variant},
            {"expected", expectation_json(v.expected(MemoryModel::sc))},
            {"expected_lkmm", expectation_json(v.expected(MemoryModel::lkmm))},
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
            {"check_all_search", describe(check_all_search(p, MemoryModel::sc))},
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
        "litmus tests: the lkmm column is LKMM's verdict (docs/memory-model.md)"};
    print_header(out, widths);
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
    out << nlohmann::ordered_json{{"schema", "lockcheck-list"},
                                  {"version", 1},
                                  {"minor_version", kListMinorVersion},
                                  {"models", models}}
               .dump(2)
        << "\n";
}

void print_variants(std::ostream& out, const Protocol& model) {
    out << "variants:\n";
    const Columns widths(std::vector<Protocol>{model});
    print_header(out, widths);
    for (std::size_t i = 0; i < model.variants.size(); ++i)
        print_variant(out, widths, model, i);
    const SearchOptions sc = check_all_search(model, MemoryModel::sc);
    out << "\ncheck-all searches them with ";
    if (sc.search == kDefaultSearch)
        out << search_name(sc.search);
    else
        out << search_flags(sc).substr(1) << " under sc, " << search_name(kDefaultSearch)
            << " under lkmm";
    out << "\n";
}

} // namespace lockcheck::detail::cli
