// The breadth-first search's levels and rounds (Bfs), and the executions of a slice of a round
// (BfsRunner): replay a state's schedule, take one step, note the state reached.
#include "bfs.hpp"

#include <unordered_map>

#include "dependency.hpp"
#include "scheduler/execution.hpp"

namespace lockcheck::detail {

BfsRunner::BfsRunner(const Bfs& bfs, std::size_t first, std::size_t last)
    : bfs_(bfs), item_(first), last_(last) {}

void BfsRunner::start_item() {
    phase_ = Phase::replay;
    position_ = 0;
    taken_.clear();
    sleep_ = 0;
    forced_ = kNoTask;
}

TaskId BfsRunner::pick(std::uint32_t, TaskSet enabled, const Execution& ex) {
    switch (phase_) {
    case Phase::replay: {
        const Bfs::Node& node = bfs_.nodes_[bfs_.items_[item_].node];
        if (position_ < node.length) return bfs_.schedules_[node.schedule + position_++];
        return expand(enabled, ex);
    }
    case Phase::step:
        return arrive(enabled, ex);
    case Phase::forced:
    case Phase::over:
        break;
    }
    phase_ = Phase::over;
    return kNoTask;
}

TaskId BfsRunner::expand(TaskSet enabled, const Execution& ex) {
    const BfsItem& item = bfs_.items_[item_];
    if (item.task == kNoTask) return arrive(enabled, ex);
    const Bfs::Node& node = bfs_.nodes_[item.node];
    if (ex.limits().races) {
        // Two pending accesses that race: the state's first such pair runs back to back here,
        // whatever the table says of the state between them.
        const RacingPair race = first_race(node.options, enabled, ex);
        if (race.first == item.task) forced_ = race.second;
    }
    // The options before this one count as run from the state (they run in this level too).
    const TaskSet before = node.options & (task_bit(item.task) - 1);
    sleep_ = sleep_after(node.sleep | before, item.task, ex);
    phase_ = Phase::step;
    return item.task;
}

TaskId BfsRunner::arrive(TaskSet enabled, const Execution& ex) {
    // The step just taken read every object (a check() that peeks): nothing stays asleep.
    if (ex.last_step_global()) sleep_ = 0;
    // It entered or left its read-side section undeclared: the censuses asleep wake.
    if (ex.last_step_changed_section()) [[unlikely]]
        sleep_ &= ~reading_sections(sleep_, ex);
    const Bfs::Node& node = bfs_.nodes_[bfs_.items_[item_].node];
    const Schedule& steps = ex.schedule();
    const auto length = static_cast<std::uint32_t>(steps.size() - node.length);
    arrivals_.push_back(BfsArrival{ex.fingerprint(), sleep_, enabled, bfs_.items_[item_].node,
                                   length, extensions_.size()});
    extensions_.insert(extensions_.end(), steps.end() - length, steps.end());
    if (forced_ != kNoTask && contains(enabled, forced_)) {
        phase_ = Phase::forced;
        return forced_;
    }
    phase_ = Phase::over;
    return kNoTask;
}

std::uint32_t BfsRunner::choose(std::uint32_t, std::uint32_t n) {
    const BfsItem& item = bfs_.items_[item_];
    if (phase_ == Phase::replay) {
        const Bfs::Node& node = bfs_.nodes_[item.node];
        return position_ < node.length ? bfs_.schedules_[node.schedule + position_++] : kNoTask;
    }
    // The forced step runs for its access only: where it takes the task does not matter.
    if (phase_ != Phase::step) return 0;
    const auto made = static_cast<std::uint32_t>(taken_.size());
    std::uint32_t value = 0;
    if (made < item.prefix_length) {
        value = bfs_.prefixes_[item.prefix + made];
    } else {
        // A choice met for the first time: its other values are items of the next round.
        for (std::uint32_t v = 1; v < n; ++v) {
            spawned_.push_back(BfsItem{item.node, item.task,
                                       static_cast<std::uint32_t>(prefixes_.size()), made + 1});
            prefixes_.insert(prefixes_.end(), taken_.begin(), taken_.end());
            prefixes_.push_back(static_cast<TaskId>(v));
        }
    }
    taken_.push_back(static_cast<TaskId>(value));
    return value;
}

bool BfsRunner::next_execution() {
    if (++item_ >= last_) return false;
    start_item();
    return true;
}

Bfs::Bfs(std::size_t max_bytes) : max_bytes_(max_bytes), table_(max_bytes) {
    nodes_.push_back(Node{0, 0, 0, 0, 0});
    items_.push_back(BfsItem{0, kNoTask});
    whole_.emplace(*this, 0, 1);
}

TaskId Bfs::pick(std::uint32_t step, TaskSet enabled, const Execution& ex) {
    return whole_->pick(step, enabled, ex);
}

std::uint32_t Bfs::choose(std::uint32_t step, std::uint32_t n) {
    return whole_->choose(step, n);
}

bool Bfs::next_execution() {
    if (whole_->next_execution()) return true;
    take(*whole_);
    if (!next_round()) return false;
    whole_.emplace(*this, 0, items_.size());
    return true;
}

StateCounts Bfs::states() const {
    StateCounts counts;
    counts.stored = table_.size();
    counts.matched = matched_;
    counts.bytes = table_.bytes();
    counts.full = table_.full();
    counts.breadth_first = true;
    return counts;
}

void Bfs::take(const BfsRunner& runner) {
    for (BfsArrival a : runner.arrivals_) {
        const auto from = runner.extensions_.begin() + static_cast<std::ptrdiff_t>(a.extension);
        a.extension = extensions_.size();
        extensions_.insert(extensions_.end(), from, from + a.extension_length);
        arrivals_.push_back(a);
    }
    for (BfsItem item : runner.spawned_) {
        const auto from = runner.prefixes_.begin() + item.prefix;
        item.prefix = static_cast<std::uint32_t>(next_prefixes_.size());
        next_prefixes_.insert(next_prefixes_.end(), from, from + item.prefix_length);
        next_items_.push_back(item);
    }
}

bool Bfs::next_round() {
    items_.swap(next_items_);
    prefixes_.swap(next_prefixes_);
    next_items_.clear();
    next_prefixes_.clear();
    return !items_.empty() || next_level();
}

std::uint32_t Bfs::add_node(const BfsArrival& a, std::vector<Node>& nodes,
                            std::vector<TaskId>& schedules, TaskSet sleep, TaskSet options) const {
    const Node& from = nodes_[a.node];
    const auto parent = schedules_.begin() + static_cast<std::ptrdiff_t>(from.schedule);
    const auto steps = extensions_.begin() + static_cast<std::ptrdiff_t>(a.extension);
    nodes.push_back(
        Node{schedules.size(), from.length + a.extension_length, sleep, a.enabled, options});
    schedules.insert(schedules.end(), parent, parent + from.length);
    schedules.insert(schedules.end(), steps, steps + a.extension_length);
    return static_cast<std::uint32_t>(nodes.size() - 1);
}

bool Bfs::next_level() {
    std::vector<Node> nodes;
    std::vector<TaskId> schedules;
    // The states first stored in this level, by node: the level's later arrivals there only
    // narrow their sleep sets, as none of them has run yet.
    std::unordered_map<Fingerprint, std::uint32_t, FingerprintHash> fresh;
    for (const BfsArrival& a : arrivals_) {
        const StateTable::Found found = table_.insert(a.fingerprint);
        StateTable::Entry* e = found.entry;
        if (!e) {
            // The table is at its cap: explore it as a search that stores nothing would.
            add_node(a, nodes, schedules, a.sleep, a.enabled & ~a.sleep);
            continue;
        }
        if (found.added) {
            table_.explored(*e, level_, a.sleep);
            fresh.emplace(a.fingerprint, add_node(a, nodes, schedules, a.sleep, 0));
            continue;
        }
        // Met before: only the tasks asleep then but awake now are left to run (Godefroid's
        // sleep sets with state caching), from this arrival, with its sleep set.
        const TaskSet left = table_.sleep(*e) & ~a.sleep & a.enabled;
        table_.narrow_sleep(*e, a.sleep);
        if (const auto it = fresh.find(a.fingerprint); it != fresh.end()) {
            nodes[it->second].sleep &= a.sleep;
            ++matched_;
        } else if (left) {
            add_node(a, nodes, schedules, a.sleep, left);
        } else {
            ++matched_;
        }
    }
    for (const auto& [fingerprint, i] : fresh)
        nodes[i].options = nodes[i].enabled & ~nodes[i].sleep;
    arrivals_.clear();
    extensions_.clear();
    nodes_.swap(nodes);
    schedules_.swap(schedules);
    items_.clear();
    for (std::uint32_t i = 0; i < nodes_.size(); ++i)
        for (TaskSet o = nodes_[i].options; o; o &= o - 1)
            items_.push_back(BfsItem{i, lowest(o)});
    ++level_;
    return !items_.empty();
}

} // namespace lockcheck::detail
