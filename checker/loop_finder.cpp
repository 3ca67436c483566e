// Tarjan's algorithm over the states of a stateful DFS, one node per state entered, with a
// node's place on the stack as its index: the stack holds nodes in the order they were entered,
// and a component is popped whole from its root up, so places compare as indices do.
#include "loop_finder.hpp"

#include <algorithm>

namespace lockcheck::detail {

LoopFinder::Node LoopFinder::enter(Fingerprint f, TaskSet runnable) {
    const auto node = static_cast<Node>(stack_.size());
    const auto [first, added] = open_.try_emplace(f, node);
    // Met again while open: the first node reaches what this one does, and this one it.
    stack_.push_back(Open{f, added ? node : first->second, runnable, 0});
    return node;
}

void LoopFinder::reach(Node from, TaskId task, Fingerprint to) {
    const auto it = open_.find(to);
    // A state whose component was judged cannot reach back to the path.
    if (it == open_.end()) return;
    Open& n = stack_[from];
    n.low = std::min(n.low, it->second);
    n.stepped |= task_bit(task);
}

bool LoopFinder::leave(Node node, Node parent, TaskId task) {
    const Open& n = stack_[node];
    if (n.low == node) return !judge(node);
    // Not a root: it and its parent are in one component, which the step between them is in.
    Open& p = stack_[parent];
    p.low = std::min(p.low, n.low);
    p.stepped |= task_bit(task);
    return true;
}

bool LoopFinder::judge(Node root) {
    TaskSet stepped = 0;
    TaskSet always = ~TaskSet{0};
    for (std::size_t k = root; k < stack_.size(); ++k) {
        stepped |= stack_[k].stepped;
        always &= stack_[k].runnable;
    }
    const std::size_t states = stack_.size() - root;
    for (std::size_t k = root; k < stack_.size(); ++k)
        if (const auto it = open_.find(stack_[k].f); it != open_.end() && it->second == k)
            open_.erase(it);
    stack_.resize(root);
    // A component of one state without a step back to itself is no loop. In any other, a run
    // can take every step of it over and over: fair unless a task always able to run in it
    // never takes one.
    if (!stepped || (always & ~stepped)) return false;
    loop_tasks_ = stepped;
    loop_states_ = states;
    return true;
}

} // namespace lockcheck::detail
