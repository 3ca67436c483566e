// The stateful search: the DFS path (dfs_path.hpp), a state table consulted at every step taken
// past the path's end, and sleep sets carried along the path.
#include "stateful_dfs.hpp"

#include "dependency.hpp"
#include "dfs_path.hpp"
#include "scheduler/execution.hpp"

namespace lockcheck::detail {

StatefulDfs::StatefulDfs(std::size_t depth_hint, std::size_t max_bytes)
    : depth_hint_(depth_hint), max_bytes_(max_bytes), table_(max_bytes) {
    path_.reserve(depth_hint);
}

namespace {
// The tasks a run in a state must let take steps: not those that only go on at other tasks'
// steps (interrupts).
TaskSet runnable(TaskSet enabled, const Execution& ex) {
    for (TaskSet rest = enabled; rest; rest &= rest - 1)
        if (ex.tasks()[lowest(rest)]->idle()) enabled &= ~task_bit(lowest(rest));
    return enabled;
}

// "A and B", "A, B and C".
std::string names_of(TaskSet tasks, const std::vector<std::string>& names) {
    std::string text;
    for (TaskSet rest = tasks; rest; rest &= rest - 1) {
        const TaskId id = lowest(rest);
        if (!text.empty()) text += rest & (rest - 1) ? ", " : " and ";
        text += id < names.size() ? names[id] : "task " + std::to_string(id);
    }
    return text;
}
} // namespace

TaskSet StatefulDfs::options_at(TaskSet enabled, TaskSet sleep, const Execution& ex) {
    const std::uint32_t depth = ex.depth();
    state_ = ex.fingerprint();
    const StateTable::Found found = table_.insert(state_);
    StateTable::Entry* e = found.entry;
    entered_ = LoopFinder::kNoNode;
    if (!e) {
        if (!judging_) return enabled & ~sleep; // the table is at its cap: explore as DFS would
        // A state not stored closes no cycle: the search would turn in it.
        unjudged_ = "the state table reached its cap";
        return 0;
    }
    if (judging_ && ex.tasks().size() > task_names_.size())
        for (std::size_t id = task_names_.size(); id < ex.tasks().size(); ++id)
            task_names_.push_back(ex.tasks()[id]->name());
    if (found.added || (cut_ && e->depth() > depth)) {
        // New, or met before deeper while the search has cut some execution: what follows it
        // then may have been cut sooner. Met deeper, it is not on the current path (an
        // execution's depth never falls), so its search is over; while no execution has been
        // cut, every one through it ran to its end. (SPIN re-explores such a state only under
        // -DREACH, for the same reason: its depth bound.)
        table_.explored(*e, depth, sleep);
        if (judging_) entered_ = loops_.enter(state_, runnable(enabled, ex));
        return enabled & ~sleep;
    }
    if (judging_)
        if (const Branch* from = last_pick_before(path_, position_))
            loops_.reach(from->node, from->chosen, state_);
    // Met before: only the tasks asleep then but awake now are left to run (Godefroid's
    // sleep sets with state caching).
    const TaskSet left = table_.sleep(*e) & ~sleep;
    table_.narrow_sleep(*e, sleep);
    if (!(left & enabled)) ++matched_;
    return left & enabled;
}

TaskId StatefulDfs::pick(std::uint32_t, TaskSet enabled, const Execution& ex) {
    // The step just taken read every object (a check() that peeks): nothing stays asleep.
    if (ex.last_step_global()) next_sleep_ = 0;
    // It entered or left its read-side section undeclared: the censuses asleep wake.
    if (ex.last_step_changed_section()) [[unlikely]]
        next_sleep_ &= ~reading_sections(next_sleep_, ex);
    if (position_ < path_.size()) {
        Branch& b = path_[position_++];
        if (!b.choice) b.after = next_sleep_ = sleep_after(b.sleep | b.tried, b.chosen, ex);
        return b.chosen;
    }
    // Judging loops, no task that may come back to a state sleeps: a sleep set may skip a step
    // that closes a cycle, and only such a task's steps can (Execution::forgot()).
    judging_ = ex.limits().loops_as_cycles;
    if (judging_) next_sleep_ &= ~ex.may_come_back();
    const TaskSet sleep = next_sleep_;
    TaskSet options = options_at(enabled, sleep, ex);
    TaskId first = kNoTask;
    if (forced_ != kNoTask && contains(enabled, forced_)) {
        // The second access of a race: run it even where the state was explored before, so
        // that the race is reported with both accesses.
        first = forced_;
        if (!options) options = task_bit(first);
    }
    forced_ = kNoTask;
    if (!options) return kNoTask;
    // Met again with steps left to run, or a race's second access: one more node for the
    // state, whose steps from here are new edges of the graph.
    if (judging_ && entered_ == LoopFinder::kNoNode)
        entered_ = loops_.enter(state_, runnable(enabled, ex));
    if (first == kNoTask || !contains(options, first)) first = lowest(options);
    if (ex.limits().races) {
        // Two pending accesses that race: run one, then the other. Whatever else is explored
        // from here may meet the state between them again and stop there.
        if (const RacingPair race = first_race(options, enabled, ex); race.first != kNoTask) {
            first = race.first;
            forced_ = race.second;
        }
    }
    Branch& b =
        path_.emplace_back(Branch{options, task_bit(first), sleep, 0, first, false, entered_});
    ++position_;
    b.after = next_sleep_ = sleep_after(b.sleep | b.tried, first, ex);
    return first;
}

std::uint32_t StatefulDfs::choose(std::uint32_t, std::uint32_t n) {
    if (position_ < path_.size()) return path_[position_++].chosen;
    path_.push_back(Branch{first_n(n), task_bit(0), 0, 0, 0, true});
    ++position_;
    return 0;
}

void StatefulDfs::end(const Execution& ex) {
    cut_ |= ex.cut();
}

bool StatefulDfs::next_execution() {
    next_sleep_ = 0;
    forced_ = kNoTask;
    if (!judging_) return backtrack(path_, position_);
    if (!unjudged_.empty()) return false;
    // An execution that ended before the end of its path (at a violation, a cut, a full
    // table) left the states past it with steps untaken: none of their loops is judged.
    if (position_ < path_.size()) {
        unjudged_ = "an execution ended before its path";
        return false;
    }
    return backtrack(path_, position_, 0, [this](std::size_t index) { return leave(index); });
}

bool StatefulDfs::leave(std::size_t index) {
    const Branch& b = path_[index];
    if (b.choice || b.node == LoopFinder::kNoNode) return true;
    const Branch* parent = last_pick_before(path_, index);
    if (loops_.leave(b.node, parent ? parent->node : LoopFinder::kNoNode,
                     parent ? parent->chosen : kNoTask))
        return true;
    loop_for_ever_ = true;
    unjudged_ = "a cycle of " + std::to_string(loops_.loop_states()) + " state" +
                (loops_.loop_states() == 1 ? "" : "s") + " that " +
                names_of(loops_.loop_tasks(), task_names_) + " can go round for ever";
    return false;
}

std::uint32_t StatefulDfs::divergence() const {
    return deepest_branch(path_);
}

void StatefulDfs::resume_at(std::uint32_t position) {
    position_ = position;
    const Branch* pick = last_pick_before(path_, position);
    next_sleep_ = pick ? pick->after : 0;
}

double StatefulDfs::explored() const {
    return explored_fraction(path_);
}

StateCounts StatefulDfs::states() const {
    StateCounts counts;
    counts.stored = table_.size();
    counts.matched = matched_;
    counts.bytes = table_.bytes();
    counts.full = table_.full();
    return counts;
}

} // namespace lockcheck::detail
