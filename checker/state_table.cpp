// Linear probing on the fingerprint's first word, which is already well mixed.
#include "state_table.hpp"

#include <algorithm>
#include <new>

namespace lockcheck::detail {

namespace {
constexpr std::size_t kFirstSlots = 1 << 12;
// What one wide sleep set takes in its hash node: the pair, the next pointer, the cached
// hash and the bucket's pointer, about.
constexpr std::size_t kWideNodeBytes = 48;
} // namespace

// A cap below the first table's size is the table's size (a power of two, at least 4 slots).
StateTable::StateTable(std::size_t max_bytes) : max_bytes_(max_bytes) {
    std::size_t slots = kFirstSlots;
    while (max_bytes && slots > 4 && slots * sizeof(Entry) > max_bytes)
        slots /= 2;
    slots_.resize(slots);
}

StateTable::Found StateTable::insert(Fingerprint f) {
    const std::uint64_t key = f.a;
    auto check = static_cast<std::uint32_t>(f.b);
    if (key == 0 && check == 0) check = 1; // kept bits all zero: stored as another state's
    std::size_t mask = slots_.size() - 1;
    std::size_t i = key & mask;
    for (; !slots_[i].free(); i = (i + 1) & mask)
        if (slots_[i].key_ == key && slots_[i].check_ == check) return {&slots_[i], false};
    if (4 * (count_ + 1) > 3 * slots_.size()) {
        if (!room()) return {nullptr, false};
        mask = slots_.size() - 1;
        for (i = key & mask; !slots_[i].free(); i = (i + 1) & mask) {
        }
    }
    slots_[i].key_ = key;
    slots_[i].check_ = check;
    slots_[i].word_ = 0;
    ++count_;
    return {&slots_[i], true};
}

TaskSet StateTable::sleep(const Entry& e) const {
    if (!(e.word_ >> Entry::kWideBit & 1)) return e.word_ & ((1u << Entry::kSleepBits) - 1);
    return wide_.at(Fingerprint{e.key_, e.check_});
}

void StateTable::set_sleep(Entry& e, TaskSet sleep) {
    const std::uint32_t depth_bits = e.word_ >> Entry::kDepthShift << Entry::kDepthShift;
    if (e.word_ >> Entry::kWideBit & 1) wide_.erase(Fingerprint{e.key_, e.check_});
    if (sleep >> Entry::kSleepBits == 0) {
        e.word_ = depth_bits | static_cast<std::uint32_t>(sleep);
        return;
    }
    wide_[Fingerprint{e.key_, e.check_}] = sleep;
    e.word_ = depth_bits | 1u << Entry::kWideBit;
}

void StateTable::explored(Entry& e, std::uint32_t depth, TaskSet sleep) {
    const std::uint32_t kept = std::min(depth, Entry::kMaxDepth);
    e.word_ = (e.word_ & ((1u << Entry::kDepthShift) - 1)) | kept << Entry::kDepthShift;
    set_sleep(e, sleep);
}

void StateTable::narrow_sleep(Entry& e, TaskSet sleep) {
    set_sleep(e, this->sleep(e) & sleep);
}

std::size_t StateTable::bytes() const {
    return slots_.size() * sizeof(Entry) + wide_.size() * kWideNodeBytes;
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
        if (e.free()) continue;
        std::size_t i = e.key_ & mask;
        while (!slots_[i].free())
            i = (i + 1) & mask;
        slots_[i] = e;
    }
    return true;
}

} // namespace lockcheck::detail
