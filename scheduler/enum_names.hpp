// An enum's names kept as a table indexed by its values, and the look-up from a name back to
// the value: the one mechanism behind violation kinds, property kinds and judgements.
#pragma once

#include <cstddef>
#include <iterator>
#include <string_view>

namespace lockcheck::detail {

// Sets `value` to the enumerator whose name in `names` is `name`; false if none is.
template <class Enum, class Names>
bool parse_enum_name(const Names& names, std::string_view name, Enum& value) {
    for (std::size_t i = 0; i < std::size(names); ++i)
        if (names[i] == name) {
            value = static_cast<Enum>(i);
            return true;
        }
    return false;
}

} // namespace lockcheck::detail
