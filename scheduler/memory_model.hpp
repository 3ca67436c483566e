// MemoryModel: which memory model an execution's shared accesses follow (--memory-model).
#pragma once

#include <cstdint>
#include <string_view>

namespace lockcheck::detail {

enum class MemoryModel : std::uint8_t {
    sc,   // sequential consistency: every read sees the last write
    lkmm, // the Linux kernel memory model (model/weak_memory.hpp)
};

// As --memory-model spells it.
constexpr const char* memory_model_name(MemoryModel model) {
    return model == MemoryModel::lkmm ? "lkmm" : "sc";
}
// The model `name` spells (sc for any other name: callers accept only the two).
constexpr MemoryModel memory_model_named(std::string_view name) {
    return name == memory_model_name(MemoryModel::lkmm) ? MemoryModel::lkmm : MemoryModel::sc;
}

} // namespace lockcheck::detail
