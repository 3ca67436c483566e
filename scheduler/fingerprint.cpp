// StateHasher's hashing (fingerprint.hpp): XXH3's 128-bit hash, inlined here so that neither
// the headers a model includes nor a model's build need libxxhash.
#include "fingerprint.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace lockcheck::detail {

Fingerprint StateHasher::result() const {
    const XXH128_hash_t h = XXH3_128bits_withSeed(words_, n_ * sizeof(std::uint64_t), seed_);
    return {h.low64, h.high64};
}

void StateHasher::flush() {
    const XXH128_hash_t h = XXH3_128bits_withSeed(words_, sizeof words_, seed_);
    seed_ = h.low64;
    words_[0] = h.high64;
    n_ = 1;
}

} // namespace lockcheck::detail
