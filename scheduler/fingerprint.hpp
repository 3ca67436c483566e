// Fingerprint: a 128-bit hash of an execution's state (its objects, its tasks' positions), by
// which a stateful search recognizes a state it explored before. StateHasher builds one from
// the state's fields in a fixed order. Two lanes mixed with different constants make a
// collision between two distinct states of one search about n^2 / 2^129 likely for n states:
// 10^9 states give 1.5e-21.
#pragma once

#include <cstdint>

namespace lockcheck::detail {

struct Fingerprint {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
};

class StateHasher {
  public:
    StateHasher() = default;
    explicit StateHasher(Fingerprint seed) : a_(seed.a), b_(seed.b) {}

    // Order matters: add(1), add(2) differs from add(2), add(1).
    // The constants keep a zero from mapping a zero state to itself: every value added moves
    // both lanes.
    void add(std::uint64_t v) {
        a_ = mix((a_ ^ v) + 0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL);
        b_ = mix((b_ + v) ^ 0xc2b2ae3d27d4eb4fULL, 0x94d049bb133111ebULL);
    }
    void add(Fingerprint f) {
        add(f.a);
        add(f.b);
    }
    Fingerprint result() const {
        return {mix(a_ + 1, 0xff51afd7ed558ccdULL), mix(b_ ^ a_, 0xc4ceb9fe1a85ec53ULL)};
    }

  private:
    // A multiply-xorshift round (the finalizer of MurmurHash3's 64-bit variant): every input
    // bit reaches every output bit.
    static std::uint64_t mix(std::uint64_t x, std::uint64_t k) {
        x ^= x >> 33;
        x *= k;
        x ^= x >> 29;
        x *= 0x94d049bb133111ebULL;
        x ^= x >> 32;
        return x;
    }

    std::uint64_t a_ = 0x243f6a8885a308d3ULL;
    std::uint64_t b_ = 0x13198a2e03707344ULL;
};

} // namespace lockcheck::detail
