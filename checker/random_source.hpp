// RandomSource: the one seeded generator a randomized search draws from. std::mt19937_64's
// output is fixed by the C++ standard, and the reduction to a range is ours, so the same seed
// gives the same numbers on every machine and library.
#pragma once

#include <cstdint>
#include <random>

namespace lockcheck::detail {

class RandomSource {
  public:
    explicit RandomSource(std::uint64_t seed) : generator_(seed) {}
    // A uniform value in [0, n), n > 0 (Lemire's multiply-and-shift; the bias is below 2^-58).
    std::uint32_t below(std::uint32_t n) {
        const auto wide = static_cast<unsigned __int128>(generator_()) * n;
        return static_cast<std::uint32_t>(wide >> 64);
    }

  private:
    std::mt19937_64 generator_;
};

} // namespace lockcheck::detail
