// linux-kernel.cat, relation by relation, over a Graph. The names are the .cat's; where a
// relation differs from it, the comment says how and why.
#include "lkmm.hpp"

#include "relation.hpp"

namespace lockcheck::memory {

namespace {

struct Sets {
    explicit Sets(std::size_t n)
        : R(n), W(n), M(n), RMW(n), Noreturn(n), Acquire(n), Release(n), LKR(n), LKW(n), UL(n),
          Mb(n), AfterUnlockLock(n) {}
    EventSet R, W, M, RMW, Noreturn, Acquire, Release, LKR, LKW, UL, Mb, AfterUnlockLock;
};

Sets sets_of(const Graph& g) {
    Sets s(g.size());
    for (std::uint32_t e = 0; e < g.size(); ++e) {
        const Event& ev = g[e];
        if (ev.kind == Kind::fence) {
            if (ev.fence == Fence::after_unlock_lock) s.AfterUnlockLock.add(e);
            continue;
        }
        s.M.add(e);
        (ev.kind == Kind::read ? s.R : s.W).add(e);
        if (ev.is(kRmw)) s.RMW.add(e);
        if (ev.is(kNoreturn)) s.Noreturn.add(e);
        // lock.cat: Acquire = Acquire | LKR, Release = Release | UL; the .bell drops an
        // acquire tag on a write and a release tag on a read.
        if (ev.kind == Kind::read && ev.is(kAcquire | kLockRead)) s.Acquire.add(e);
        if (ev.kind == Kind::write && ev.is(kRelease | kUnlock)) s.Release.add(e);
        if (ev.is(kLockRead)) s.LKR.add(e);
        if (ev.is(kLockWrite)) s.LKW.add(e);
        if (ev.is(kUnlock)) s.UL.add(e);
        if (ev.is(kMb)) s.Mb.add(e);
    }
    return s;
}

struct Base {
    explicit Base(std::size_t n) : po(n), loc(n), internal(n), rf(n), co(n), fr(n), rmw(n) {}
    Relation po, loc, internal, rf, co, fr, rmw;
    std::vector<std::vector<std::uint32_t>> by_task; // each task's events, in po
};

Base base_of(const Graph& g) {
    const std::size_t n = g.size();
    Base b(n);
    std::vector<EventSet> task_sets, loc_sets(g.locations(), EventSet(n));
    for (std::uint32_t x = 0; x < n; ++x) {
        const Event& a = g[x];
        if (a.task != kNoTask) {
            if (a.task >= b.by_task.size()) {
                b.by_task.resize(a.task + 1u);
                task_sets.resize(a.task + 1u, EventSet(n));
            }
            b.by_task[a.task].push_back(x);
            task_sets[a.task].add(x);
        }
        if (a.kind != Kind::fence) loc_sets[a.loc].add(x);
    }
    for (std::uint32_t x = 0; x < n; ++x) {
        const Event& a = g[x];
        if (a.task != kNoTask)
            b.internal.add_row(x, task_sets[a.task]);
        else
            b.internal.add(x, x);
        if (a.kind != Kind::fence) b.loc.add_row(x, loc_sets[a.loc]);
        if (a.kind != Kind::read) continue;
        b.rf.add(a.rf, x);
        // fr: a read to every write coherence-after the one it read from.
        const auto& order = g.co(a.loc);
        for (std::size_t i = g.co_position(a.rf) + 1; i < order.size(); ++i)
            b.fr.add(x, order[i]);
        // An RMW's read is followed at once by its write (lock.cat's lk-rmw too); a
        // conditional RMW that failed has a read and no write.
        const std::uint16_t pair = a.is(kLockRead) ? kLockWrite : kRmw;
        if (a.is(kRmw | kLockRead) && x + 1 < n && g[x + 1].kind == Kind::write &&
            g[x + 1].task == a.task && g[x + 1].loc == a.loc && g[x + 1].is(pair))
            b.rmw.add(x, x + 1);
    }
    // Events are appended as tasks perform them: within a task, index order is po.
    for (const auto& events : b.by_task)
        for (std::size_t i = 0; i < events.size(); ++i)
            for (std::size_t j = i + 1; j < events.size(); ++j)
                b.po.add(events[i], events[j]);
    for (std::uint32_t l = 0; l < g.locations(); ++l) {
        const auto& order = g.co(l);
        for (std::size_t i = 0; i < order.size(); ++i)
            for (std::size_t j = i + 1; j < order.size(); ++j)
                b.co.add(order[i], order[j]);
    }
    return b;
}

// fencerel(F): events po-before a fence of kind F, to events po-after it; the `extra` fences of
// that kind count too.
Relation fencerel(const Graph& g, const Base& b, Fence kind, std::span<const ExtraFence> extra) {
    const std::size_t n = g.size();
    Relation r(n);
    // Orders events[0, split) before events[split, size).
    const auto fence_at = [&r, n](const std::vector<std::uint32_t>& events, std::size_t split,
                                  std::size_t skip) {
        EventSet after(n);
        for (std::size_t j = split; j < events.size(); ++j)
            if (j != skip) after.add(events[j]);
        for (std::size_t j = 0; j < split && j < events.size(); ++j)
            if (j != skip) r.add_row(events[j], after);
    };
    for (const auto& events : b.by_task)
        for (std::size_t i = 0; i < events.size(); ++i) {
            const Event& f = g[events[i]];
            if (f.kind == Kind::fence && f.fence == kind) fence_at(events, i + 1, i);
        }
    for (const ExtraFence& f : extra) {
        if (f.kind != kind || f.task >= b.by_task.size()) continue;
        const auto& events = b.by_task[f.task];
        std::size_t split = 0;
        while (split < events.size() && events[split] <= f.after)
            ++split;
        fence_at(events, split, events.size());
    }
    return r;
}

} // namespace

const char* axiom_name(Axiom axiom) {
    switch (axiom) {
    case Axiom::none:
        return "none";
    case Axiom::coherence:
        return "coherence";
    case Axiom::atomicity:
        return "atomic";
    case Axiom::happens_before:
        return "happens-before";
    case Axiom::propagation:
        return "propagation";
    }
    return "?";
}

Axiom lkmm_forbids(const Graph& g, std::span<const ExtraFence> extra) {
    const Sets s = sets_of(g);
    const Base b = base_of(g);
    const Relation ext = Relation::product(s.M, s.M) - b.internal;
    const Relation& po = b.po;
    const Relation& rf = b.rf;
    const Relation& co = b.co;
    const Relation& fr = b.fr;
    const Relation rfe = rf & ext, rfi = rf & b.internal;
    const Relation coe = co & ext;
    const Relation fre = fr & ext;

    // Fundamental coherence ordering.
    const Relation po_loc = po & b.loc;
    if (!(po_loc | rf | co | fr).acyclic()) return Axiom::coherence;
    if (!(b.rmw & fre.then(coe)).empty()) return Axiom::atomicity;

    // Release, acquire, fences.
    const Relation acq_po = po.from(s.Acquire).to(s.M);
    const Relation po_rel = po.from(s.M).to(s.Release);
    const Relation po_unlock_lock_po = po.to(s.UL).then((po | rf).from(s.UL).to(s.LKR)).then(po);
    const EventSet R4rmb = s.R - s.Noreturn;
    const Relation rmb = fencerel(g, b, Fence::rmb, extra).from(R4rmb).to(R4rmb);
    const Relation wmb = fencerel(g, b, Fence::wmb, extra).from(s.W).to(s.W);
    const Relation po_opt = po.optional();
    // A fully ordered RMW acts as though enclosed by smp_mb(): its read and write carry Mb.
    const Relation mb =
        fencerel(g, b, Fence::mb, extra).from(s.M).to(s.M) | po.from(s.M).to(s.Mb & s.R) |
        po.from(s.Mb & s.W).to(s.M) |
        fencerel(g, b, Fence::before_atomic, extra).from(s.M).to(s.RMW).then(po_opt).to(s.M) |
        po_opt.from(s.M).to(s.RMW).then(fencerel(g, b, Fence::after_atomic, extra)).to(s.M) |
        po_opt.from(s.M).to(s.LKW).then(fencerel(g, b, Fence::after_spinlock, extra)).to(s.M) |
        po_unlock_lock_po.from(s.M).to(s.AfterUnlockLock).then(po).to(s.M);
    const Relation& strong_fence = mb; // gp: RCU is not modelled
    const Relation nonrw_fence = strong_fence | po_rel | acq_po;
    const Relation fence = nonrw_fence | wmb | rmb;

    // Preserved program order. lockcheck cannot see the model's data flow, so it takes every
    // read to carry a dependency (data, control) to every po-later write: rwdep = [R]; po; [W]
    // and dep ⊇ it. Only more order than the kernel's: the behaviours that need a write to
    // take effect before a po-earlier read (load buffering) are not explored.
    const Relation dep = po.from(s.R).to(s.W);
    const Relation rwdep = dep;
    const Relation overwrite = co | fr;
    const Relation to_w = rwdep | (overwrite & b.internal);
    const Relation to_r = dep.then(rfi);
    const Relation ppo = to_r | to_w | (fence & b.internal) | (po_unlock_lock_po & b.internal);

    // Propagation from release operations and strong fences. Marked = M: plain accesses are
    // ordered as marked ones.
    const Relation a_cumul = rfe.optional().then(strong_fence | po_rel);
    // rmw-sequence = (rf ; rmw)*; then_star and then_optional spare the identity pairs.
    const Relation cumul_fence =
        (a_cumul | wmb | po_unlock_lock_po).from(s.M).to(s.M).then_star(rf.then(b.rmw));
    const Relation prop =
        (overwrite & ext).optional().then(cumul_fence.star()).then_optional(rfe).from(s.M).to(s.M);

    const Relation hb = (ppo | rfe | (prop.without_identity() & b.internal)).from(s.M).to(s.M);
    if (!hb.acyclic()) return Axiom::happens_before;

    // pb = prop ; strong-fence ; hb* ; [Marked], acyclic. hb is acyclic by now, so a cycle of
    // prop;strong-fence and hb edges has a prop;strong-fence edge, and cut before each one it
    // is a cycle of pb edges; a pb cycle is one of those. Testing the union spares closing hb.
    if (!(prop.then(strong_fence).to(s.M) | hb).acyclic()) return Axiom::propagation;
    return Axiom::none;
}

} // namespace lockcheck::memory
