// The Linux kernel memory model's axioms (tools/memory-model/linux-kernel.cat and lock.cat)
// checked on an execution graph: whether LKMM allows it, and if not, which axiom forbids it.
// Deviations from the kernel's .cat, each in the direction of more order, so that what is
// allowed here LKMM allows too: every read is taken to carry a dependency to every
// po-later write but where the write is marked independent of it (Event::independent: lockcheck
// cannot see the model's data flow, only its effect; see docs/memory-model.md), plain
// accesses are ordered as marked ones (as GenMC did; data races are the race detector's).
// Address dependencies are the accesses the model made through a pointer it loaded (Event::addr);
// RCU is the .cat's (Rcu-lock, Rcu-unlock, Sync-rcu fences; no SRCU).
#pragma once

#include <span>

#include "graph.hpp"

namespace lockcheck::detail::memory {

enum class Axiom : std::uint8_t {
    none,           // allowed
    coherence,      // acyclic po-loc | com
    atomicity,      // empty rmw & (fre ; coe)
    happens_before, // acyclic hb
    propagation,    // acyclic pb
    rcu,            // irreflexive rb
};

const char* axiom_name(Axiom axiom);

// A fence the graph does not have, as though `task` had it right after its event `after`: to
// ask which barrier would have forbidden an execution.
struct ExtraFence {
    std::uint16_t task = kNoTask;
    std::uint32_t after = kNone;
    Fence kind = Fence::none;
};

// The first axiom of linux-kernel.cat the graph (with the `extra` fences) breaks, in the .cat's
// order; none if LKMM allows it.
Axiom lkmm_forbids(const Graph& graph, std::span<const ExtraFence> extra = {});

// A data race by linux-kernel.cat's definition (its `data-race` flag): two conflicting
// accesses of different tasks, at least one plain (kPlain), that neither orders before the
// other the way the .cat's visibility and executes-before relations say, with plain accesses
// left out of those relations as the .cat leaves them. The graph is one LKMM allows with plain
// accesses ordered as marked ones (lkmm_forbids()), which it allows with them unmarked too.
// The pair found first, its earlier event first; none: kNone.
struct DataRace {
    std::uint32_t earlier = kNone;
    std::uint32_t later = kNone;
};
// `extra`: barriers to take as though the tasks had them (weak_memory::missing_barriers()).
DataRace lkmm_data_race(const Graph& graph, std::span<const ExtraFence> extra = {});
// The same, computed over the whole graph: the definition lkmm_data_race(), which looks only
// at the events on paths between conflicting accesses, is tested against.
DataRace lkmm_data_race_whole(const Graph& graph);

// The same answer, for a graph LKMM allowed before its events from `since` on were appended:
// it looks only at the events a cycle through one of those could pass through.
Axiom lkmm_forbids_added(const Graph& graph, std::uint32_t since);

} // namespace lockcheck::detail::memory
