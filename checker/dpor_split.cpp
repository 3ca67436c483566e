// Source DPOR on several threads (--jobs): handing the branches left at a branch point to a
// part of the search on another thread, and taking in what that part found.
//
// A part gets the path down to the branch point (its floor) and runs the branches left there
// in their order, which are the next ones one search would run there: later races only add
// branches after them. It runs every execution below as one search would, but for the races
// whose reversal belongs at or above its floor: those depend on what the search it came from
// (its giver) adds there meanwhile, so the part logs them. The giver goes on below the branch
// point and stops when it is back there. Once the part, and every part split from it, has
// run, the giver counts the branches as run, takes the accesses their steps made (sleep sets
// of later branches need them), settles the logged races in order and goes on: the state one
// search would have reached, so that the whole runs the same executions in the same order.
#include <cassert>
#include <functional>

#include "dfs_path.hpp"
#include "dpor.hpp"

namespace lockcheck::detail {

std::size_t Dpor::DeferredHash::operator()(const Deferred& d) const {
    std::size_t h = std::hash<std::uint64_t>{}(d.initials);
    for (std::uint64_t x : {std::uint64_t{d.runnable}, std::uint64_t{d.node}, std::uint64_t{d.from},
                            std::uint64_t{d.task}, std::uint64_t{d.kind == Deferred::Kind::add}})
        h = h * 1000003u ^ std::hash<std::uint64_t>{}(x);
    return h;
}

std::size_t Dpor::ReversalHash::operator()(const Reversal& r) const {
    std::size_t h = std::hash<std::uint64_t>{}(r.pending) ^ (std::size_t{r.node} << 16) ^ r.chosen;
    for (const WakeupStep& s : r.steps)
        h = h * 1000003u ^
            (std::size_t{s.task} << 32 | static_cast<std::uint32_t>(s.access.object));
    return h;
}

Handoff Dpor::split() {
    if (!splits()) return {};
    // Branch points at or above where this search already split are the giver's to go on
    // from after the part that took their branches.
    std::size_t from = owned_from_ > 0 ? owned_from_ - 1 : 0;
    if (!suspended_.empty()) from = suspended_.back() + 1;
    // At a pick node the part's sleep sets need the access of the step the giver runs there,
    // which its own commit sets: one it ran already, and does not run again for each value of a
    // model choice right after it. Optimal DPOR hands over the first branches of a pick's
    // wake-up tree that are one step each, which races found later cannot change.
    const auto left = [this](const Node& n) {
        const auto i = static_cast<std::size_t>(&n - path_.data());
        if (n.choice) return todo(n);
        if (i >= same_steps_before_ || (i + 1 < path_.size() && path_[i + 1].choice))
            return TaskSet{0};
        if (mode_ == Mode::source) return todo(n);
        return i < trees_.size() ? trees_[i].leading_steps(n.enabled & ~n.done & ~n.sleep) : 0;
    };
    const auto [at, share] =
        split_point(path_, from, left, [this](const Node& n) { return branches(n); });
    if (at == path_.size()) return {};
    const TaskSet handed = left(path_[at]);
    auto part = std::make_unique<Dpor>(path_.capacity(), mode_, bound_);
    part->path_.assign(path_.begin(), path_.begin() + static_cast<std::ptrdiff_t>(at + 1));
    part->owned_from_ = at + 1;
    if (mode_ == Mode::optimal) {
        part->trees_.resize(at + 1);
        Node& node = path_[at];
        if (node.choice) {
            part->trees_[at] = trees_[at]; // every value starts from it
        } else {
            part->trees_[at] = trees_[at].take_leading_steps(handed);
            // What those steps do, for the reversals this search still inserts here.
            for (const WakeupStep& step : part->trees_[at].first_steps())
                node.parked[step.task] = step.access;
        }
    }
    (void)part->advance(); // the first branch left at its floor
    // Its giver's last execution ran the steps before the branch point as they are: one search
    // would keep them, and it keeps their races.
    part->replayed_below_ = part->same_steps_before_;
    part->same_steps_before_ = 0;
    path_[at].handed = handed;
    suspended_.push_back(at);
    Handoff handoff;
    handoff.part = std::move(part);
    handoff.share = share;
    handoff.resumes = true;
    return handoff;
}

bool Dpor::resume(Strategy& finished) {
    const auto* part = dynamic_cast<const Dpor*>(&finished);
    assert(part && !suspended_.empty() && "resumed after a part of another search");
    const std::size_t at = suspended_.back();
    suspended_.pop_back();
    Node& node = path_[at];
    const Node& ran = part->path_[at];
    if (!node.choice)
        for (TaskSet s = node.handed; s; s &= s - 1)
            node.parked[lowest(s)] = ran.parked[lowest(s)];
    node.done |= node.handed;
    node.handed = 0;
    // The pick before a model choice the part branched over: one search would have run its
    // step again for each value, and keep the access it made for the last.
    if (const std::size_t s = part->replayed_below_; s < at && !path_[s].choice)
        path_[s].parked[path_[s].chosen] = part->path_[s].parked[path_[s].chosen];
    for (const Deferred& d : part->deferred_)
        settle(d);
    for (Reversal r : part->reversals_)
        settle(r);
    return advance();
}

} // namespace lockcheck::detail
