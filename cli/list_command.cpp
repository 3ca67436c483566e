// The model/variant table as `lockcheck list` prints it.
#include "list_command.hpp"

#include <algorithm>
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
    explicit Columns(const std::vector<Protocol>& models) {
        for (const Protocol& p : models)
            for (std::size_t i = 0; i < p.variants.size(); ++i) {
                model = std::max(model, p.name.size() + 2);
                variant = std::max(variant, variant_name(p, i).size() + 2);
                expected = std::max(expected, cli::expected(p.variants[i].expect).size() + 2);
            }
    }
};

void print_models(std::ostream& out, const Columns& w, std::vector<Protocol>::const_iterator begin,
                  std::vector<Protocol>::const_iterator end) {
    for (const Protocol& p : std::ranges::subrange(begin, end))
        for (std::size_t i = 0; i < p.variants.size(); ++i)
            out << pad(p.name, w.model) << pad(variant_name(p, i), w.variant)
                << pad(expected(p.variants[i].expect), w.expected) << p.variants[i].summary << "\n";
}
} // namespace

void print_list(std::ostream& out) {
    const std::vector<Protocol>& models = registered_models();
    const auto benchmarks =
        std::find_if(models.begin(), models.end(), [](const Protocol& p) { return p.benchmark; });
    const Columns widths(models);
    print_models(out, widths, models.begin(), benchmarks);
    if (benchmarks == models.end()) return;
    out << "\nexamples: the classic DPOR benchmarks (docs/dpor.md, \"Classic benchmarks\")\n";
    print_models(out, widths, benchmarks, models.end());
}

} // namespace lockcheck::cli
