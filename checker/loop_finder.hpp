// LoopFinder: the loops of a stateful depth-first search's state graph that can go on for ever,
// as SPIN's non-progress cycles are, under weak fairness. Tarjan's strongly connected
// components, each judged when the search leaves its first state: a run can stay in a component
// for ever, with every task that can run taking steps, unless some task can run in all of its
// states and takes no step in any (a run that starves it is the scheduler's doing, not the
// model's: a spinner waiting for a lock holder that would go on). Such a component is a hang or
// a livelock; one of tasks that spin and wait, or retry and fail, while another makes progress,
// is not.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/fingerprint.hpp"
#include "scheduler/task_set.hpp"

namespace lockcheck::detail {

class LoopFinder {
  public:
    // A state on the search's path, or left behind in a component not yet judged: its place on
    // Tarjan's stack, which orders them as their discovery does.
    using Node = std::uint32_t;
    static constexpr Node kNoNode = static_cast<Node>(-1);

    // A state entered from `parent` (kNoNode: the initial one) by `task`, new or met again
    // while the search was left with what follows it (then one more node for it: its steps
    // reach what the first one's do), where `runnable` can run: tasks that only go on at other
    // tasks' steps (interrupts) left out.
    Node enter(Fingerprint f, TaskSet runnable);
    // `from` ran `task` to a state the search explored before.
    void reach(Node from, TaskId task, Fingerprint to);
    // The search has taken every step from `node`, which `parent` entered by `task`. False when
    // that closes a component that can go on for ever: its tasks are in loop_tasks().
    bool leave(Node node, Node parent, TaskId task);
    // Of the last component leave() found endless: the tasks that take steps in it, and its
    // states.
    TaskSet loop_tasks() const { return loop_tasks_; }
    std::size_t loop_states() const { return loop_states_; }

  private:
    struct Open {
        Fingerprint f;
        Node low;         // the lowest node it reaches, as Tarjan's lowlink
        TaskSet runnable; // tasks that can run in it
        TaskSet stepped;  // tasks whose steps from it stay in its component
    };
    // Whether the component from `root` to the stack's top can go on for ever; pops it.
    bool judge(Node root);

    std::vector<Open> stack_;
    // The open states by fingerprint: the first node of each.
    std::unordered_map<Fingerprint, Node, FingerprintHash> open_;
    TaskSet loop_tasks_ = 0;
    std::size_t loop_states_ = 0;
};

} // namespace lockcheck::detail
