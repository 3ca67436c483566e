// StateTable: the states a stateful search has explored, by fingerprint, each with the fewest
// steps it was reached in and the sleep set it was explored with (a later visit with a smaller
// sleep set has tasks left to run from it). Open addressing in one array of 16-byte entries
// that doubles in place when three quarters full, inside address space reserved up to a cap
// (so that a doubling needs no second array), until the cap or memory runs out: past it
// nothing more is stored and the search goes on without caching new states (still exact, only
// slower), which the run reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "scheduler/fingerprint.hpp"
#include "scheduler/task_set.hpp"

namespace lockcheck::detail {

// The state table's cap: 4 GiB, 268 million slots, 201 million states. Past it the search goes on
// exact without storing new states, and the summary's states row says FULL.
inline constexpr std::size_t kStateTableBytes = std::size_t{4} << 30;

class StateTable {
  public:
    // 96 bits of the fingerprint are kept: two distinct states of one search share them with
    // probability about n^2 / 2^97 for n states (6e-12 for a billion). The rest of the entry
    // packs the depth and the sleep set of the tasks most models have; a sleep set with a task
    // past them is kept beside the array (wide_).
    class Entry {
      public:
        std::uint32_t depth() const { return static_cast<std::uint32_t>(word_ >> kDepthShift); }

      private:
        friend class StateTable;
        bool free() const { return key_ == 0 && check_ == 0; }
        bool wide() const { return word_ >> kWideBit & 1; }
        static constexpr int kSleepBits = 11;  // tasks 0-10 inline
        static constexpr int kWideBit = 11;    // the sleep set is in wide_
        static constexpr int kDepthShift = 12; // 20 bits: --depth and --max-steps are at most 10^6
        static constexpr std::uint32_t kMaxDepth = (1u << 20) - 1;
        std::uint64_t key_ = 0;   // the fingerprint's first word; with check_ 0, a free slot
        std::uint32_t check_ = 0; // its next 32 bits
        std::uint32_t word_ = 0;  // depth << 12 | wide << 11 | the inline sleep set
    };
    static_assert(sizeof(Entry) == 16);

    // `max_bytes`: the most the table may take (0: as much as memory allows).
    explicit StateTable(std::size_t max_bytes = 0);
    ~StateTable();
    StateTable(const StateTable&) = delete;
    StateTable& operator=(const StateTable&) = delete;

    // The entry of `f`, and whether it was just added. Null when `f` is new and the table is
    // full.
    struct Found {
        Entry* entry;
        bool added;
    };
    Found insert(Fingerprint f);

    TaskSet sleep(const Entry& e) const;
    // Records that `e` was explored `depth` steps deep with `sleep` asleep. A depth past 20
    // bits (beyond the command line's bounds) is kept as 2^20 - 1: a later visit less deep
    // explores the state again, as it must.
    void explored(Entry& e, std::uint32_t depth, TaskSet sleep);
    // Narrows the tasks not run from `e` to those also in `sleep`.
    void narrow_sleep(Entry& e, TaskSet sleep);

    std::uint64_t size() const { return count_; }
    // The array, and the wide sleep sets at what a hash node of theirs takes.
    std::size_t bytes() const;
    // Whether a state could not be stored because the table reached its cap.
    bool full() const { return full_; }

  private:
    // Whether the table can take one more entry, growing it if need be.
    bool room();
    // Doubles the table where it is: every entry moves to its slot in the larger table.
    void rehash_doubled();
    void set_sleep(Entry& e, TaskSet sleep);

    Entry* slots_ = nullptr;   // the table: its first size_ of reserved_ slots in use
    std::size_t size_ = 0;     // a power of two
    std::size_t reserved_ = 0; // slots of address space reserved, committed up to size_
    // The sleep sets with a task past the inline bits, by their entry's key and check.
    std::unordered_map<Fingerprint, TaskSet, FingerprintHash> wide_;
    std::uint64_t count_ = 0;
    bool full_ = false;
};

} // namespace lockcheck::detail
