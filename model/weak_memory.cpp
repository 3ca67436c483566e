// The execution graph of an execution under --memory-model lkmm, kept as the execution's local
// state, and the choices it offers the search: which write a read reads from, and where a
// write goes in its location's coherence order. A candidate is offered only if the graph
// with it is one LKMM allows; the coherence-last one always is (nothing in the graph can
// follow an event that has no successor yet), so no execution is ever a dead end.
#include "weak_memory.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <vector>

#include "memory/evidence.hpp"
#include "memory/graph.hpp"
#include "memory/lkmm.hpp"
#include "slab.hpp"

namespace lockcheck::detail {

std::optional<std::int64_t> Update::apply(std::int64_t old) const {
    switch (op) {
    case add:
        return old + a;
    case exchange:
        return a;
    case cmpxchg:
        return old == a ? std::optional<std::int64_t>(b) : std::nullopt;
    case add_unless:
        return old != b ? std::optional<std::int64_t>(old + a) : std::nullopt;
    case set_bits:
        return old | a;
    case clear_bits:
        return old & ~a;
    case dec_not_one:
        // lib/refcount.c compares unsigned: 0 and 1, and the saturated count, stay.
        if (old == b || static_cast<std::uint32_t>(old) <= 1) return std::nullopt;
        return old - 1;
    }
    return std::nullopt;
}

namespace weak_memory {

namespace {
// One per thread: check-all runs searches side by side, each with its rounds; a search's
// worker threads take their search's (start_workers()).
thread_local Round the_round;
} // namespace

void set_round(Round round) {
    the_round = round;
}

Round current_round() {
    return the_round;
}

namespace {

using memory::Fence;
using memory::Graph;

// An access as a sequence of events: what to append for it, tried against the graph first.
struct Access {
    std::uint16_t read_tags = 0;
    bool reads = false;
    bool writes = false;
    std::uint16_t write_tags = 0;
    std::int64_t value = 0;
};

// A fully ordered read-modify-write that stores `value` (both events tagged Mb, as a
// value-returning atomic's are).
Access full_rmw(std::int64_t value) {
    const std::uint16_t full = memory::kRmw | memory::kMb;
    return Access{
        .read_tags = full, .reads = true, .writes = true, .write_tags = full, .value = value};
}

class WeakMemory {
  public:
    WeakMemory() {
        this_execution().set_memory_hook(&untracked_step);
        this_execution().set_end_hook(&end_of_execution);
        this_execution().set_freed_hook(&free_seen);
    }
    // An allocation's lifetime as a location of its own: 0 while in use, 1 once kfree()'d.
    std::uint32_t lifetime_location(const Object& allocation) {
        const std::uint32_t loc = location(allocation, 0, &lifetimes_key_[allocation.id()]);
        return loc;
    }

    // The location `obj` stands for, made on first use with `latest` as its initial value
    // (no event reached it before, so what it holds is what set-up left there). `field`, the
    // address of one of the object's fields, makes that field a location of its own.
    // `pointer`: it holds a pointer, whose value names nothing in another execution.
    std::uint32_t location(const Object& obj, std::int64_t latest, const void* field = nullptr,
                           bool pointer = false) {
        auto [it, added] = locations_.try_emplace(field ? field : &obj, 0);
        if (added) {
            it->second = graph_.add_location(latest);
            objects_.resize(graph_.locations(), nullptr);
            objects_[it->second] = &obj;
            // A field is named by its address, which another execution's objects need not share.
            // So does a pointer's value: load buffering's evidence leaves both out.
            if (!field && !pointer)
                name(it->second, kObjectName, static_cast<std::uint64_t>(obj.id()));
        }
        return it->second;
    }
    // The location of a task's state (task_state_set()), made on first use holding `latest`.
    std::uint32_t task_location(TaskId task, std::int64_t latest) {
        auto [it, added] = task_locations_.try_emplace(task, 0);
        if (added) {
            it->second = graph_.add_location(latest);
            name(it->second, kTaskStateName, task);
        }
        return it->second;
    }
    // The location stop_machine()'s acknowledgements go through (stop_machine_entered()).
    std::uint32_t stopper_location() {
        if (stopper_ == memory::kNone) stopper_ = internal_location();
        return stopper_;
    }
    // The location of the hand-off `key` stands for (handed_off()), made on first use.
    std::uint32_t handoff_location(const void* key) {
        auto [it, added] = handoff_locations_.try_emplace(key, 0);
        if (added) it->second = internal_location();
        return it->second;
    }
    // A location of the checker's own (the stopper's, a hand-off's), holding 0.
    std::uint32_t internal_location() {
        const std::uint32_t loc = graph_.add_location(0);
        internal_.resize(graph_.locations(), false);
        internal_[loc] = true;
        return loc;
    }
    // Whether `loc` is such a location: its reads are no read of the model's (read_in_step()).
    bool internal(std::uint32_t loc) const { return loc < internal_.size() && internal_[loc]; }
    // A stopper's acknowledgement in `task`: a fully ordered RMW of the stopper location.
    void stopper_ack(std::uint16_t task) {
        const std::uint32_t loc = stopper_location();
        append_latest(task, loc, full_rmw(graph_[graph_.co(loc).back()].value + 1));
    }
    // set_current_state() and its kin in `task`: its state's write, then smp_mb() if it is one.
    void state_set(std::uint16_t task, const StateChange& change) {
        append_latest(task, task_location(task, change.before),
                      Access{.writes = true, .value = change.after});
        if (change.barrier) full_barrier(task);
    }
    // A second location for an object whose operations are not modelled access by access:
    // each one is a fully ordered read-modify-write of it (see untracked_step()).
    std::uint32_t sync_location(const Object& obj) {
        auto [it, added] = sync_locations_.try_emplace(&obj, 0);
        if (added) {
            it->second = graph_.add_location(0);
            name(it->second, kSyncName, static_cast<std::uint64_t>(obj.id()));
        }
        return it->second;
    }

    // Appends `access` of `loc`, reading from `write` and placing its write (if any) right
    // after `after` in coherence order.
    // `write` kNone: a future read (read()), of `future_value`.
    void append(std::uint16_t task, std::uint32_t loc, const Access& access, std::uint32_t write,
                std::size_t after, std::int64_t future_value = 0) {
        const std::uint32_t step = this_execution().step();
        // What the step was, for a data race report (end_of_execution()).
        if (step >= step_ops_.size()) step_ops_.resize(step + 1u);
        const Operation& op = this_execution().current_task().pending();
        step_ops_[step] = {op.name, op.location};
        const auto first = static_cast<std::uint32_t>(graph_.size());
        if (access.reads) {
            const std::int64_t value = write == memory::kNone ? future_value : graph_[write].value;
            graph_.add_read(task, loc, access.read_tags, write, step, value);
            seen(task, loc, value);
            if (!trying_ && (round_.evidence || round_.collect)) {
                read_nth_.resize(graph_.size(), memory::kNone);
                read_nth_.back() = reads_made_[{task, loc}]++;
            }
        }
        std::uint32_t written = memory::kNone, nth = 0;
        if (access.writes) {
            written = graph_.add_write(task, loc, access.write_tags, access.value, after, step);
            nth = made(task, loc, written);
        }
        if (const std::uint32_t read = address_source(task, loc); read != memory::kNone)
            for (auto e = first; e < graph_.size(); ++e)
                graph_.set_addr(e, read);
        if (written != memory::kNone && !future_.empty() && !trying_)
            settle(task, loc, written, nth);
    }
    // The running task's read just appended loaded a pointer to `target`.
    void pointer_loaded(std::uint16_t task, const void* target) {
        const auto read = static_cast<std::uint32_t>(graph_.size() - 1);
        if (graph_[read].kind != memory::Kind::read || graph_[read].task != task) return;
        pointer_reads_.push_back({task, read, allocation_of(target)});
    }
    // LKMM's addr: the task's latest read that loaded a pointer into the allocation (or to
    // the object) location `loc` lies in, if there is one.
    std::uint32_t address_source(std::uint16_t task, std::uint32_t loc) {
        if (pointer_reads_.empty() || loc >= objects_.size() || !objects_[loc])
            return memory::kNone;
        if (loc >= allocations_.size()) allocations_.resize(graph_.locations(), nullptr);
        if (!allocations_[loc]) allocations_[loc] = allocation_of(objects_[loc]);
        for (auto p = pointer_reads_.rbegin(); p != pointer_reads_.rend(); ++p)
            if (p->task == task && p->allocation == allocations_[loc]) return p->read;
        return memory::kNone;
    }
    void take_back(std::uint16_t task, const Access& access) {
        for (int n = access.reads + access.writes; n > 0; --n)
            graph_.pop();
        if (access.reads) {
            unnamed_[task] -= history_[task].back().loc == memory::kUnnamed;
            history_[task].pop_back();
        }
    }
    bool allowed(std::uint16_t task, std::uint32_t loc, const Access& access, std::uint32_t write,
                 std::size_t after) {
        const auto since = static_cast<std::uint32_t>(graph_.size());
        trying_ = true;
        append(task, loc, access, write, after);
        trying_ = false;
        // A read-side section still open ends after everything its task did so far: closed
        // here, so that the rcu axiom judges the candidate (it only grows as the section goes
        // on, so what it forbids now stays forbidden). Without a grace period the axiom
        // forbids nothing, and the sections are left open.
        int closed = 0;
        for (std::size_t t = 0; grace_period_ && t < rcu_open_.size(); ++t)
            for (int n = rcu_open_[t]; n > 0; --n, ++closed)
                graph_.add_fence(static_cast<std::uint16_t>(t), Fence::rcu_unlock,
                                 this_execution().step());
        const memory::Axiom axiom = memory::lkmm_forbids_added(graph_, since);
        const bool ok = axiom == memory::Axiom::none;
        // Coherence and atomicity do not look at program order beyond a location.
        if (axiom > memory::Axiom::atomicity)
            note_dependencies(ok, [&] {
                return memory::lkmm_forbids_added(graph_, since) == memory::Axiom::none;
            });
        for (; closed > 0; --closed)
            graph_.pop();
        take_back(task, access);
        return ok;
    }
    // An RCU event of `task` (rcu_read_locked() and its kin).
    void rcu_event(std::uint16_t task, Fence kind) {
        graph_.add_fence(task, kind, this_execution().step());
        grace_period_ = grace_period_ || kind == Fence::sync_rcu;
        if (task >= rcu_open_.size()) rcu_open_.resize(task + 1u, 0);
        if (kind == Fence::rcu_lock) ++rcu_open_[task];
        if (kind == Fence::rcu_unlock && rcu_open_[task]) --rcu_open_[task];
    }

    // Load buffering's evidence (memory/evidence.hpp). Locations named the same in every
    // execution: an object's by its number, a task's state by the task's, an object's own lock.
    static constexpr std::uint64_t kObjectName = 1, kTaskStateName = 2, kSyncName = 3;
    void name(std::uint32_t loc, std::uint64_t kind, std::uint64_t number) {
        names_.resize(graph_.locations(), memory::kUnnamed);
        names_[loc] = kind << 56 | number;
    }
    std::uint64_t name_of(std::uint32_t loc) const {
        return loc < names_.size() ? names_[loc] : memory::kUnnamed;
    }
    // The model chose `value` in `task` (a migration): part of every later write's record.
    void chose(std::uint16_t task, std::int64_t value) {
        if (task >= choices_.size()) choices_.resize(task + 1u, 0);
        choices_[task] = choices_[task] * 1000003u + static_cast<std::uint64_t>(value) + 1u;
    }
    // `task` read `value` at `loc`: its history, which a later write of its is recorded with.
    void seen(std::uint16_t task, std::uint32_t loc, std::int64_t value) {
        if (task >= history_.size()) {
            history_.resize(task + 1u);
            unnamed_.resize(task + 1u, 0);
        }
        history_[task].push_back({name_of(loc), value});
        if (history_[task].back().loc == memory::kUnnamed) ++unnamed_[task];
    }
    // `task` made write `e` of `loc`: marked independent of the reads before it the round's
    // evidence shows it does not depend on, and recorded for the next round (not a candidate
    // tried: only what the execution does).
    // Returns which of the task's writes of `loc` it is (from 0).
    std::uint32_t made(std::uint16_t task, std::uint32_t loc, std::uint32_t e) {
        if (!round_.evidence && !round_.collect) return 0;
        if (task >= history_.size()) {
            history_.resize(task + 1u);
            unnamed_.resize(task + 1u, 0);
        }
        std::uint32_t& count = writes_made_[{task, loc}];
        const std::uint32_t nth = count;
        if (!trying_) ++count;
        if (name_of(loc) == memory::kUnnamed) return nth;
        if (task >= choices_.size()) choices_.resize(task + 1u, 0);
        const memory::Made write{task, name_of(loc), nth, graph_[e].value, choices_[task]};
        if (!trying_ && round_.collect && future_.empty() && !this_execution().replaying())
            note_reads_ahead(loc, e, write);
        // A history with a location not named alike in every execution proves nothing.
        if (unnamed_[task] != 0) return nth;
        const std::span<const memory::Seen> reads = history_[task];
        if (round_.evidence)
            graph_.set_independent(e, round_.evidence->independent(mask_queries_++, write, reads));
        // Recorded even while a future read is open, in an execution that may turn out to be
        // none LKMM allows: the task's code did make this write after these reads, which is
        // all the evidence of independence says. (Which writes a read may read ahead comes
        // only from executions with none open: note_reads_ahead().)
        if (!trying_ && round_.collect) round_.collect->record(write, reads);
        return nth;
    }
    // How many writes of `loc` `task` has made so far.
    std::uint32_t writes_made(std::uint16_t task, std::uint32_t loc) const {
        const auto found = writes_made_.find({task, loc});
        return found == writes_made_.end() ? 0 : found->second;
    }

    // How many reads of `loc` `task` has made so far.
    std::uint32_t reads_made(std::uint16_t task, std::uint32_t loc) const {
        const auto found = reads_made_.find({task, loc});
        return found == reads_made_.end() ? 0 : found->second;
    }

    // Load buffering: a read may read a write its writer has not made yet (a future read), one
    // the rounds before saw that task make there (memory/evidence.hpp): those the rounds before
    // saw the same read (the task's same read of the location) could have read ahead, closing
    // a cycle of po and rf that LKMM may allow (note_reads_ahead()), that are another task's
    // next write of `loc`, in the catalogue's order; and only while no other future read is
    // open, one at a time (docs/memory-model.md, "Load buffering": the limits).
    void future_candidates(std::uint16_t task, std::uint32_t loc) {
        futures_.clear();
        const memory::Evidence* evidence = round_.evidence;
        if (!evidence || !future_.empty()) return;
        const std::uint64_t name = name_of(loc);
        if (name == memory::kUnnamed) return;
        const std::uint32_t query = future_queries_++;
        const auto same = [](const memory::Made& a, const memory::Made& b) {
            return a.task == b.task && a.nth == b.nth && a.value == b.value;
        };
        const memory::Reader reader{task, name, reads_made(task, loc)};
        for (const memory::Made& w : evidence->reads_ahead(query, reader))
            if (w.task != task && w.nth == writes_made(w.task, loc) &&
                (futures_.empty() || !same(futures_.back(), w)))
                futures_.push_back(w);
        evidence->offered(query, futures_);
    }
    // The running task made write `e`, its `nth` of `loc`: a future read that waits for it is
    // settled now, or the execution ends unsettled (Execution::end_unsettled()): the write has
    // another value; the graph with it is one LKMM forbids; or the read does not come before
    // the write in po | rf, so that the execution in which the write runs first, and the read
    // reads it as any other, covers this one.
    void settle(std::uint16_t task, std::uint32_t loc, std::uint32_t e, std::uint32_t nth) {
        const std::uint64_t name = name_of(loc);
        const std::size_t open = future_.size();
        for (std::size_t i = 0; i < future_.size();) {
            const FutureRead f = future_[i];
            if (f.write.task != task || f.write.loc != name || f.write.nth != nth) {
                ++i;
                continue;
            }
            future_.erase(future_.begin() + static_cast<std::ptrdiff_t>(i));
            graph_.bind(f.read, e);
            const auto allowed = [&] {
                return memory::lkmm_forbids_added(graph_, e) == memory::Axiom::none;
            };
            const bool closes = f.write.value == graph_[e].value && porf_before(f.read, e);
            if (!closes || !allowed()) {
                if (closes) note_dependencies(false, allowed);
                this_execution().end_unsettled();
                return;
            }
        }
        // Last: a finding that waited for these reads now stands, and ends the execution.
        this_execution().future_reads_open(-static_cast<int>(open - future_.size()));
    }
    // Round by round, what tells whether another round may explore what this one did not
    // (Catalogue::another_round_may_differ()).
    // `answer`, what `check` said of the graph: if it says otherwise with no dependencies, a
    // round that marks writes independent of reads may explore what this one did not.
    // Neither is asked again where an earlier execution of the search was (replaying()).
    template <class Check> void note_dependencies(bool answer, Check check) {
        if (!round_.collect || round_.collect->decided_by_dependencies() ||
            this_execution().replaying())
            return;
        graph_.set_dependencies(false);
        const bool without = check();
        graph_.set_dependencies(true);
        if (without != answer) round_.collect->dependencies_decided();
    }
    // The running task made write `e` of `loc` (`made`): every earlier read of `loc` by another
    // task that read another value and comes before `e` in po | rf could have read `e` ahead,
    // closing a cycle, if LKMM allows the graph in which it does. Asked with no dependencies
    // (what a later round's evidence may rule out): noted in the catalogue, a later round
    // offers that read `made` as a future read.
    void note_reads_ahead(std::uint32_t loc, std::uint32_t e, const memory::Made& made) {
        for (std::uint32_t r = 0; r < e && r < read_nth_.size(); ++r) {
            const memory::Event& read = graph_[r];
            if (read.kind != memory::Kind::read || read.loc != loc || read.task == made.task ||
                read_nth_[r] == memory::kNone || read.rf == memory::kNone ||
                read.value == made.value || read.is(memory::kRmw | memory::kLockRead))
                continue;
            const memory::Reader reader{read.task, made.loc, read_nth_[r]};
            if (round_.collect->knows_read_ahead(reader, made) || !porf_before(r, e) ||
                ordered_before(r, e))
                continue;
            const std::uint32_t was = read.rf;
            graph_.bind(r, e);
            graph_.set_dependencies(false);
            const bool allowed = memory::lkmm_forbids(graph_) == memory::Axiom::none;
            graph_.set_dependencies(true);
            graph_.bind(r, was);
            if (allowed) round_.collect->may_read_ahead(reader, made);
        }
    }
    // Whether event `from` happens before `to` by a chain LKMM orders whatever the
    // dependencies: within a task, from an event to a release after it, or to everything after
    // a full barrier after it or after an acquire (the event itself, or one reached); between
    // tasks, from a write to a read of it. Then `to` read by `from` would close a cycle of hb:
    // what note_reads_ahead() need not ask lkmm_forbids().
    bool ordered_before(std::uint32_t from, std::uint32_t to) const {
        std::vector<bool> seen(graph_.size(), false);
        // (event, whether every po-later event of its task is ordered after it)
        std::vector<std::pair<std::uint32_t, bool>> todo{{from, false}};
        while (!todo.empty()) {
            auto [e, all] = todo.back();
            todo.pop_back();
            const memory::Event& ev = graph_[e];
            all = all || ev.is(memory::kAcquire | memory::kLockRead);
            for (auto x = e + 1; x < graph_.size(); ++x) {
                const memory::Event& next = graph_[x];
                if (next.task != ev.task) continue;
                const bool full =
                    next.kind == memory::Kind::fence &&
                    (next.fence == memory::Fence::mb || next.fence == memory::Fence::sync_rcu);
                const bool release = next.is(memory::kRelease | memory::kUnlock | memory::kMb);
                all = all || full || next.is(memory::kMb);
                if (!all && !release) continue;
                if (x == to) return true;
                if (seen[x]) continue;
                seen[x] = true;
                if (next.kind == memory::Kind::write)
                    for (std::uint32_t y = 0; y < graph_.size(); ++y)
                        if (graph_[y].kind == memory::Kind::read && graph_[y].rf == x &&
                            graph_[y].task != next.task && !seen[y]) {
                            seen[y] = true;
                            todo.push_back({y, false});
                        }
            }
        }
        return false;
    }
    // Whether event `from` comes before `to` in (po | rf)+.
    bool porf_before(std::uint32_t from, std::uint32_t to) const {
        std::vector<bool> seen(graph_.size(), false);
        std::vector<std::uint32_t> todo{from};
        while (!todo.empty()) {
            const std::uint32_t e = todo.back();
            todo.pop_back();
            if (e == to) return true;
            if (seen[e]) continue;
            seen[e] = true;
            const memory::Event& ev = graph_[e];
            for (auto x = e + 1; x < graph_.size(); ++x)
                if (graph_[x].task == ev.task) {
                    todo.push_back(x); // po's next step
                    break;
                }
            if (ev.kind != memory::Kind::write) continue;
            for (std::uint32_t x = 0; x < graph_.size(); ++x)
                if (graph_[x].kind == memory::Kind::read && graph_[x].rf == e) todo.push_back(x);
        }
        return false;
    }

    // The writes a read may read from, coherence-last first; `access_for` gives what the
    // access is once it has read a write's value (an RMW that fails is a plain read).
    // A loop's read of `obj` that must see a newer write than the task saw there skips the one
    // it saw (Execution::read_progresses()).
    // With `future`, a plain read's: it may also read a write not made yet (future_candidates());
    // then kNone is returned and *future is that write.
    template <class AccessFor>
    std::uint32_t choose_write(std::uint16_t task, const Object* obj, std::uint32_t loc,
                               AccessFor access_for, const memory::Made** future = nullptr) {
        const std::vector<std::uint32_t>& co = graph_.co(loc);
        candidates_.clear();
        candidates_.push_back(co.back());
        std::size_t floor = coherence_floor(task, loc);
        if (obj && this_execution().read_progresses(*obj))
            floor = std::min(floor + 1, co.size() - 1);
        for (std::size_t i = co.size() - 1; i-- > floor;)
            if (allowed(task, loc, access_for(graph_[co[i]].value), co[i], i))
                candidates_.push_back(co[i]);
        // After a grace period the latest write may be one the rcu axiom forbids (a reader
        // inside a section that missed what came before the grace period): offered only if
        // allowed. Before one, the axiom forbids nothing.
        if (grace_period_ &&
            !allowed(task, loc, access_for(graph_[co.back()].value), co.back(), co.size() - 1)) {
            if (candidates_.size() == 1) return doomed(co.back());
            candidates_.erase(candidates_.begin());
        }
        futures_.clear();
        if (future) future_candidates(task, loc);
        const std::uint32_t chosen = this_execution().choose(
            static_cast<std::uint32_t>(candidates_.size() + futures_.size()), true);
        if (chosen >= candidates_.size()) {
            *future = &futures_[chosen - candidates_.size()];
            return memory::kNone;
        }
        if (candidates_[chosen] != co.back()) this_execution().stale_read();
        return candidates_[chosen];
    }
    // No write a read may read, no place a write may take, that LKMM allows: the graph so far
    // has no continuation LKMM allows, as when a softirq ran an RCU callback in the middle of
    // a reader's section (its grace period could end: the reader entered after it began) and
    // the reader had read what the grace period came after. Any further event of the section
    // is forbidden, so the execution is none LKMM allows: it ends unsettled, and `placeholder`
    // is returned to the task being unwound.
    template <class T> T doomed(T placeholder) {
        this_execution().end_unsettled();
        return placeholder;
    }
    // Where a write goes in coherence order: after the co-last write, or before it where LKMM
    // allows.
    std::size_t choose_position(std::uint16_t task, std::uint32_t loc, const Access& access) {
        const std::size_t last = graph_.co(loc).size() - 1;
        positions_.clear();
        positions_.push_back(last);
        for (std::size_t p = last; p-- > coherence_floor(task, loc);)
            if (allowed(task, loc, access, memory::kNone, p)) positions_.push_back(p);
        // As choose_write()'s latest write.
        if (grace_period_ && !allowed(task, loc, access, memory::kNone, last)) {
            if (positions_.size() == 1) return doomed(last);
            positions_.erase(positions_.begin());
        }
        return positions_[this_execution().choose(static_cast<std::uint32_t>(positions_.size()),
                                                  true)];
    }

    Graph& graph() { return graph_; }
    const Graph& graph() const { return graph_; }

    // `access` of `loc` as sequential consistency would have it: reading the coherence-last
    // write and placed last, with no choice (what a lock or the object's own lock orders).
    void append_latest(std::uint16_t task, std::uint32_t loc, const Access& access) {
        append(task, loc, access, graph_.co(loc).back(), graph_.co(loc).size() - 1);
    }
    // A read of `loc` by `task`, of a write the search chooses among those LKMM allows; returns
    // the value read.
    std::int64_t read(std::uint16_t task, const Object* obj, std::uint32_t loc,
                      const Access& access) {
        const memory::Made* future = nullptr;
        const std::uint32_t w = choose_write(
            task, obj, loc, [&](std::int64_t) { return access; }, &future);
        if (future) {
            const memory::Made wanted = *future;
            append(task, loc, access, memory::kNone, 0, wanted.value);
            future_.push_back({static_cast<std::uint32_t>(graph_.size() - 1), wanted});
            this_execution().future_reads_open(1);
            return wanted.value;
        }
        append(task, loc, access, w, 0);
        return graph_[w].value;
    }
    // smp_mb() in `task` at the step being run.
    void full_barrier(std::uint16_t task) {
        graph_.add_fence(task, Fence::mb, this_execution().step());
    }

    // lock.cat's lock (LKR reading the last unlock, and LKW) and unlock (UL) of `loc`, in the
    // order the scheduler let tasks take it.
    void lock(std::uint16_t task, std::uint32_t loc) {
        append_latest(task, loc,
                      Access{.read_tags = memory::kLockRead,
                             .reads = true,
                             .writes = true,
                             .write_tags = memory::kLockWrite,
                             .value = 1});
    }
    void unlock(std::uint16_t task, std::uint32_t loc) {
        append_latest(task, loc, Access{.writes = true, .write_tags = memory::kUnlock, .value = 0});
    }

    // The coherence-latest write the task has seen of `loc`, as a position in co(loc): its own
    // writes, and the writes its reads read from. A read cannot read, nor a write be placed,
    // before it (coherence: po-loc against co and fr). The check would refuse those too; this
    // spares it the work.
    std::size_t coherence_floor(std::uint16_t task, std::uint32_t loc) const {
        std::size_t floor = 0;
        for (std::uint32_t e = 0; e < graph_.size(); ++e) {
            const memory::Event& ev = graph_[e];
            if (ev.task != task || ev.loc != loc || ev.kind == memory::Kind::fence) continue;
            const std::uint32_t w = ev.kind == memory::Kind::read ? ev.rf : e;
            if (w != memory::kNone) floor = std::max(floor, graph_.co_position(w));
        }
        return floor;
    }

    // A stateful search tells states apart by the whole graph: what a read may still see
    // depends on it.
    void fingerprint(StateHasher& h) const {
        for (const memory::Event& e : graph_.events()) {
            h.add(static_cast<std::uint64_t>(e.kind) | std::uint64_t{e.tags} << 8 |
                  static_cast<std::uint64_t>(e.fence) << 24 | std::uint64_t{e.task} << 32);
            h.add(std::uint64_t{e.loc} | std::uint64_t{e.rf} << 32);
            h.add(static_cast<std::uint64_t>(e.value));
            h.add(e.independent);
        }
        for (std::uint32_t l = 0; l < graph_.locations(); ++l)
            for (std::uint32_t w : graph_.co(l))
                h.add(w);
    }

  private:
    static void untracked_step(Execution& ex, Task& task, const Operation& op);
    static void end_of_execution(Execution& ex);
    static bool free_seen(Execution& ex, const Object& obj);
    // Distinct addresses that key the lifetime locations, by allocation id.
    std::unordered_map<int, char> lifetimes_key_;

  public:
    // The data race end_of_execution() reported, if it did.
    const memory::DataRace& race() const { return race_; }

  private:
    memory::DataRace race_{};

  public:
    void ordered_more(const char* op) {
        if (std::find(fully_ordered.begin(), fully_ordered.end(), op) == fully_ordered.end())
            fully_ordered.push_back(op);
    }
    std::vector<const char*> fully_ordered; // see fully_ordered_operations()

  private:
    Graph graph_;
    std::unordered_map<const void*, std::uint32_t> locations_; // by object or field address
    std::vector<const Object*> objects_; // by location: the object it stands for, if one does
    // By step: the operation of each step that made an access (append()).
    struct StepOp {
        const char* name = nullptr;
        std::source_location location{};
    };
    std::vector<StepOp> step_ops_;
    std::unordered_map<const Object*, std::uint32_t> sync_locations_;
    std::unordered_map<TaskId, std::uint32_t> task_locations_;
    std::unordered_map<const void*, std::uint32_t> handoff_locations_;
    std::vector<bool> internal_; // by location: internal_location()
    // The reads that loaded a pointer (pointer_loaded()), in the order made, and by location
    // the allocation its object lies in (made on first use).
    struct PointerRead {
        std::uint16_t task = 0;
        std::uint32_t read = 0;
        const void* allocation = nullptr;
    };
    std::vector<PointerRead> pointer_reads_;
    // Whether the graph has a grace period (a Sync-rcu: only then can the rcu axiom forbid
    // anything), and by task how deep its open read-side sections nest.
    bool grace_period_ = false;
    std::vector<std::uint8_t> rcu_open_;
    std::vector<const void*> allocations_;
    std::uint32_t stopper_ = memory::kNone;
    std::vector<std::uint32_t> candidates_;
    std::vector<std::size_t> positions_;
    // Load buffering's evidence: each location's name (kUnnamed: none), each task's reads in
    // program order and how many of them are of unnamed locations, each task's writes so far
    // by location, and the round's catalogues.
    std::vector<std::uint64_t> names_;
    std::vector<std::vector<memory::Seen>> history_;
    std::vector<std::uint32_t> unnamed_;
    std::vector<std::uint64_t> choices_; // by task: chose()
    std::map<std::pair<std::uint16_t, std::uint32_t>, std::uint32_t> writes_made_;
    // The same of reads; by event, the count at each read (kNone: not counted).
    std::map<std::pair<std::uint16_t, std::uint32_t>, std::uint32_t> reads_made_;
    std::vector<std::uint32_t> read_nth_;
    bool trying_ = false;
    // The future reads not settled yet: the read, and the write it waits for.
    struct FutureRead {
        std::uint32_t read = 0;
        memory::Made write;
    };
    std::vector<FutureRead> future_;
    std::vector<memory::Made> futures_; // future_candidates()
    // The asks of the round's evidence so far, of each kind (memory::Evidence).
    std::uint32_t mask_queries_ = 0, future_queries_ = 0;
    Round round_ = current_round();
};

// Every entry point of the model layer below runs under CheckerMemory: what memory/ allocates
// for it (the relations a check builds, the round's catalogue, the thread's scratch buffers)
// comes from malloc(), not from the arena that model code's `new` takes from. The catalogue and
// the buffers outlive the execution; the relations are freed within the call, where the arena
// would keep them to the execution's end.
WeakMemory& memory() {
    Execution& ex = this_execution();
    ex.memory_modelled();
    return ex.local<WeakMemory>();
}

// The access reads the allocation's lifetime: the free, or where LKMM allows, what came before
// it (the coherence-latest write is not always allowed with RCU: choose_write()).
bool WeakMemory::free_seen(Execution& ex, const Object& obj) {
    const CheckerMemory checker(ex);
    WeakMemory& m = ex.local<WeakMemory>();
    const std::uint32_t loc = m.lifetime_location(*obj.freed_with());
    const auto task = static_cast<std::uint16_t>(ex.current_task().id());
    return m.read(task, &obj, loc, Access{.reads = true}) != 0;
}

std::uint16_t running_task() {
    return static_cast<std::uint16_t>(this_execution().current_task().id());
}

// An operation of an object whose memory accesses are not modelled one by one (a completion,
// a wait queue, a list): a fully ordered read-modify-write of the object, in the order the
// operations ran. That orders at least as much as the kernel documents for any of them, so
// it never lets a read see what the kernel forbids; it may hide a missing barrier the
// kernel's weaker ordering would expose.
void WeakMemory::untracked_step(Execution& ex, Task& task, const Operation& op) {
    const CheckerMemory checker(ex);
    WeakMemory& m = ex.local<WeakMemory>();
    const std::uint32_t loc = m.sync_location(*op.obj);
    m.ordered_more(op.name);
    const auto t = static_cast<std::uint16_t>(task.id());
    const std::uint32_t step = ex.step();
    const std::int64_t value = m.graph_[m.graph_.co(loc).back()].value;
    if (op.read_only) {
        // A read that orders as a full barrier on both sides.
        m.graph_.add_fence(t, Fence::mb, step);
        m.graph_.add_read(t, loc, 0, m.graph_.co(loc).back(), step);
        m.seen(t, loc, value);
        m.graph_.add_fence(t, Fence::mb, step);
        return;
    }
    const std::uint16_t full = memory::kRmw | memory::kMb;
    m.graph_.add_read(t, loc, full, m.graph_.co(loc).back(), step);
    m.seen(t, loc, value);
    m.graph_.add_write(t, loc, full, step, m.graph_.co(loc).size() - 1, step);
}

std::uint16_t read_tags(Ordering order) {
    switch (order) {
    case Ordering::plain:
        return memory::kPlain;
    case Ordering::acquire:
        return memory::kAcquire;
    case Ordering::noreturn:
        return memory::kNoreturn;
    default:
        return 0;
    }
}

std::uint16_t write_tags(Ordering order) {
    if (order == Ordering::plain) return memory::kPlain;
    return order == Ordering::release || order == Ordering::release_acquire_on_zero
               ? memory::kRelease
               : 0;
}

// A data race by LKMM's definition in the finished execution (memory::lkmm_data_race()):
// the race detector's own happens-before orders more than LKMM (atomic_inc() orders nothing
// there), so it may have missed it. The report cites the two tasks' steps between the two
// accesses: what the model relied on to order them, which LKMM does not count.
void WeakMemory::end_of_execution(Execution& ex) {
    const CheckerMemory checker(ex);
    WeakMemory& m = ex.local<WeakMemory>();
    // A future read whose write never came: the graph is no execution.
    if (!m.future_.empty()) {
        ex.end_unsettled();
        return;
    }
    if (!ex.limits().races) return;
    const Graph& g = m.graph_;
    const memory::DataRace race = memory::lkmm_data_race(g);
    if (race.earlier == memory::kNone) {
        m.note_dependencies(false,
                            [&g] { return memory::lkmm_data_race(g).earlier != memory::kNone; });
        return;
    }
    const Object* variable = m.objects_[g[race.earlier].loc];
    if (!variable) return; // a lock's or a task's state: no plain access reaches them
    m.race_ = race;
    const auto access = [&g, &m](std::uint32_t e) {
        const memory::Event& ev = g[e];
        const bool write = ev.kind == memory::Kind::write;
        const StepOp at = ev.step < m.step_ops_.size() ? m.step_ops_[ev.step] : StepOp{};
        return RaceDetector::Access{.task = ev.task,
                                    .step = ev.step,
                                    .op = at.name ? at.name : (write ? "write" : "read"),
                                    .write = write,
                                    .plain = ev.is(memory::kPlain),
                                    .location = at.location};
    };
    const memory::Event& first = g[race.earlier];
    const memory::Event& second = g[race.later];
    std::vector<std::uint32_t> between;
    for (std::uint32_t e = race.earlier + 1; e < race.later; ++e) {
        const memory::Event& ev = g[e];
        const bool theirs = ev.task == first.task || ev.task == second.task;
        if (theirs && ev.step > first.step && ev.step < second.step &&
            (between.empty() || between.back() != ev.step))
            between.push_back(ev.step);
    }
    ex.report_data_race({variable->id(), access(race.earlier), access(race.later)},
                        std::move(between));
}

} // namespace

std::int64_t load(const Object& obj, std::int64_t latest, Ordering order, bool pointer) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    const std::uint16_t task = running_task();
    const std::uint32_t loc = m.location(obj, latest, nullptr, pointer);
    return m.read(task, &obj, loc, Access{.read_tags = read_tags(order), .reads = true});
}

std::int64_t load_field(const Object& obj, const void* field, std::int64_t latest, Ordering order) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    const std::uint32_t loc = m.location(obj, latest, field);
    return m.read(running_task(), &obj, loc, Access{.read_tags = read_tags(order), .reads = true});
}

void field_read(const Object& obj, const void* field, std::int64_t latest, Ordering order) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    m.append_latest(running_task(), m.location(obj, latest, field),
                    Access{.read_tags = read_tags(order), .reads = true});
}

void field_written(const Object& obj, const void* field, std::int64_t latest, std::int64_t value,
                   Ordering order) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    m.append_latest(running_task(), m.location(obj, latest, field),
                    Access{.writes = true, .write_tags = write_tags(order), .value = value});
}

bool store(const Object& obj, std::int64_t latest, std::int64_t value, Ordering order,
           bool pointer) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    const std::uint16_t task = running_task();
    const std::uint32_t loc = m.location(obj, latest, nullptr, pointer);
    const Access access{.writes = true, .write_tags = write_tags(order), .value = value};
    const std::size_t after = m.choose_position(task, loc, access);
    m.append(task, loc, access, memory::kNone, after);
    return after == m.graph().co(loc).size() - 2;
}

RmwResult rmw(const Object& obj, std::int64_t latest, Update update, Ordering order, bool pointer) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    const std::uint16_t task = running_task();
    const std::uint32_t loc = m.location(obj, latest, nullptr, pointer);
    // What the access is after reading `old`: a failed conditional RMW has no write and no
    // ordering (the .bell drops the tags of an RMW not in rmw).
    auto access_for = [&](std::int64_t old) {
        const std::optional<std::int64_t> stored = update.apply(old);
        // It stays an event of the set RMW, which smp_mb__after_atomic() upgrades.
        if (!stored) return Access{.read_tags = memory::kRmw, .reads = true};
        const std::uint16_t full = order == Ordering::full ? memory::kMb : 0;
        const std::uint16_t acquire =
            order == Ordering::release_acquire_on_zero && *stored == 0 ? memory::kAcquire : 0;
        return Access{
            .read_tags =
                static_cast<std::uint16_t>(memory::kRmw | full | acquire | read_tags(order)),
            .reads = true,
            .writes = true,
            .write_tags = static_cast<std::uint16_t>(memory::kRmw | full | write_tags(order)),
            .value = *stored};
    };
    const std::uint32_t w = m.choose_write(task, &obj, loc, access_for);
    const std::int64_t old = m.graph()[w].value;
    const Access access = access_for(old);
    // Atomic: its write goes right after the write it read in coherence order.
    const std::size_t after = m.graph().co_position(w);
    m.append(task, loc, access, w, after);
    const bool last = access.writes && m.graph().co(loc).back() == m.graph().co(loc)[after + 1];
    return RmwResult{old, access.writes, last, access.value};
}

void barrier(Barrier kind) {
    const CheckerMemory checker(this_execution());
    static constexpr Fence fences[] = {Fence::mb,
                                       Fence::rmb,
                                       Fence::wmb,
                                       Fence::before_atomic,
                                       Fence::after_atomic,
                                       Fence::after_spinlock,
                                       Fence::after_unlock_lock};
    Execution& ex = this_execution();
    const std::uint16_t task = running_task();
    ex.flush_memory_step();
    ex.local<WeakMemory>().graph().add_fence(task, fences[static_cast<int>(kind)], ex.step());
}

void lock_acquired(const Object& lock) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    m.lock(running_task(), m.location(lock, 0));
}

void lock_released(const Object& lock) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    m.unlock(running_task(), m.location(lock, 0));
}

void cpu_switched(const Object& rq) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    const std::uint32_t loc = m.location(rq, 0);
    const std::uint16_t task = running_task();
    // The first atomic section there, or this task's own before: program order suffices.
    const std::vector<std::uint32_t>& co = m.graph().co(loc);
    if (co.size() == 1 || m.graph()[co.back()].task == task) return;
    m.lock(task, loc);
    m.graph().add_fence(task, Fence::after_spinlock, this_execution().step());
}

void task_spawned(const Task& child) {
    const CheckerMemory checker(this_execution());
    Execution& ex = this_execution();
    // The step the spawn is part of keeps its own events first (flush_memory_step()).
    ex.flush_memory_step();
    WeakMemory& m = ex.local<WeakMemory>();
    const std::uint16_t parent = running_task();
    const auto task = static_cast<std::uint16_t>(child.id());
    const std::uint32_t start = m.task_location(static_cast<TaskId>(child.id()), TASK_RUNNING);
    m.full_barrier(parent);
    m.append_latest(parent, start,
                    Access{.writes = true, .write_tags = memory::kRelease, .value = TASK_RUNNING});
    m.append_latest(task, start, Access{.read_tags = memory::kAcquire, .reads = true});
    m.full_barrier(task);
}

namespace {

// What `from` did so far ordered before what `to` does next: a release write of `loc` in
// `from`, and an acquire read of its latest write in `to`.
void synchronize(WeakMemory& m, std::uint16_t from, std::uint16_t to, std::uint32_t loc) {
    m.append_latest(from, loc, Access{.writes = true, .write_tags = memory::kRelease, .value = 1});
    m.append_latest(to, loc, Access{.read_tags = memory::kAcquire, .reads = true});
}

// The running step's events as they would be without the hand-off (flush_memory_step()),
// then the hand-off's.
WeakMemory& after_the_steps_own() {
    Execution& ex = this_execution();
    ex.flush_memory_step();
    return ex.local<WeakMemory>();
}

} // namespace

void handed_off(const void* key) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = after_the_steps_own();
    m.append_latest(running_task(), m.handoff_location(key),
                    Access{.writes = true, .write_tags = memory::kRelease, .value = 1});
}

void taken_over(const void* key) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = after_the_steps_own();
    m.append_latest(running_task(), m.handoff_location(key),
                    Access{.read_tags = memory::kAcquire, .reads = true});
}

void interrupt_entered(const Task& handler, const Task& interrupted) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = after_the_steps_own();
    synchronize(m, static_cast<std::uint16_t>(interrupted.id()),
                static_cast<std::uint16_t>(handler.id()), m.internal_location());
}

void interrupt_left(const Task& handler, const Task& interrupted) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = after_the_steps_own();
    synchronize(m, static_cast<std::uint16_t>(handler.id()),
                static_cast<std::uint16_t>(interrupted.id()), m.internal_location());
}

void scheduled_on(bool migrated, int cpu) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    m.chose(running_task(), cpu);
    if (migrated) m.full_barrier(running_task());
}

void stop_machine_entered() {
    const CheckerMemory checker(this_execution());
    Execution& ex = this_execution();
    WeakMemory& m = memory();
    const std::uint16_t self = running_task();
    for (const auto& t : ex.tasks())
        if (t->id() != self) m.stopper_ack(static_cast<std::uint16_t>(t->id()));
    m.stopper_ack(self);
}

void stop_machine_left() {
    const CheckerMemory checker(this_execution());
    Execution& ex = this_execution();
    WeakMemory& m = memory();
    const std::uint16_t self = running_task();
    m.stopper_ack(self);
    for (const auto& t : ex.tasks())
        if (t->id() != self && !t->finished()) m.stopper_ack(static_cast<std::uint16_t>(t->id()));
}

void online_mask_changed(const Object& mask, std::int64_t before, std::int64_t after) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    const std::uint16_t task = running_task();
    const std::uint32_t lock = m.sync_location(mask);
    m.lock(task, lock);
    m.append_latest(task, m.location(mask, before), full_rmw(after));
    m.unlock(task, lock);
}

void rwsem_released(const Object& sem) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    const std::uint16_t rmw = memory::kRmw;
    m.append_latest(running_task(), m.location(sem, 0),
                    Access{.read_tags = rmw,
                           .reads = true,
                           .writes = true,
                           .write_tags = static_cast<std::uint16_t>(rmw | memory::kUnlock),
                           .value = 0});
}

void wait_queue_changed(const Object& wq, std::int64_t before, std::int64_t after,
                        std::optional<StateChange> state) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    const std::uint16_t task = running_task();
    const std::uint32_t lock = m.sync_location(wq);
    const std::uint32_t list = m.location(wq, before);
    m.lock(task, lock);
    if (after != before) m.append_latest(task, list, Access{.writes = true, .value = after});
    if (state) m.state_set(task, *state);
    m.unlock(task, lock);
}

void locked_update(const Object& obj, std::int64_t before, std::int64_t after,
                   std::span<const Task* const> woken) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    const std::uint16_t task = running_task();
    const std::uint32_t lock = m.sync_location(obj);
    const std::uint32_t value = m.location(obj, before);
    m.lock(task, lock);
    m.append_latest(task, value, Access{.reads = true});
    if (after != before) m.append_latest(task, value, Access{.writes = true, .value = after});
    if (!woken.empty()) m.full_barrier(task);
    for (const Task* sleeper : woken) {
        const std::uint32_t at = m.task_location(sleeper->id(), TASK_RUNNING);
        m.append_latest(task, at, Access{.reads = true});
        m.append_latest(task, at, Access{.writes = true, .value = TASK_RUNNING});
    }
    m.unlock(task, lock);
}

void task_state_set(long latest, long state, bool barrier) {
    const CheckerMemory checker(this_execution());
    memory().state_set(running_task(), StateChange{latest, state, barrier});
}

long task_state_seen(const Task& sleeper, long latest) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    const std::uint16_t task = running_task();
    m.full_barrier(task);
    const std::uint32_t loc = m.task_location(static_cast<TaskId>(sleeper.id()), latest);
    return static_cast<long>(m.read(task, nullptr, loc, Access{.reads = true}));
}

void task_state_woken(const Task& sleeper, long latest) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    m.append_latest(running_task(), m.task_location(static_cast<TaskId>(sleeper.id()), latest),
                    Access{.writes = true, .value = TASK_RUNNING});
}

void task_state_scheduled(long latest) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    const std::uint16_t task = running_task();
    m.append_latest(task, m.task_location(task, latest),
                    Access{.read_tags = memory::kAcquire, .reads = true});
    m.full_barrier(task);
}

bool wait_queue_seen_active(const Object& wq, std::int64_t waiters) {
    const CheckerMemory checker(this_execution());
    return load(wq, waiters, Ordering::relaxed) != 0;
}

ReadSeen read_in_step(const Execution& ex, std::uint32_t step) {
    const WeakMemory* m = ex.find_local<WeakMemory>();
    if (!m) return {};
    const Graph& g = m->graph();
    for (std::uint32_t e = static_cast<std::uint32_t>(g.size()); e-- > 0;) {
        const memory::Event& r = g[e];
        // A location's initial write is appended when the location is first used, with step 0.
        if (r.is(memory::kInit)) continue;
        if (r.step < step) break;
        if (r.step != step || r.kind != memory::Kind::read || m->internal(r.loc)) continue;
        // A future read's write is not made yet (WeakMemory::settle()).
        if (r.rf == memory::kNone) return {true, 0, 0};
        ReadSeen seen{true, g[r.rf].step, 0};
        // The latest write there was when it read: written before it, coherence-after its own.
        const auto& co = g.co(r.loc);
        for (std::size_t i = co.size(); i-- > g.co_position(r.rf) + 1;)
            if (co[i] < e) {
                seen.missed = g[co[i]].step;
                break;
            }
        return seen;
    }
    return {};
}

namespace {

// Where a barrier could go: between a task's access `before` and its next one, `after`.
struct Gap {
    std::uint32_t before = memory::kNone;
    std::uint32_t after = memory::kNone;
};

// The gap of the task of `e` right after it (`later`) or right before it; none at either end,
// or inside one step (its events are one operation).
Gap gap_at(const Graph& g, std::uint32_t e, bool later) {
    const memory::Event& x = g[e];
    const auto same_task = [&](std::uint32_t i) {
        return g[i].task == x.task && g[i].kind != memory::Kind::fence;
    };
    if (later) {
        for (std::uint32_t i = e + 1; i < g.size(); ++i)
            if (same_task(i)) return g[i].step != x.step ? Gap{e, i} : Gap{};
    } else {
        for (std::uint32_t i = e; i-- > 0;)
            if (same_task(i)) return g[i].step != x.step ? Gap{i, e} : Gap{};
    }
    return {};
}

// The weakest barrier that orders the gap's two accesses: smp_rmb() between reads, smp_wmb()
// between writes, else smp_mb(); beside a read-modify-write, the kernel's spelling of that
// (Documentation/atomic_t.txt): smp_mb__before_atomic() before one, smp_mb__after_atomic()
// after one.
std::pair<Fence, const char*> weakest(const Graph& g, const Gap& gap) {
    if (g[gap.after].is(memory::kRmw)) return {Fence::before_atomic, "smp_mb__before_atomic()"};
    if (g[gap.before].is(memory::kRmw)) return {Fence::after_atomic, "smp_mb__after_atomic()"};
    const memory::Kind a = g[gap.before].kind, b = g[gap.after].kind;
    if (a == memory::Kind::read && b == memory::Kind::read) return {Fence::rmb, "smp_rmb()"};
    if (a == memory::Kind::write && b == memory::Kind::write) return {Fence::wmb, "smp_wmb()"};
    return {Fence::mb, "smp_mb()"};
}

// A barrier tried in a gap: smp_mb(), or the weakest that orders the gap.
struct Placed {
    Gap gap;
    bool full = false;
};

std::vector<memory::ExtraFence> fences_at(const Graph& g, const std::vector<Placed>& places) {
    std::vector<memory::ExtraFence> extra;
    for (const Placed& p : places)
        extra.push_back(
            {g[p.gap.before].task, p.gap.before, p.full ? Fence::mb : weakest(g, p.gap).first});
    return extra;
}

memory::Axiom forbidden_with(const Graph& g, const std::vector<Placed>& places) {
    return memory::lkmm_forbids(g, fences_at(g, places));
}

// A barrier in one gap, the weakest first; then one in every gap (message passing needs both
// sides ordered), the weakest, then smp_mb() everywhere.
std::vector<std::vector<Placed>> barriers_to_try(const std::vector<Gap>& gaps) {
    std::vector<std::vector<Placed>> tries;
    for (const bool full : {false, true}) {
        for (const Gap& gap : gaps)
            tries.push_back({{gap, full}});
        if (gaps.size() > 1) {
            tries.emplace_back();
            for (const Gap& gap : gaps)
                tries.back().push_back({gap, full});
        }
    }
    return tries;
}

// The gap of the task of `e` right after its step (`later`) or right before it.
Gap gap_beside_step(const Graph& g, std::uint32_t e, bool later) {
    const auto same_step = [&g, e](std::uint32_t i) {
        return g[i].task == g[e].task && g[i].step == g[e].step && g[i].kind != memory::Kind::fence;
    };
    std::uint32_t edge = e;
    if (later) {
        for (std::uint32_t i = e + 1; i < g.size(); ++i)
            if (same_step(i)) edge = i;
    } else {
        for (std::uint32_t i = e; i-- > 0;)
            if (same_step(i)) edge = i;
    }
    return gap_at(g, edge, later);
}

// The barriers that would order a data race's two accesses: in the earlier one's task right
// after its step, in the later one's right before its step, or in both.
std::vector<MissingBarrier> race_barriers(const Graph& g, const memory::DataRace& race) {
    std::vector<Gap> gaps;
    for (const Gap& gap :
         {gap_beside_step(g, race.earlier, true), gap_beside_step(g, race.later, false)})
        if (gap.before != memory::kNone) gaps.push_back(gap);
    for (const std::vector<Placed>& places : barriers_to_try(gaps)) {
        const memory::DataRace left = memory::lkmm_data_race(g, fences_at(g, places));
        // Barriers only take races away, and this pair was the first: if it is not reported
        // first now, it is ordered.
        if (left.earlier == race.earlier && left.later == race.later) continue;
        std::vector<MissingBarrier> found;
        for (const Placed& p : places)
            found.push_back({g[p.gap.before].task, g[p.gap.before].step, g[p.gap.after].step,
                             p.full ? "smp_mb()" : weakest(g, p.gap).second, "data race"});
        return found;
    }
    return {};
}

std::vector<MissingBarrier> reported(const Graph& g, const std::vector<Placed>& places,
                                     memory::Axiom axiom) {
    std::vector<MissingBarrier> found;
    for (const Placed& p : places)
        found.push_back({g[p.gap.before].task, g[p.gap.before].step, g[p.gap.after].step,
                         p.full ? "smp_mb()" : weakest(g, p.gap).second,
                         memory::axiom_name(axiom)});
    return found;
}

} // namespace

void orders_nothing() {
    const CheckerMemory checker(this_execution());
    memory();
}

void freed(const Object& allocation) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    m.append_latest(running_task(), m.lifetime_location(allocation),
                    Access{.writes = true, .value = 1});
}

void pointer_loaded(const void* target) {
    const CheckerMemory checker(this_execution());
    memory().pointer_loaded(running_task(), target);
}

namespace {
void rcu_event(Fence kind) {
    const CheckerMemory checker(this_execution());
    memory().rcu_event(running_task(), kind);
}
} // namespace

void rcu_read_locked() {
    rcu_event(Fence::rcu_lock);
}
void rcu_read_unlocked() {
    rcu_event(Fence::rcu_unlock);
}
void rcu_synchronized() {
    rcu_event(Fence::sync_rcu);
}

std::vector<const char*> fully_ordered_operations(const Execution& ex) {
    const WeakMemory* m = ex.find_local<WeakMemory>();
    return m ? m->fully_ordered : std::vector<const char*>{};
}

std::vector<MissingBarrier> missing_barriers(const Execution& ex) {
    const WeakMemory* m = ex.find_local<WeakMemory>();
    if (!m) return {};
    const Graph& g = m->graph();
    if (m->race().earlier != memory::kNone) return race_barriers(g, m->race());
    // Where the execution is not sequentially consistent: a read that missed a write there was
    // when it ran, or a write placed in coherence order before one that ran before it. The
    // gaps around each (right after the write missed or overtaken, in its task; right before
    // the read or write, in its own) are where a barrier may be missing.
    std::vector<Gap> gaps;
    const auto add = [&gaps](const Gap& gap) {
        const auto same = [&gap](const Gap& o) { return o.before == gap.before; };
        if (gap.before != memory::kNone && std::none_of(gaps.begin(), gaps.end(), same))
            gaps.push_back(gap);
    };
    for (std::uint32_t e = 0; e < g.size(); ++e) {
        const memory::Event& x = g[e];
        if (x.kind == memory::Kind::fence || x.is(memory::kLockRead | memory::kInit)) continue;
        const auto& co = g.co(x.loc);
        // The latest write before e in execution order, coherence-after what e read or wrote.
        if (x.kind == memory::Kind::read && x.rf == memory::kNone) continue;
        const std::size_t from = g.co_position(x.kind == memory::Kind::read ? x.rf : e) + 1;
        std::uint32_t overtaken = memory::kNone;
        for (std::size_t i = co.size(); i-- > from;)
            if (co[i] < e) {
                overtaken = co[i];
                break;
            }
        if (overtaken == memory::kNone) continue;
        add(gap_at(g, overtaken, true));
        add(gap_at(g, e, false));
    }
    for (const std::vector<Placed>& places : barriers_to_try(gaps))
        if (const memory::Axiom axiom = forbidden_with(g, places); axiom != memory::Axiom::none)
            return reported(g, places, axiom);
    // None of those: the barrier may be missing where no read was stale in the interleaving
    // shown (IRIW's other reader, WRC's middle task). smp_mb() in every gap of every task; if
    // that forbids the execution, each is dropped while it still does, and each left weakened
    // while it still does: a set no barrier of which can go, though not always the smallest.
    std::vector<Placed> places;
    for (std::uint32_t e = 0; e < g.size(); ++e)
        if (g[e].task != memory::kNoTask && g[e].kind != memory::Kind::fence)
            if (const Gap gap = gap_at(g, e, true); gap.before != memory::kNone)
                places.push_back({gap, true});
    if (forbidden_with(g, places) == memory::Axiom::none) return {};
    for (std::size_t i = places.size(); i-- > 0;) {
        std::vector<Placed> fewer = places;
        fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
        if (forbidden_with(g, fewer) != memory::Axiom::none) places = std::move(fewer);
    }
    for (Placed& p : places) {
        p.full = false;
        if (forbidden_with(g, places) == memory::Axiom::none) p.full = true;
    }
    return reported(g, places, forbidden_with(g, places));
}

void lock_attempt_failed(const Object& lock) {
    const CheckerMemory checker(this_execution());
    WeakMemory& m = memory();
    m.append_latest(running_task(), m.location(lock, 0), Access{.reads = true});
}

bool lock_is_locked(const Object& lock, bool held) {
    return load(lock, held, Ordering::relaxed) != 0;
}

} // namespace weak_memory
} // namespace lockcheck::detail
