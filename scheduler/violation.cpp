// Names of violation kinds, as reports print them and variant tables declare them.
#include "violation.hpp"

#include <array>

namespace lockcheck {

namespace {
constexpr std::array<std::string_view, 18> kKindNames = {
    "check-failed", "invariant",       "final-check",       "deadlock",  "hang",
    "lock-misuse",  "sleep-in-atomic", "lock-held-at-exit", "exception", "stack-overflow",
    "no-progress",  "lock-order",      "list-corruption",   "preempt",   "data-race",
    "refcount",     "use-after-free",  "invalid-free",
};
static_assert(kKindNames.size() == static_cast<std::size_t>(ViolationKind::invalid_free) + 1,
              "a name for every kind");
} // namespace

std::string_view kind_name(ViolationKind kind) {
    return kKindNames[static_cast<int>(kind)];
}

bool parse_kind(std::string_view name, ViolationKind& kind) {
    for (std::size_t i = 0; i < kKindNames.size(); ++i) {
        if (kKindNames[i] == name) {
            kind = static_cast<ViolationKind>(i);
            return true;
        }
    }
    return false;
}

} // namespace lockcheck
