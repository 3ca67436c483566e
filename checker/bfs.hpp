// Bfs: exhaustive breadth-first search over states (SPIN's -DBFS), level by level. Level d holds
// the states first reached in d steps, each with the schedule that reached it first. An
// execution replays one state's schedule and takes one more step (one task, with each value of
// the model choices that step makes); the state it reaches joins level d + 1 unless it was
// stored before. Sleep sets prune as in StatefulDfs, and all the ways a level reaches one state
// are merged before that state is expanded.
//
// The executions of one level need nothing from one another, so several threads share a level
// (explore_levels, --jobs): each runs slices of it (BfsRunner), and the slices are merged in
// the level's order before the next level begins. The states, executions, findings and
// counterexamples are therefore the same on any number of threads, and the first violation
// found is one of the fewest steps. docs/scaling.md says why it is exact.
#pragma once

#include <optional>
#include <vector>

#include "scheduler/fingerprint.hpp"
#include "scheduler/strategy.hpp"
#include "state_table.hpp"

namespace lockcheck::detail {

class Bfs;

// One execution of a round: from a state of the level, one task's step, with the values given
// for its first model choices (the rest take 0, and each other value becomes an item of the
// next round of the level).
struct BfsItem {
    std::uint32_t node;       // the state, by index in its level
    TaskId task;              // kNoTask: the first item, which only records the initial state
    std::uint32_t prefix = 0; // where its choice values start in the round's list
    std::uint32_t prefix_length = 0; // how many it has
};

// A state an item reached, with the steps from its item's state there.
struct BfsArrival {
    Fingerprint fingerprint;
    TaskSet sleep;   // the tasks asleep on entry
    TaskSet enabled; // at the state
    std::uint32_t node;
    std::uint32_t extension_length;
    std::size_t extension; // where its steps start in the list of the one who keeps it
};

// Runs items [first, last) of a Bfs's current round on one thread, one execution each, and
// keeps the states they reach and the items their choices add for Bfs::next_round.
class BfsRunner final : public Strategy {
  public:
    BfsRunner(const Bfs& bfs, std::size_t first, std::size_t last);
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override;
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override;
    bool next_execution() override;
    bool fingerprints() const override { return true; }

  private:
    friend class Bfs;
    enum class Phase : std::uint8_t { replay, step, forced, over };

    void start_item();
    // At the item's state: the task to run, with what follows from it.
    TaskId expand(TaskSet enabled, const Execution& ex);
    // At the state the item's step reached.
    TaskId arrive(TaskSet enabled, const Execution& ex);

    const Bfs& bfs_;
    std::size_t item_;
    std::size_t last_;
    Phase phase_ = Phase::replay;
    std::size_t position_ = 0;  // in the item's state's schedule
    std::vector<TaskId> taken_; // the values of the choices the item's step made
    TaskSet sleep_ = 0;         // of the state the item's step reaches
    TaskId forced_ = kNoTask;   // the second access of a race, run right after the step
    std::vector<BfsArrival> arrivals_;
    std::vector<TaskId> extensions_;
    std::vector<BfsItem> spawned_;
    std::vector<TaskId> prefixes_;
};

class Bfs final : public Strategy {
  public:
    // `max_bytes`: the state table's cap (0: as much as memory allows).
    explicit Bfs(std::size_t max_bytes = kStateTableBytes);
    // Its runners refer to it.
    Bfs(const Bfs&) = delete;
    Bfs& operator=(const Bfs&) = delete;

    // On one thread: the rounds' items one after another.
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override;
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override;
    bool next_execution() override;
    bool fingerprints() const override { return true; }
    std::unique_ptr<Strategy> fresh() const override { return std::make_unique<Bfs>(max_bytes_); }
    StateCounts states() const override;

    // On several threads (explore_levels): the current round's items, and runners for slices
    // of it. At the end of the round, take() is given every slice's runner in the round's
    // order, and next_round() prepares the next round; false when the search is done.
    std::size_t round_size() const { return items_.size(); }
    BfsRunner runner(std::size_t first, std::size_t last) const {
        return BfsRunner(*this, first, last);
    }
    void take(const BfsRunner& runner);
    bool next_round();

  private:
    friend class BfsRunner;
    // A state of the level being expanded.
    struct Node {
        std::size_t schedule; // where its schedule starts in schedules_
        std::uint32_t length;
        TaskSet sleep;
        TaskSet enabled;
        TaskSet options; // the tasks to run from it
    };
    // The states the level reached become the next level's; false if it has nothing to run.
    bool next_level();
    // Adds a node for `a` to the next level, with its schedule.
    std::uint32_t add_node(const BfsArrival& a, std::vector<Node>& nodes,
                           std::vector<TaskId>& schedules, TaskSet sleep, TaskSet options) const;

    std::size_t max_bytes_;
    StateTable table_;
    std::uint32_t level_ = 0; // the steps of the states arriving now
    std::vector<Node> nodes_; // the level being expanded
    std::vector<TaskId> schedules_;
    std::vector<BfsItem> items_; // the round being run
    std::vector<TaskId> prefixes_;
    std::vector<BfsArrival> arrivals_; // of the level being collected
    std::vector<TaskId> extensions_;
    std::vector<BfsItem> next_items_; // the level's next round: other values of choices
    std::vector<TaskId> next_prefixes_;
    std::optional<BfsRunner> whole_; // on one thread: the round's runner
    std::uint64_t matched_ = 0;
};

} // namespace lockcheck::detail
