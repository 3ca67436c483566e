// MemoryModel: which memory model an execution's shared accesses follow (--memory-model).
#pragma once

#include <cstdint>

namespace lockcheck {

enum class MemoryModel : std::uint8_t {
    sc,   // sequential consistency: every read sees the last write
    lkmm, // the Linux kernel memory model (model/weak_memory.hpp)
};

// As --memory-model spells it.
constexpr const char* memory_model_name(MemoryModel model) {
    return model == MemoryModel::lkmm ? "lkmm" : "sc";
}

} // namespace lockcheck
