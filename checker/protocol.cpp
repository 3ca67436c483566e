// Look-ups on a protocol's tables.
#include "protocol.hpp"

namespace lockcheck::detail {

std::optional<std::size_t> Protocol::find_variant(const std::string& variant_name) const {
    for (std::size_t i = 0; i < variants.size(); ++i)
        if (variants[i].name == variant_name) return i;
    return std::nullopt;
}

ParameterValues Protocol::default_values() const {
    ParameterValues values;
    for (const Parameter& p : parameters)
        values.push_back(p.default_value);
    return values;
}

} // namespace lockcheck::detail
