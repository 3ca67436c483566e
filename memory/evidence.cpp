// The catalogue of writes and the reads before them, and the independence it gives evidence of.
#include "evidence.hpp"

namespace lockcheck::detail::memory {

void Catalogue::record(const Made& made, std::span<const Seen> reads) {
    std::vector<Seen> history(reads.begin(), reads.end());
    const std::lock_guard lock(mutex_);
    std::set<std::vector<Seen>>& seen = writes_[made];
    if (!seen.insert(std::move(history)).second) return;
    if (seen.size() <= kCap) {
        ++entries_;
        return;
    }
    seen.erase(std::prev(seen.end()));
    ++dropped_;
}

std::uint64_t Catalogue::independent(const Made& made, std::span<const Seen> reads) const {
    const auto found = writes_.find(made);
    if (found == writes_.end()) return 0;
    std::uint64_t mask = 0;
    for (const std::vector<Seen>& other : found->second) {
        if (other.size() != reads.size()) continue;
        // The one read whose value differed, at the same locations everywhere.
        std::size_t differs = reads.size();
        bool fits = true;
        for (std::size_t i = 0; i < reads.size() && fits; ++i) {
            if (other[i] == reads[i]) continue;
            fits = other[i].loc == reads[i].loc && differs == reads.size();
            differs = i;
        }
        const std::size_t back = reads.size() - 1 - differs;
        if (fits && differs < reads.size() && back < 64) mask |= std::uint64_t{1} << back;
    }
    return mask;
}

bool Catalogue::any_independent() const {
    for (const auto& [made, histories] : writes_)
        for (const std::vector<Seen>& reads : histories)
            if (independent(made, reads) != 0) return true;
    return false;
}

} // namespace lockcheck::detail::memory
