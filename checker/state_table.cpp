// Linear probing on the fingerprint's first word, which is already well mixed, in address
// space reserved for the cap and committed as the table doubles (as scheduler/arena.cpp does).
#include "state_table.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <new>

namespace lockcheck::detail {

namespace {
constexpr std::size_t kFirstSlots = 1 << 12;
// Without a cap, the address space reserved: past it the table is full.
constexpr std::size_t kUncappedBytes = std::size_t{1} << 40;
// What one wide sleep set takes in its hash node: the pair, the next pointer, the cached
// hash and the bucket's pointer, about.
constexpr std::size_t kWideNodeBytes = 48;

// Makes slots [from, to) of `slots` usable (zero, so free); false if memory is short. The
// reservation starts on a page, and the pages before `from` are usable already.
bool commit(StateTable::Entry* slots, std::size_t from, std::size_t to) {
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<std::uintptr_t>(slots + from) / page * page;
    const auto end = reinterpret_cast<std::uintptr_t>(slots + to);
    return ::mprotect(reinterpret_cast<void*>(begin), end - begin, PROT_READ | PROT_WRITE) == 0;
}
} // namespace

// A cap below the first table's size is the table's size (a power of two, at least 4 slots).
// Address space is only reserved (PROT_NONE, MAP_NORESERVE): nothing is committed or counted
// until the table grows into it; where even that is refused, a smaller reservation is the cap.
StateTable::StateTable(std::size_t max_bytes) {
    std::size_t slots = kFirstSlots;
    while (max_bytes && slots > 4 && slots * sizeof(Entry) > max_bytes)
        slots /= 2;
    std::size_t reserve = std::max(max_bytes ? max_bytes : kUncappedBytes, slots * sizeof(Entry));
    for (; reserve >= slots * sizeof(Entry); reserve /= 2) {
        void* p =
            ::mmap(nullptr, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) continue;
        // Probes land anywhere in the table: in 2 MB pages (transparent huge pages, where the
        // system gives them on request; a refusal changes nothing) they miss the TLB far less,
        // and fault far less often.
        ::madvise(p, reserve, MADV_HUGEPAGE);
        slots_ = static_cast<Entry*>(p);
        reserved_ = reserve / sizeof(Entry);
        break;
    }
    if (!slots_ || !commit(slots_, 0, slots)) throw std::bad_alloc();
    size_ = slots;
}

StateTable::~StateTable() {
    ::munmap(slots_, reserved_ * sizeof(Entry));
}

StateTable::Found StateTable::insert(Fingerprint f) {
    const std::uint64_t key = f.a;
    auto check = static_cast<std::uint32_t>(f.b);
    if (key == 0 && check == 0) check = 1; // kept bits all zero: stored as another state's
    std::size_t mask = size_ - 1;
    std::size_t i = key & mask;
    for (; !slots_[i].free(); i = (i + 1) & mask)
        if (slots_[i].key_ == key && slots_[i].check_ == check) return {&slots_[i], false};
    if (4 * (count_ + 1) > 3 * size_) {
        if (!room()) return {nullptr, false};
        mask = size_ - 1;
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
    if (!e.wide()) return e.word_ & ((1u << Entry::kSleepBits) - 1);
    return wide_.at(Fingerprint{e.key_, e.check_});
}

void StateTable::set_sleep(Entry& e, TaskSet sleep) {
    const std::uint32_t depth_bits = e.word_ >> Entry::kDepthShift << Entry::kDepthShift;
    if (e.wide()) wide_.erase(Fingerprint{e.key_, e.check_});
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
    return size_ * sizeof(Entry) + wide_.size() * kWideNodeBytes;
}

bool StateTable::room() {
    if (full_) return false;
    if (2 * size_ > reserved_ || !commit(slots_, size_, 2 * size_)) {
        full_ = true;
        return false;
    }
    rehash_doubled();
    return true;
}

// With the key's low bits as its home, an entry at home h of the old table has home h or h +
// old size in the doubled one. The old slots are taken out and put back in order from one that
// is free, so each cluster from its start, and no probe crosses an entry still to move (whose
// slot could empty under it, losing what lies past it): an entry that stays in the lower half
// lands at or before its old slot, past slots already moved; one that goes up probes the
// upper half, which holds only entries already moved, and cannot run past the table's end
// before the old slots have wrapped round (those moved came from slots at or past their homes,
// so from any home to the end there are more slots than them); after that, a probe that runs
// past the end lands at or before its own old slot again.
void StateTable::rehash_doubled() {
    const std::size_t old = size_;
    size_ *= 2;
    const std::size_t mask = size_ - 1;
    std::size_t start = 0;
    while (!slots_[start].free()) // there is a free slot: the table is at most 3/4 full
        ++start;
    for (std::size_t k = 1; k <= old; ++k) {
        Entry& from = slots_[(start + k) & (old - 1)];
        if (from.free()) continue;
        const Entry e = from;
        from = Entry{};
        std::size_t i = e.key_ & mask;
        while (!slots_[i].free())
            i = (i + 1) & mask;
        slots_[i] = e;
    }
}

} // namespace lockcheck::detail
