// A random walk through the schedules: no state between steps but the generator.
#include "random_walk.hpp"

#include <bit>

namespace lockcheck::detail {

TaskId RandomWalk::pick(std::uint32_t, TaskSet enabled, const Execution&) {
    // The k-th enabled task, k uniform among them.
    for (std::uint32_t k = random_.below(static_cast<std::uint32_t>(std::popcount(enabled))); k;
         --k)
        enabled &= enabled - 1;
    return lowest(enabled);
}

std::uint32_t RandomWalk::choose(std::uint32_t, std::uint32_t n) {
    return random_.below(n);
}

} // namespace lockcheck::detail
