// A random walk through the schedules: no state between steps but the generator.
#include "random_walk.hpp"

#include <bit>

namespace lockcheck {

std::uint32_t RandomWalk::below(std::uint32_t n) {
    const auto wide = static_cast<unsigned __int128>(random_()) * n;
    return static_cast<std::uint32_t>(wide >> 64);
}

TaskId RandomWalk::pick(std::uint32_t, TaskSet enabled, const Execution&) {
    // The k-th enabled task, k uniform among them.
    for (std::uint32_t k = below(static_cast<std::uint32_t>(std::popcount(enabled))); k; --k)
        enabled &= enabled - 1;
    return lowest(enabled);
}

std::uint32_t RandomWalk::choose(std::uint32_t, std::uint32_t n) {
    return below(n);
}

} // namespace lockcheck
