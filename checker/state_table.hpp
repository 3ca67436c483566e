// StateTable: the states a stateful search has explored, by fingerprint, each with the fewest
// steps it was reached in and the sleep set it was explored with (a later visit with a smaller
// sleep set has tasks left to run from it). Open addressing in one array that doubles when
// half full, up to a cap: past it nothing more is stored and the search goes on without
// caching new states (still exact, only slower), which the run reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scheduler/fingerprint.hpp"
#include "scheduler/task_set.hpp"

namespace lockcheck {

class StateTable {
  public:
    struct Entry {
        Fingerprint key;         // {0, 0}: a free slot (a state hashing to it is stored as {0, 1})
        TaskSet sleep = 0;       // the tasks not run from it: covered by an equivalent order
        std::uint32_t depth = 0; // the fewest steps it was reached in
    };

    // `max_bytes`: the most the table may take (0: no cap).
    explicit StateTable(std::size_t max_bytes = 0);

    // The entry of `f`, and whether it was just added. Null when `f` is new and the table is
    // at its cap.
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
    void grow();

    std::vector<Entry> slots_;
    std::uint64_t count_ = 0;
    std::size_t max_bytes_;
    bool full_ = false;
};

} // namespace lockcheck
