// struct extent_io_tree: btrfs's byte-range locks. lock_extent(tree, start, end) blocks while
// any overlapping range is locked, by anyone (the holder too: that is a self-deadlock, which
// is reported). Ranges have no owner in btrfs (I/O completion unlocks them), so any task may
// unlock_extent() a range that is locked, and a task may exit holding one.
#pragma once

#include <array>
#include <cstdint>

#include "task.hpp"

namespace lockcheck::detail {

struct extent_io_tree final : Object {
    static constexpr int kMaxRanges = 16;
    struct range {
        std::uint64_t start;
        std::uint64_t end; // inclusive, as btrfs ranges are
        const task_struct* locker;
    };

    explicit extent_io_tree(std::string name) : Object(std::move(name)) {}
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override {
        h.add(static_cast<std::uint64_t>(nr));
        for (int i = 0; i < nr; ++i) {
            h.add(ranges[i].start);
            h.add(ranges[i].end);
            h.add(ranges[i].locker ? ranges[i].locker->id() : kNoTask);
        }
    }
    // The task that locked the range overlapping the one `waiter` is blocked on.
    const Task* holder_for(const Task& waiter) const override;
    const range* overlapping(std::uint64_t start, std::uint64_t end) const;

    std::array<range, kMaxRanges> ranges{};
    int nr = 0;
};

void lock_extent(extent_io_tree* tree, std::uint64_t start, std::uint64_t end,
                 std::source_location loc = std::source_location::current());
void unlock_extent(extent_io_tree* tree, std::uint64_t start, std::uint64_t end,
                   std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
