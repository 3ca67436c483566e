// Linear probing on the fingerprint's first word, which is already well mixed.
#include "state_table.hpp"

namespace lockcheck {

namespace {
constexpr std::size_t kFirstSlots = 1 << 12;

Fingerprint stored_key(Fingerprint f) {
    return f == Fingerprint{} ? Fingerprint{0, 1} : f;
}
} // namespace

StateTable::StateTable(std::size_t max_bytes) : slots_(kFirstSlots), max_bytes_(max_bytes) {}

StateTable::Found StateTable::insert(Fingerprint f) {
    const Fingerprint key = stored_key(f);
    std::size_t mask = slots_.size() - 1;
    std::size_t i = key.a & mask;
    while (!(slots_[i].key == Fingerprint{})) {
        if (slots_[i].key == key) return {&slots_[i], false};
        i = (i + 1) & mask;
    }
    if (2 * (count_ + 1) > slots_.size()) {
        if (max_bytes_ && 2 * bytes() > max_bytes_) {
            full_ = true;
            return {nullptr, false};
        }
        grow();
        mask = slots_.size() - 1;
        i = key.a & mask;
        while (!(slots_[i].key == Fingerprint{}))
            i = (i + 1) & mask;
    }
    slots_[i].key = key;
    ++count_;
    return {&slots_[i], true};
}

void StateTable::grow() {
    std::vector<Entry> old(slots_.size() * 2);
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const Entry& e : old) {
        if (e.key == Fingerprint{}) continue;
        std::size_t i = e.key.a & mask;
        while (!(slots_[i].key == Fingerprint{}))
            i = (i + 1) & mask;
        slots_[i] = e;
    }
}

} // namespace lockcheck
