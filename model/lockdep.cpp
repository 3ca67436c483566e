// The dependency graph of one execution, as large as the kernel's lockdep allows (classes,
// dependencies), and lockdep's two reports: circular dependency and recursive locking.
#include "lockdep.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace lockcheck::detail {

namespace {

struct lock_class {
    std::string name;  // with its subclass, as printed
    std::uint64_t key; // a hash of the name: the class in a state's fingerprint
};

// Where a dependency was first seen: the report's "existing dependency chain".
struct dependency {
    int from;
    int to;
    TaskId task_id;
    std::string task;
    // The step that took `to` once `taken`; until then the step after which the task asked
    // for it (a dependency is recorded when a lock is asked for, before its step is taken).
    std::uint32_t step;
    bool taken;
    std::source_location location; // the model's call that asked
};

// The kernel's capacities (kernel/locking/lockdep_internals.h): past them it says "BUG:
// MAX_LOCKDEP_KEYS too low!" and turns itself off, as this graph does, and the run says its
// checking was incomplete.
constexpr std::size_t MAX_LOCKDEP_KEYS = 8192;
constexpr std::size_t MAX_LOCKDEP_ENTRIES = 32768;

struct lockdep_graph {
    bool off = false;
    bool full = false; // a table filled: checking stopped
    std::vector<lock_class> classes;
    std::unordered_map<std::string, int> by_name;
    std::vector<std::vector<int>> after; // after[c]: classes acquired while c was held
    std::vector<dependency> edges;

    // Turns lock-order checking off for the rest of the execution: `table` is full.
    void fill(const char* table, std::size_t capacity) {
        full = true;
        this_execution().table_full(table, static_cast<std::uint32_t>(capacity), false);
    }

    int node(const lockdep_map* map, int subclass) {
        int& cached = map->node[subclass];
        if (cached >= 0) return cached;
        const std::string name = lock_class_name(map, subclass);
        if (auto it = by_name.find(name); it != by_name.end()) return cached = it->second;
        if (classes.size() == MAX_LOCKDEP_KEYS) {
            fill("lockdep classes (MAX_LOCKDEP_KEYS)", MAX_LOCKDEP_KEYS);
            return -1;
        }
        classes.push_back({name, std::hash<std::string>{}(name)});
        after.emplace_back();
        by_name.emplace(name, static_cast<int>(classes.size() - 1));
        return cached = static_cast<int>(classes.size() - 1);
    }

    // after[c] is kept sorted: paths are searched in the order of the classes' numbers.
    bool depends(int from, int to) const {
        return std::binary_search(after[from].begin(), after[from].end(), to);
    }
    void add(int from, int to) {
        after[from].insert(std::lower_bound(after[from].begin(), after[from].end(), to), to);
    }

    // The classes on a path from `from` to `to`, both included; empty if there is none.
    std::vector<int> path(int from, int to) const {
        std::vector<int> parent(classes.size(), -1);
        std::vector<int> queue{from};
        parent[from] = from;
        for (std::size_t i = 0; i < queue.size(); ++i) {
            const int c = queue[i];
            if (c == to) break;
            for (const int n : after[c]) {
                if (parent[n] >= 0) continue;
                parent[n] = c;
                queue.push_back(n);
            }
        }
        if (parent[to] < 0) return {};
        std::vector<int> chain{to};
        while (chain.back() != from)
            chain.push_back(parent[chain.back()]);
        return {chain.rbegin(), chain.rend()};
    }

    // The set of dependencies, whatever order they were found in (classes are numbered in
    // the order first met, which differs between executions that reach the same state).
    void fingerprint(StateHasher& h) const {
        h.add(off);
        h.add(full);
        std::uint64_t set = 0;
        for (const dependency& d : edges) {
            StateHasher e;
            e.add(classes[d.from].key);
            e.add(classes[d.to].key);
            set += e.result().a;
        }
        h.add(edges.size());
        h.add(set);
    }

    const dependency& edge(int from, int to) const {
        for (const dependency& d : edges)
            if (d.from == from && d.to == to) return d;
        return edges.front(); // unreachable: every entry of `after` has its edge
    }
};

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

// "balance0 took it at step 5, tree_lock.cpp:142 balance_level"
std::string took_it(const std::string& task, bool taken, std::uint32_t step,
                    const std::source_location& loc) {
    const CallSite site = call_site(loc);
    return task + (taken ? " took it at step " : " asked for it after step ") +
           std::to_string(step) + (taken ? "" : " and has not got it yet") +
           (site.known() ? ", " + site.text() : "");
}

void report_cycle(const lockdep_graph& g, const held_lock& held_by_me, int held, int next,
                  const std::vector<int>& chain, const Operation& attempt) {
    task_struct* me = current();
    std::string chain_text;
    for (int c : chain)
        chain_text += (chain_text.empty() ? "" : " --> ") + g.classes[c].name;
    std::vector<std::string> lines;
    std::vector<std::uint32_t> cited{held_by_me.acquired_at};
    lines.push_back(me->name() + " is trying to acquire " + g.classes[next].name +
                    " while holding " + g.classes[held].name);
    lines.push_back("  " + g.classes[held].name + ": " +
                    took_it(me->name(), true, held_by_me.acquired_at, held_by_me.location));
    lines.push_back("existing dependency chain: " + chain_text);
    for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
        const dependency& d = g.edge(chain[i], chain[i + 1]);
        cited.push_back(d.step);
        lines.push_back("  " + g.classes[d.from].name + " --> " + g.classes[d.to].name + ": " +
                        took_it(d.task, d.taken, d.step, d.location));
    }
    // The kernel's two-column scenario: this task, and the one whose dependency on the held
    // lock closes the chain.
    const int parent = chain[chain.size() - 2];
    const std::string other = g.edge(parent, held).task;
    const std::size_t col = 28;
    lines.push_back("possible unsafe locking scenario:");
    lines.push_back("  " + pad(me->name(), col) + other);
    lines.push_back("  " + pad("----", col) + "----");
    lines.push_back("  lock(" + g.classes[held].name + ");");
    lines.push_back("  " + pad("", col) + "lock(" + g.classes[parent].name + ");");
    lines.push_back("  " + pad("", col) + "lock(" + g.classes[held].name + ");");
    lines.push_back("  lock(" + g.classes[next].name + ");");
    lines.push_back(" *** DEADLOCK ***");
    this_execution().fail_attempt(
        attempt, ViolationKind::lock_order, "circular-locking-dependency",
        "possible circular locking dependency detected: " + g.classes[held].name + " --> " +
            g.classes[next].name + " closes " + chain_text,
        std::move(lines), std::move(cited));
}

void report_recursive(const lockdep_graph& g, int cls, const Operation& attempt) {
    this_execution().fail_attempt(attempt, ViolationKind::lock_order, "recursive-locking",
                                  "possible recursive locking detected: " + current()->name() +
                                      " acquires " + g.classes[cls].name +
                                      " while holding a lock of the same class (missing a "
                                      "_nested annotation?)");
}

} // namespace

std::string lock_class_name(const lockdep_map* map, int subclass) {
    return subclass ? map->name + "/" + std::to_string(subclass) : map->name;
}

void lockdep_set_class(lockdep_map* map, std::string class_name) {
    map->name = std::move(class_name);
}

void lockdep_assert_held(const Object* lock, std::source_location loc) {
    if (holds_lock(current(), lock)) return;
    this_execution().fail_attempt(
        Operation{.name = "lockdep_assert_held", .obj = lock, .location = loc},
        ViolationKind::lock_misuse, "lockdep-assert-held",
        "WARNING: lockdep_assert_held(" + lock->name() + ") failed: " + current()->name() +
            " does not hold it");
}

void lockdep_off() {
    this_execution().local<lockdep_graph>().off = true;
}

bool lockdep_turned_off(const Execution& ex) {
    const lockdep_graph* g = ex.find_local<lockdep_graph>();
    return g && g->off;
}

void lock_acquire(const char* op, const Object* lock, const lockdep_map* map, int subclass,
                  bool trylock, std::source_location loc) {
    if (subclass < 0 || subclass >= MAX_LOCKDEP_SUBCLASSES)
        this_execution().fail(ViolationKind::lock_misuse, "invalid-subclass",
                              "BUG: looking up invalid subclass: " + std::to_string(subclass) +
                                  " (" + lock->name() + "; lockdep has subclasses 0.." +
                                  std::to_string(MAX_LOCKDEP_SUBCLASSES - 1) + ")",
                              loc);
    lockdep_graph& g = this_execution().local<lockdep_graph>();
    if (g.off || g.full || !this_execution().limits().lockdep) return;
    const int next = g.node(map, subclass);
    if (next < 0) return;
    task_struct* me = current();
    // As check_prevs_add(): walk the held locks from the most recent; each adds a dependency,
    // and the first that is not a trylock ends the walk (older ones reach `next` through it).
    for (int i = me->lockdep_depth - 1; i >= 0; --i) {
        const held_lock& h = me->held_locks[i];
        if (!h.map) continue; // a lock lockdep does not track
        const int held = g.node(h.map, h.subclass);
        if (held < 0) return;
        const Operation attempt{.name = op, .obj = lock, .location = loc};
        if (held == next && !trylock) {
            report_recursive(g, next, attempt);
            return;
        }
        if (!trylock && !g.depends(held, next)) {
            std::vector<int> chain = g.path(next, held);
            if (!chain.empty()) {
                report_cycle(g, h, held, next, chain, attempt);
                return;
            }
            if (g.edges.size() == MAX_LOCKDEP_ENTRIES) {
                g.fill("lockdep dependencies (MAX_LOCKDEP_ENTRIES)", MAX_LOCKDEP_ENTRIES);
                return;
            }
            g.add(held, next);
            g.edges.push_back(
                {held, next, me->id(), me->name(), this_execution().step(), false, loc});
            me->lockdep_asked = true;
        }
        if (!h.trylock) break;
    }
}

void lock_map_acquire(const Object* obj, const lockdep_map* map, std::source_location loc) {
    lock_acquire("lock_map_acquire", obj, map, 0, false, loc);
    lock_acquired(current(), obj, "lockdep_map", map, loc);
}

void lock_map_release(const Object* obj) {
    lock_released(current(), obj);
}

void lockdep_acquired(task_struct* task) {
    task->lockdep_asked = false;
    for (dependency& d : this_execution().local<lockdep_graph>().edges)
        if (!d.taken && d.task_id == task->id()) {
            d.step = this_execution().step();
            d.taken = true;
        }
}

} // namespace lockcheck::detail
