// WakeupTree: the branches optimal DPOR has still to run from one branch point (Abdulla,
// Aronis, Jonsson, Sagonas, POPL 2014, Section 6). Each branch is a sequence of steps that
// reverses a race; a branch is added only if no branch already there, nor a task asleep at
// the point, starts an equivalent execution, which is what makes the search run one
// execution per class. Kept as its leaves in order; branches that share a prefix are
// neighbours.
#pragma once

#include <vector>

#include "dependency.hpp"
#include "scheduler/task_set.hpp"

namespace lockcheck::detail {

struct WakeupStep {
    TaskId task;
    Access access; // what the step does, for the dependency relation
    bool operator==(const WakeupStep&) const = default;
};
using WakeupSequence = std::vector<WakeupStep>;

// Whether an execution that starts with `task`'s next step (`access`) can be continued to one
// equivalent to an extension of `v`: the task's first step in `v` depends on no step before
// it, or the task has no step in `v` and its next step depends on none of them (a "weak
// initial" of v).
bool weak_initial(TaskId task, Access access, const WakeupSequence& v, WriteOrder writes);

class WakeupTree {
  public:
    bool empty() const { return leaves_.empty(); }
    void clear() { leaves_.clear(); }
    // The task the first branch starts with: the one to run next.
    TaskId first_task() const { return leaves_.front().front().task; }
    // How many different tasks its branches start with.
    int first_tasks() const;
    // Adds `v` unless the tree already holds a branch an extension of which is equivalent
    // to an extension of `v`.
    void insert(WakeupSequence v, WriteOrder writes);
    // Removes the branches that start with first_task() and returns them without that step:
    // the tree of the branch point after it.
    WakeupTree take_first();
    // The tasks of the first branches that are one step each and whose task is in `tasks`,
    // up to the first that is not. No later insertion can change such a branch: one whose
    // first step it could be reaches the branch's end and is covered by it.
    TaskSet leading_steps(TaskSet tasks) const;
    // Removes those branches and returns them as a tree of their own.
    WakeupTree take_leading_steps(TaskSet tasks);
    // Its first steps, in order.
    WakeupSequence first_steps() const;

  private:
    std::vector<WakeupSequence> leaves_;
};

} // namespace lockcheck::detail
