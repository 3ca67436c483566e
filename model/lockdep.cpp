// The dependency graph of one execution, as large as the kernel's lockdep allows (classes,
// dependencies), the checks of each acquisition, and lockdep's reports about the order of
// locks: circular dependency and recursive locking (irq usage: lockdep_irq.cpp).
#include "lockdep.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "lockdep_graph.hpp"

namespace lockcheck::detail {

namespace {

// The kernel's capacities (kernel/locking/lockdep_internals.h): past them it says "BUG:
// MAX_LOCKDEP_KEYS too low!" and turns itself off, as this graph does, and the run says its
// checking was incomplete.
constexpr std::size_t MAX_LOCKDEP_KEYS = 8192;
constexpr std::size_t MAX_LOCKDEP_ENTRIES = 32768;

// Turns lock-order checking off for the rest of the execution: `table` is full.
void fill(lockdep_graph& g, const char* table, std::size_t capacity) {
    g.full = true;
    this_execution().table_full(table, static_cast<std::uint32_t>(capacity), false);
}

} // namespace

lockdep_graph& lockdep_state() {
    return this_execution().local<lockdep_graph>();
}

int lockdep_graph::node(const lockdep_map* map, int subclass) {
    int& cached = map->node[subclass];
    if (cached >= 0) return cached;
    const std::string name = lock_class_name(map, subclass);
    if (auto it = by_name.find(name); it != by_name.end()) return cached = it->second;
    if (classes.size() == MAX_LOCKDEP_KEYS) {
        fill(*this, "lockdep classes (MAX_LOCKDEP_KEYS)", MAX_LOCKDEP_KEYS);
        return -1;
    }
    classes.push_back({name, std::hash<std::string>{}(name)});
    after.emplace_back();
    before.emplace_back();
    by_name.emplace(name, static_cast<int>(classes.size() - 1));
    return cached = static_cast<int>(classes.size() - 1);
}

// after[c] and before[c] are kept sorted: paths are searched in the order of the classes'
// numbers.
bool lockdep_graph::depends(int from, int to) const {
    return std::binary_search(after[from].begin(), after[from].end(), to);
}

void lockdep_graph::add(int from, int to) {
    after[from].insert(std::lower_bound(after[from].begin(), after[from].end(), to), to);
    before[to].insert(std::lower_bound(before[to].begin(), before[to].end(), from), from);
}

namespace {

// Breadth first from `root` through `next` until `found(c)`: the path to the class found,
// root first; empty if none is.
template <class Found>
std::vector<int> search(const std::vector<std::vector<int>>& next, int root, Found found) {
    std::vector<int> parent(next.size(), -1);
    std::vector<int> queue{root};
    parent[root] = root;
    int hit = -1;
    for (std::size_t i = 0; i < queue.size() && hit < 0; ++i) {
        const int c = queue[i];
        if (found(c)) {
            hit = c;
            break;
        }
        for (const int n : next[c]) {
            if (parent[n] >= 0) continue;
            parent[n] = c;
            queue.push_back(n);
        }
    }
    if (hit < 0) return {};
    std::vector<int> chain{hit};
    while (chain.back() != root)
        chain.push_back(parent[chain.back()]);
    return {chain.rbegin(), chain.rend()};
}

} // namespace

std::vector<int> lockdep_graph::path(int from, int to, bool backwards) const {
    return search(backwards ? before : after, from, [to](int c) { return c == to; });
}

int lockdep_graph::find_usage(int root, unsigned mask, bool backwards) const {
    const std::vector<int> chain = search(backwards ? before : after, root,
                                          [&](int c) { return classes[c].usage_mask & mask; });
    return chain.empty() ? -1 : chain.back();
}

const dependency& lockdep_graph::edge(int from, int to) const {
    for (const dependency& d : edges)
        if (d.from == from && d.to == to) return d;
    return edges.front(); // unreachable: every entry of `after` has its edge
}

dependency& lockdep_graph::edge(int from, int to) {
    return const_cast<dependency&>(std::as_const(*this).edge(from, to));
}

std::vector<int> lockdep_graph::strong_path(int from, bool from_only_xr, int to,
                                            bool to_recursive) const {
    // Breadth first over (class, whether it was reached by -(*R)-> only), as __bfs() steps:
    // after -(*R)-> no -(S*)-> follows.
    const auto state = [](int c, bool only_xr) { return 2 * c + (only_xr ? 1 : 0); };
    std::vector<int> parent(2 * classes.size(), -1);
    std::vector<int> queue{state(from, from_only_xr)};
    parent[queue.front()] = queue.front();
    int hit = -1;
    for (std::size_t i = 0; i < queue.size() && hit < 0; ++i) {
        const int c = queue[i] / 2;
        const bool only_xr = queue[i] % 2;
        if (c == to && (!to_recursive || !only_xr)) { // hlock_conflict()
            hit = queue[i];
            break;
        }
        for (const int n : after[c]) {
            std::uint8_t dep = edge(c, n).dep;
            if (only_xr) dep &= ~(DEP_SR | DEP_SN);
            if (!dep) continue;
            const int s = state(n, !(dep & (DEP_SN | DEP_EN)));
            if (parent[s] >= 0) continue;
            parent[s] = queue[i];
            queue.push_back(s);
        }
    }
    if (hit < 0) return {};
    std::vector<int> chain{hit};
    while (chain.back() != parent[chain.back()])
        chain.push_back(parent[chain.back()]);
    std::vector<int> classes_on;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        classes_on.push_back(*it / 2);
    return classes_on;
}

// The set of dependencies and of usage bits, whatever order they were found in (classes are
// numbered in the order first met, which differs between executions that reach the same
// state).
void lockdep_graph::fingerprint(StateHasher& h) const {
    h.add(off);
    h.add(full);
    std::uint64_t set = 0;
    for (const dependency& d : edges) {
        StateHasher e;
        e.add(classes[d.from].key);
        e.add(classes[d.to].key);
        e.add(d.dep);
        set += e.result().a;
    }
    std::uint64_t usage = 0;
    for (const lock_class& c : classes) {
        if (!c.usage_mask) continue;
        StateHasher u;
        u.add(c.key);
        u.add(c.usage_mask);
        usage += u.result().a;
    }
    h.add(edges.size());
    h.add(set);
    h.add(usage);
}

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

std::string took_it(const lockdep_trace& t) {
    const CallSite site = call_site(t.location);
    return t.task + (t.taken ? " took it at step " : " asked for it after step ") +
           std::to_string(t.step) + (t.taken ? "" : " and has not got it yet") +
           (site.known() ? ", " + site.text() : "");
}

std::string chain_text(const lockdep_graph& g, const std::vector<int>& chain) {
    std::string text;
    for (int c : chain)
        text += (text.empty() ? "" : " --> ") + g.classes[c].name;
    return text;
}

namespace {

void report_cycle(const lockdep_graph& g, const held_lock& held_by_me, int held, int next,
                  const std::vector<int>& chain, const Operation& attempt) {
    task_struct* me = current();
    const std::string chain_line = chain_text(g, chain);
    std::vector<std::string> lines;
    std::vector<std::uint32_t> cited{held_by_me.acquired_at};
    lines.push_back(me->name() + " is trying to acquire " + g.classes[next].name +
                    " while holding " + g.classes[held].name);
    lines.push_back(
        "  " + g.classes[held].name + ": " +
        took_it({me->id(), me->name(), held_by_me.acquired_at, true, held_by_me.location}));
    lines.push_back("existing dependency chain: " + chain_line);
    for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
        const dependency& d = g.edge(chain[i], chain[i + 1]);
        cited.push_back(d.step);
        lines.push_back("  " + g.classes[d.from].name + " --> " + g.classes[d.to].name + ": " +
                        took_it(d));
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
            g.classes[next].name + " closes " + chain_line,
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

void lockdep_off() {
    lockdep_state().off = true;
}

bool lockdep_turned_off(const Execution& ex) {
    const lockdep_graph* g = ex.find_local<lockdep_graph>();
    return g && g->off;
}

void lock_acquire(const char* op, const Object* lock, const lockdep_map* map, int subclass,
                  bool trylock, std::source_location loc, lockdep_irqs_off turned_off,
                  lockdep_read read) {
    if (subclass < 0 || subclass >= MAX_LOCKDEP_SUBCLASSES)
        this_execution().fail(ViolationKind::lock_misuse, "invalid-subclass",
                              "BUG: looking up invalid subclass: " + std::to_string(subclass) +
                                  " (" + lock->name() + "; lockdep has subclasses 0.." +
                                  std::to_string(MAX_LOCKDEP_SUBCLASSES - 1) + ")",
                              loc);
    lockdep_graph& g = lockdep_state();
    if (g.off || g.full || !this_execution().limits().lockdep) return;
    const int next = g.node(map, subclass);
    if (next < 0) return;
    task_struct* me = current();
    const Operation attempt{.name = op, .obj = lock, .location = loc};
    const lockdep_irq_state irqs = lockdep_irqs_of(me, turned_off);
    if (!mark_irqflags(g, next, trylock, read != lockdep_read::none, irqs, attempt)) return;
    // As check_prevs_add(): walk the held locks from the most recent; each adds a dependency,
    // and the first that is not a trylock ends the walk (older ones reach `next` through it).
    for (int i = me->lockdep_depth - 1; i >= 0; --i) {
        const held_lock& h = me->held_locks[i];
        if (!h.map) continue; // a lock lockdep does not track
        const int held = g.node(h.map, h.subclass);
        if (held < 0) return;
        if (held == next && !trylock) {
            if (read == lockdep_read::recursive && h.read) break;
            report_recursive(g, next, attempt);
            return;
        }
        // The kind of this dependency (calc_dep()); one the graph has is checked already.
        const bool recursive = read == lockdep_read::recursive;
        const std::uint8_t dep =
            h.recursive_read ? (recursive ? DEP_SR : DEP_SN) : (recursive ? DEP_ER : DEP_EN);
        const bool known = g.depends(held, next);
        if (!trylock && (!known || !(g.edge(held, next).dep & dep))) {
            // check_noncircular(): a strong path from next back to held.
            std::vector<int> chain = g.strong_path(next, recursive, held, h.recursive_read);
            if (!chain.empty()) {
                report_cycle(g, h, held, next, chain, attempt);
                return;
            }
            if (!check_irq_usage(g, h, held, next, irqs, attempt)) return;
            if (known) {
                g.edge(held, next).dep |= dep;
            } else {
                if (g.edges.size() == MAX_LOCKDEP_ENTRIES) {
                    fill(g, "lockdep dependencies (MAX_LOCKDEP_ENTRIES)", MAX_LOCKDEP_ENTRIES);
                    return;
                }
                g.add(held, next);
                g.edges.push_back(
                    {{me->id(), me->name(), this_execution().step(), false, loc}, held, next, dep});
                me->lockdep_asked = true;
            }
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
    auto take = [task](lockdep_trace& t) {
        if (t.taken || t.task_id != task->id() || t.task.empty()) return;
        t.step = this_execution().step();
        t.taken = true;
    };
    lockdep_graph& g = lockdep_state();
    for (dependency& d : g.edges)
        take(d);
    for (lock_class& c : g.classes)
        for (lockdep_trace& t : c.usage_traces)
            take(t);
}

} // namespace lockcheck::detail
