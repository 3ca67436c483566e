// Evidence of independence: what the search saw tasks write under lkmm, and after reading what.
// A write that a task made the same way after reading two different values at one read does
// not depend on that read (docs/memory-model.md, "Load buffering"): linux-kernel.cat's
// dependencies then leave the pair out (Event::independent).
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <vector>

namespace lockcheck::detail::memory {

// A location as it is named in every execution (its object's number, not the graph's
// location, whose number depends on which task touched it first); kUnnamed: none is stable.
inline constexpr std::uint64_t kUnnamed = 0;

// A read of a task: where, and the value it read.
struct Seen {
    std::uint64_t loc = kUnnamed;
    std::int64_t value = 0;
    auto operator<=>(const Seen&) const = default;
};

// A write: the task's n-th write (from 0) of the location, and its value.
struct Made {
    std::uint16_t task = 0;
    std::uint64_t loc = kUnnamed;
    std::uint32_t nth = 0;
    std::int64_t value = 0;
    auto operator<=>(const Made&) const = default;
};

// The search-wide record: each write made, with the reads its task made before it, in program
// order. At most kCap read histories per write are kept, the least ones (so the record is the
// same whatever order the executions ran in, on any number of threads).
class Catalogue {
  public:
    static constexpr std::size_t kCap = 16;

    // Records `made` after `reads`; thread-safe.
    void record(const Made& made, std::span<const Seen> reads);
    // The reads of `reads` (the task's, before `made`) that `made` is independent of: bit k for
    // reads[size - 1 - k] (Event::independent), when the catalogue holds `made` after the same
    // reads but for that one, which read another value. Only the last 64 reads count.
    std::uint64_t independent(const Made& made, std::span<const Seen> reads) const;

    // Whether some write was recorded after reads that differ in one value only: evidence that
    // it is independent of that read, which a further round would use.
    bool any_independent() const;
    // The number of (write, reads) entries, and how many the cap left out.
    std::size_t size() const { return entries_; }
    std::uint64_t dropped() const { return dropped_; }
    bool operator==(const Catalogue& o) const { return writes_ == o.writes_; }
    // The writes recorded, in order, for reads of a write not made yet.
    const std::map<Made, std::set<std::vector<Seen>>>& writes() const { return writes_; }

  private:
    std::mutex mutex_;
    std::map<Made, std::set<std::vector<Seen>>> writes_;
    std::size_t entries_ = 0;
    std::uint64_t dropped_ = 0;
};

} // namespace lockcheck::detail::memory
