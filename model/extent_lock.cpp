// Range locking after lock_extent_bits()/unlock_extent() in fs/btrfs/extent_io.c, with the
// waiting done as a blocked scheduling point rather than a loop over extent states.
#include "extent_lock.hpp"

#include "lock_misuse.hpp"
#include "sched.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {
bool range_free(const Object* obj, const Task& t) {
    const OpArgs& a = t.pending().args;
    return !static_cast<const extent_io_tree*>(obj)->overlapping(
        static_cast<std::uint64_t>(a.v[0]), static_cast<std::uint64_t>(a.v[1]));
}

std::string span(std::uint64_t start, std::uint64_t end) {
    return std::to_string(start) + "-" + std::to_string(end);
}
} // namespace

const extent_io_tree::range* extent_io_tree::overlapping(std::uint64_t start,
                                                         std::uint64_t end) const {
    for (int i = 0; i < nr; ++i)
        if (ranges[i].start <= end && start <= ranges[i].end) return &ranges[i];
    return nullptr;
}

const Task* extent_io_tree::holder_for(const Task& waiter) const {
    const OpArgs& a = waiter.pending().args;
    const range* r =
        overlapping(static_cast<std::uint64_t>(a.v[0]), static_cast<std::uint64_t>(a.v[1]));
    return r ? r->locker : nullptr;
}

void extent_io_tree::describe(std::string& out) const {
    if (nr == 0) {
        out += "no range locked";
        return;
    }
    out += "locked:";
    for (int i = 0; i < nr; ++i)
        out += " " + span(ranges[i].start, ranges[i].end) + " by " + ranges[i].locker->name();
}

void lock_extent(extent_io_tree* tree, std::uint64_t start, std::uint64_t end,
                 std::source_location loc) {
    might_sleep("lock_extent", tree, loc);
    task_struct* me = current();
    const extent_io_tree::range* mine = tree->overlapping(start, end);
    if (mine && mine->locker == me) report_recursive_locking("lock_extent", tree, loc);
    const OpArgs args{{static_cast<std::int64_t>(start), static_cast<std::int64_t>(end)}, 2, true};
    this_execution().visible("lock_extent", tree, loc, &range_free, args);
    count_sleep_if_blocked(tree);
    if (tree->nr == extent_io_tree::kMaxRanges) {
        this_execution().table_full("locked ranges per extent_io_tree", extent_io_tree::kMaxRanges,
                                    true);
        return;
    }
    // __set_extent_bit(EXTENT_LOCKED) under tree->lock: what the range's last owner did before
    // unlock_extent(), this one sees.
    if (weak_memory::on()) [[unlikely]]
        weak_memory::locked_update(*tree, tree->nr, tree->nr + 1);
    tree->ranges[tree->nr++] = {start, end, me};
}

void unlock_extent(extent_io_tree* tree, std::uint64_t start, std::uint64_t end,
                   std::source_location loc) {
    const OpArgs args{{static_cast<std::int64_t>(start), static_cast<std::int64_t>(end)}, 2, true};
    this_execution().visible("unlock_extent", tree, loc, nullptr, args);
    for (int i = 0; i < tree->nr; ++i) {
        if (tree->ranges[i].start != start || tree->ranges[i].end != end) continue;
        // __clear_extent_bit() under tree->lock. Its wake_up(&state->wq) is a full barrier when
        // it wakes a waiter, none here for the reason complete() has none: a task blocked in
        // lock_extent() may not have queued itself yet.
        if (weak_memory::on()) [[unlikely]]
            weak_memory::locked_update(*tree, tree->nr, tree->nr - 1);
        tree->ranges[i] = tree->ranges[--tree->nr];
        return;
    }
    this_execution().fail(ViolationKind::lock_misuse, "bad-unlock",
                          "bad unlock balance detected: " + current()->name() +
                              " calls unlock_extent(" + span(start, end) + ", " + tree->name() +
                              ") but that range is not locked",
                          loc);
}

} // namespace lockcheck::detail
