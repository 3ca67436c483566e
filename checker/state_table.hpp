// StateTable: the states a stateful search has explored, by fingerprint, each with the fewest
// steps it was reached in and the sleep set it was explored with (a later visit with a smaller
// sleep set has tasks left to run from it). Open addressing in one array of 24-byte entries
// that doubles when three quarters full, up to a cap (or until memory runs out): past it
// nothing more is stored and the search goes on without caching new states (still exact, only
// slower), which the run reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scheduler/fingerprint.hpp"
#include "scheduler/task_set.hpp"

namespace lockcheck::detail {

// The state table's cap: 4 GiB, 134 million states. Past it the search goes on exact without
// storing new states, and the summary's states row says FULL.
inline constexpr std::size_t kStateTableBytes = std::size_t{4} << 30;

class StateTable {
  public:
    // 96 bits of the fingerprint are kept: two distinct states of one search share them with
    // probability about n^2 / 2^97 for n states (6e-12 for a billion).
    struct Entry {
        std::uint64_t key = 0;   // with `check`: {0, 0} is a free slot (see stored())
        std::uint32_t check = 0; // the fingerprint's next 32 bits
        std::uint32_t depth = 0; // the fewest steps it was reached in
        TaskSet sleep = 0;       // the tasks not run from it: covered by an equivalent order
    };
    static_assert(sizeof(Entry) == 24);

    // `max_bytes`: the most the table may take (0: as much as memory allows).
    explicit StateTable(std::size_t max_bytes = 0);

    // The entry of `f`, and whether it was just added. Null when `f` is new and the table is
    // full.
    struct Found {
        Entry* entry;
        bool added;
    };
    Found insert(Fingerprint f);

    std::uint64_t size() const { return count_; }
    std::size_t bytes() const { return slots_.size() * sizeof(Entry); }
    // Whether a state could not be stored because the table reached its cap.
    bool full() const { return full_; }

  private:
    // Whether the table can take one more entry, growing it if need be.
    bool room();

    std::vector<Entry> slots_;
    std::uint64_t count_ = 0;
    std::size_t max_bytes_;
    bool full_ = false;
};

} // namespace lockcheck::detail
