// Linear probing on the fingerprint's first word, which is already well mixed.
#include "state_table.hpp"

#include <new>

namespace lockcheck::detail {

namespace {
constexpr std::size_t kFirstSlots = 1 << 12;

// The slot `e` of a table of mask + 1 slots starts probing at.
std::size_t home(const StateTable::Entry& e, std::size_t mask) {
    return e.key & mask;
}

bool free_slot(const StateTable::Entry& e) {
    return e.key == 0 && e.check == 0;
}

// The entry's key: a fingerprint whose kept bits are all zero is stored as another one.
StateTable::Entry stored(Fingerprint f) {
    StateTable::Entry e{f.a, static_cast<std::uint32_t>(f.b), 0, 0};
    if (free_slot(e)) e.check = 1;
    return e;
}
} // namespace

// A cap below the first table's size is the table's size (a power of two, at least 4 slots).
StateTable::StateTable(std::size_t max_bytes) : max_bytes_(max_bytes) {
    std::size_t slots = kFirstSlots;
    while (max_bytes && slots > 4 && slots * sizeof(Entry) > max_bytes)
        slots /= 2;
    slots_.resize(slots);
}

StateTable::Found StateTable::insert(Fingerprint f) {
    const Entry key = stored(f);
    std::size_t mask = slots_.size() - 1;
    std::size_t i = home(key, mask);
    for (; !free_slot(slots_[i]); i = (i + 1) & mask)
        if (slots_[i].key == key.key && slots_[i].check == key.check) return {&slots_[i], false};
    if (4 * (count_ + 1) > 3 * slots_.size()) {
        if (!room()) return {nullptr, false};
        mask = slots_.size() - 1;
        for (i = home(key, mask); !free_slot(slots_[i]); i = (i + 1) & mask) {
        }
    }
    slots_[i] = key;
    ++count_;
    return {&slots_[i], true};
}

bool StateTable::room() {
    if (full_) return false;
    const std::size_t size = slots_.size() * 2;
    if (max_bytes_ && size * sizeof(Entry) > max_bytes_) {
        full_ = true;
        return false;
    }
    std::vector<Entry> old;
    try {
        old.resize(size);
    } catch (const std::bad_alloc&) {
        full_ = true;
        return false;
    }
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const Entry& e : old) {
        if (free_slot(e)) continue;
        std::size_t i = home(e, mask);
        while (!free_slot(slots_[i]))
            i = (i + 1) & mask;
        slots_[i] = e;
    }
    return true;
}

} // namespace lockcheck::detail
