// plain_state(field): a plain C++ field that tasks share without a primitive (a log_transid
// read and written under log_mutex, ghost state an invariant reads). The search never sees its
// accesses, which are no steps; a stateful search (--state-cache) must see its value, or it
// would take two states that differ only there for one. Declare each such field at set-up.
// Integers, enums, bools, a task pointer (by task), and vectors of those or of structs of
// integers without padding (compared byte by byte) are what a model's plain state is made of.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "task.hpp"

namespace lockcheck::detail {

template <class T>
requires std::is_integral_v<T> || std::is_enum_v<T>
void plain_state(const T& field) {
    this_execution().add_plain_state(
        [&field](StateHasher& h) { h.add(static_cast<std::uint64_t>(field)); });
}

inline void plain_state(const task_struct* const& field) {
    this_execution().add_plain_state(
        [&field](StateHasher& h) { h.add(field ? field->id() : kNoTask); });
}

template <class T>
requires std::has_unique_object_representations_v<T>
void plain_state(const std::vector<T>& field) {
    this_execution().add_plain_state([&field](StateHasher& h) {
        h.add(field.size());
        for (const T& element : field) {
            std::uint64_t word = 0;
            const auto* bytes = reinterpret_cast<const unsigned char*>(&element);
            for (std::size_t i = 0; i < sizeof(T); i += sizeof word) {
                word = 0;
                std::memcpy(&word, bytes + i, std::min(sizeof word, sizeof(T) - i));
                h.add(word);
            }
        }
    });
}

} // namespace lockcheck::detail
