// The model/variant table as `lockcheck list` prints it.
#include "list_command.hpp"

#include <ostream>

#include "examples/registry.hpp"
#include "protocols/registry.hpp"

namespace lockcheck::cli {

namespace {
std::string expected(const Expectation& e) {
    if (!e.expects_violation) return "verified";
    return "violation (" + std::string(kind_name(e.kind)) + ")";
}

std::string pad(const std::string& s, std::size_t width) {
    return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

void print_models(std::ostream& out, const std::vector<Protocol>& models) {
    for (const Protocol& p : models) {
        for (std::size_t i = 0; i < p.variants.size(); ++i) {
            const Variant& v = p.variants[i];
            std::string name = v.name + (i == p.default_variant ? " (default)" : "");
            out << pad(p.name, 12) << pad(name, 30) << pad(expected(v.expect), 26) << v.summary
                << "\n";
        }
    }
}
} // namespace

void print_list(std::ostream& out) {
    print_models(out, protocols::all());
    out << "\nexamples: the classic DPOR benchmarks (docs/dpor.md, \"Classic benchmarks\")\n";
    print_models(out, examples::all());
}

} // namespace lockcheck::cli
