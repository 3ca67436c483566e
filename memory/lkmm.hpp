// The Linux kernel memory model's axioms (tools/memory-model/linux-kernel.cat and lock.cat)
// checked on an execution graph: whether LKMM allows it, and if not, which axiom forbids it.
// Deviations from the kernel's .cat, each in the direction of more order, so that what is
// allowed here LKMM allows too: every read is taken to carry a dependency to every
// po-later write (lockcheck cannot see the model's data flow; see docs/memory-model.md), plain
// accesses are ordered as marked ones (as GenMC did; data races are the race detector's), and
// RCU is not modelled.
#pragma once

#include <span>

#include "graph.hpp"

namespace lockcheck::memory {

enum class Axiom : std::uint8_t {
    none,           // allowed
    coherence,      // acyclic po-loc | com
    atomicity,      // empty rmw & (fre ; coe)
    happens_before, // acyclic hb
    propagation,    // acyclic pb
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

// The same answer, for a graph LKMM allowed before its events from `since` on were appended:
// it looks only at the events a cycle through one of those could pass through.
Axiom lkmm_forbids_added(const Graph& graph, std::uint32_t since);

} // namespace lockcheck::memory
