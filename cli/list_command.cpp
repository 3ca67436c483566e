// The model/variant table as `lockcheck list` prints it.
#include "list_command.hpp"

#include <ostream>

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
} // namespace

void print_list(std::ostream& out) {
    for (const Protocol& p : protocols::all()) {
        for (std::size_t i = 0; i < p.variants.size(); ++i) {
            const Variant& v = p.variants[i];
            std::string name = v.name + (i == p.default_variant ? " (default)" : "");
            out << pad(p.name, 12) << pad(name, 30) << pad(expected(v.expect), 26) << v.summary
                << "\n";
        }
    }
}

} // namespace lockcheck::cli
