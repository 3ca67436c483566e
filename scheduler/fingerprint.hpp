// Fingerprint: a 128-bit hash of an execution's state (its objects, its tasks' positions), by
// which a stateful search recognizes a state it explored before. StateHasher builds one from
// the state's fields in a fixed order: it only collects them, and hashes what it collected with
// XXH3's 128-bit hash (libxxhash) when the block is full and at the end, each block seeded with
// the hash of the blocks before. A collision between two distinct states of one search is
// about n^2 / 2^129 likely for n states: 10^9 states give 1.5e-21.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lockcheck::detail {

struct Fingerprint {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
};

// For hash maps keyed by fingerprint: its first word is already well mixed.
struct FingerprintHash {
    std::size_t operator()(const Fingerprint& f) const { return f.a; }
};

class StateHasher {
  public:
    StateHasher() = default;
    explicit StateHasher(Fingerprint seed) { add(seed); }
    explicit StateHasher(bool lists_as_sets) : lists_as_sets_(lists_as_sets) {}

    // Whether a list adds the set of its entries instead of their order (Execution::Limits).
    bool lists_as_sets() const { return lists_as_sets_; }

    // Order matters: add(1), add(2) differs from add(2), add(1).
    void add(std::uint64_t v) {
        if (n_ == kBlock) [[unlikely]]
            flush();
        words_[n_++] = v;
    }
    void add(Fingerprint f) {
        add(f.a);
        add(f.b);
    }
    Fingerprint result() const;

  private:
    // Words collected before they are hashed: 512 bytes on the stack, which XXH3 hashes in
    // one pass (a whole state takes several blocks, a history fold one).
    static constexpr unsigned kBlock = 64;
    // Hashes the full block into the seed and the block's first word, which the next one
    // starts with.
    void flush();

    std::uint64_t seed_ = 0x243f6a8885a308d3ULL;
    bool lists_as_sets_ = false;
    unsigned n_ = 0;
    std::uint64_t words_[kBlock];
};

} // namespace lockcheck::detail
