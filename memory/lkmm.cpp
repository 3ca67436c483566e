// linux-kernel.cat, relation by relation, over a Graph. The names are the .cat's; where a
// relation differs from it, the comment says how and why.
#include "lkmm.hpp"

#include <algorithm>

#include "relation.hpp"

namespace lockcheck::detail::memory {

namespace {

// The events a check looks at, ascending (all of them, or those a cycle through the events just
// added could pass through: see lkmm_forbids_added()), and each one's place among them. The
// relations below are over those places.
// Where each write stands in its location's coherence order, by graph event, in one pass
// (Graph::co_position() searches the order).
std::vector<std::uint32_t> co_positions(const Graph& g) {
    std::vector<std::uint32_t> at(g.size(), kNone);
    for (std::uint32_t l = 0; l < g.locations(); ++l)
        for (std::uint32_t i = 0; i < g.co(l).size(); ++i)
            at[g.co(l)[i]] = i;
    return at;
}

struct View {
    const Graph& g;
    std::vector<std::uint32_t> events;
    std::vector<std::uint32_t> place;  // by graph event; kNone when not looked at
    std::vector<std::uint32_t> co_pos; // co_positions()

    View(const Graph& graph, std::vector<std::uint32_t> looked_at)
        : g(graph), events(std::move(looked_at)), place(graph.size(), kNone),
          co_pos(co_positions(graph)) {
        for (std::uint32_t i = 0; i < events.size(); ++i)
            place[events[i]] = i;
    }
    std::size_t size() const { return events.size(); }
    const Event& operator[](std::uint32_t i) const { return g[events[i]]; }
};

std::vector<std::uint32_t> every_event(const Graph& g) {
    std::vector<std::uint32_t> all(g.size());
    for (std::uint32_t e = 0; e < g.size(); ++e)
        all[e] = e;
    return all;
}

struct Sets {
    explicit Sets(std::size_t n)
        : R(n), W(n), M(n), RMW(n), Noreturn(n), Acquire(n), Release(n), LKR(n), LKW(n), UL(n),
          Mb(n), AfterUnlockLock(n), Plain(n), IW(n), All(n), RcuLock(n), RcuUnlock(n), SyncRcu(n) {
    }
    EventSet R, W, M, RMW, Noreturn, Acquire, Release, LKR, LKW, UL, Mb, AfterUnlockLock, Plain, IW,
        All, RcuLock, RcuUnlock, SyncRcu;
};

Sets sets_of(const View& v) {
    Sets s(v.size());
    for (std::uint32_t e = 0; e < v.size(); ++e) {
        const Event& ev = v[e];
        s.All.add(e);
        if (ev.kind == Kind::fence) {
            if (ev.fence == Fence::after_unlock_lock) s.AfterUnlockLock.add(e);
            if (ev.fence == Fence::rcu_lock) s.RcuLock.add(e);
            if (ev.fence == Fence::rcu_unlock) s.RcuUnlock.add(e);
            if (ev.fence == Fence::sync_rcu) s.SyncRcu.add(e);
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
        if (ev.is(kPlain)) s.Plain.add(e);
        if (ev.is(kInit)) s.IW.add(e);
    }
    return s;
}

// The graph event right after read `x` in its task, when it is the write that makes the two
// one read-modify-write (lock.cat's lk-rmw too); kNone for a plain read, or a conditional RMW
// that failed and wrote nothing.
std::uint32_t rmw_write_of(const Graph& g, std::uint32_t x) {
    const Event& a = g[x];
    if (a.kind != Kind::read || !a.is(kRmw | kLockRead) || x + 1 >= g.size()) return kNone;
    const Event& w = g[x + 1];
    const std::uint16_t pair = a.is(kLockRead) ? kLockWrite : kRmw;
    return w.kind == Kind::write && w.task == a.task && w.loc == a.loc && w.is(pair) ? x + 1
                                                                                     : kNone;
}

struct Base {
    explicit Base(std::size_t n)
        : po(n), loc(n), internal(n), rf(n), co(n), fr(n), rmw(n), addr(n), rcu_rscs(n) {}
    Relation po, loc, internal, rf, co, fr, rmw;
    Relation addr;     // a read to the accesses made through the pointer it loaded
    Relation rcu_rscs; // linux-kernel.bell's: each Rcu-lock to its matching Rcu-unlock
    std::vector<std::vector<std::uint32_t>> by_task; // each task's events, in po
};

Base base_of(const View& v) {
    const Graph& g = v.g;
    const std::size_t n = v.size();
    Base b(n);
    std::vector<EventSet> task_sets, loc_sets(g.locations(), EventSet(n));
    for (std::uint32_t x = 0; x < n; ++x) {
        const Event& a = v[x];
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
        const Event& a = v[x];
        if (a.task != kNoTask)
            b.internal.add_row(x, task_sets[a.task]);
        else
            b.internal.add(x, x);
        if (a.kind != Kind::fence) b.loc.add_row(x, loc_sets[a.loc]);
        if (a.addr != kNone && v.place[a.addr] != kNone) b.addr.add(v.place[a.addr], x);
        // A future read not settled yet (Graph::add_read()) reads from no write so far.
        if (a.kind != Kind::read || a.rf == kNone) continue;
        if (v.place[a.rf] != kNone) b.rf.add(v.place[a.rf], x);
        // fr: a read to every write coherence-after the one it read from.
        const auto& order = g.co(a.loc);
        for (std::size_t i = v.co_pos[a.rf] + 1; i < order.size(); ++i)
            if (v.place[order[i]] != kNone) b.fr.add(x, v.place[order[i]]);
        const std::uint32_t w = rmw_write_of(g, v.events[x]);
        if (w != kNone && v.place[w] != kNone) b.rmw.add(x, v.place[w]);
    }
    // Events are appended as tasks perform them: within a task, index order is po. Each row is
    // the set of those after the event, built from the last one back.
    EventSet after(n);
    for (const auto& events : b.by_task) {
        after = EventSet(n);
        for (std::size_t i = events.size(); i-- > 0;) {
            b.po.add_row(events[i], after);
            after.add(events[i]);
        }
    }
    // rcu-rscs: within a task, each Rcu-lock with the Rcu-unlock that closes its nesting level.
    std::vector<std::uint32_t> open;
    for (const auto& events : b.by_task) {
        open.clear();
        for (const std::uint32_t e : events) {
            const Event& f = v[e];
            if (f.kind != Kind::fence) continue;
            if (f.fence == Fence::rcu_lock) open.push_back(e);
            if (f.fence == Fence::rcu_unlock && !open.empty()) {
                b.rcu_rscs.add(open.back(), e);
                open.pop_back();
            }
        }
    }
    for (std::uint32_t l = 0; l < g.locations(); ++l) {
        after = EventSet(n);
        const auto& order = g.co(l);
        for (std::size_t i = order.size(); i-- > 0;) {
            const std::uint32_t w = v.place[order[i]];
            if (w == kNone) continue;
            b.co.add_row(w, after);
            after.add(w);
        }
    }
    return b;
}

// fencerel(F): events po-before a fence of kind F, to events po-after it; the `extra` fences of
// that kind count too.
Relation fencerel(const View& v, const Base& b, Fence kind, std::span<const ExtraFence> extra) {
    const std::size_t n = v.size();
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
            const Event& f = v[events[i]];
            if (f.kind == Kind::fence && f.fence == kind) fence_at(events, i + 1, i);
        }
    for (const ExtraFence& f : extra) {
        if (f.kind != kind || f.task >= b.by_task.size()) continue;
        const auto& events = b.by_task[f.task];
        std::size_t split = 0;
        while (split < events.size() && v.events[events[split]] <= f.after)
            ++split;
        fence_at(events, split, events.size());
    }
    return r;
}

// The pairs (read, write) of one task, both looked at, where the write is marked independent
// of the read (Event::independent counts the task's reads back from the write).
Relation independent_pairs(const View& v) {
    const Graph& g = v.g;
    Relation r(v.size());
    bool any = false;
    for (std::uint32_t e = 0; e < v.size() && !any; ++e)
        any = v[e].independent != 0;
    if (!any) return r;
    // The number of reads each task made before each event, over the whole graph.
    std::vector<std::uint32_t> reads_before(g.size()), count;
    for (std::uint32_t e = 0; e < g.size(); ++e) {
        const Event& ev = g[e];
        if (ev.task == kNoTask) continue;
        if (ev.task >= count.size()) count.resize(ev.task + 1u, 0);
        reads_before[e] = count[ev.task];
        if (ev.kind == Kind::read) ++count[ev.task];
    }
    for (std::uint32_t w = 0; w < v.size(); ++w) {
        const Event& write = v[w];
        if (write.kind != Kind::write || write.independent == 0) continue;
        for (std::uint32_t x = 0; x < w; ++x) {
            const Event& read = v[x];
            if (read.kind != Kind::read || read.task != write.task) continue;
            const std::uint32_t back = reads_before[v.events[w]] - 1 - reads_before[v.events[x]];
            if (back < 64 && (write.independent >> back & 1)) r.add(x, w);
        }
    }
    return r;
}

// linux-kernel.cat's axioms over the events the view looks at.
Axiom forbids(const View& v, std::span<const ExtraFence> extra);

bool empty_set(const EventSet& s) {
    for (const std::uint64_t w : s.words())
        if (w) return false;
    return true;
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
    case Axiom::rcu:
        return "rcu";
    }
    return "?";
}

namespace {

// The base relations of a view and the derived ones that do not depend on which accesses are
// marked.
struct Basics {
    Sets s;
    Base b;
    Relation ext, rfe, rfi, coe, fre;
    Basics(const View& v)
        : s(sets_of(v)), b(base_of(v)), ext(Relation::product(s.M, s.M) - b.internal),
          rfe(b.rf & ext), rfi(b.rf & b.internal), coe(b.co & ext), fre(b.fr & ext) {}
};

// The .cat's ordering relations, from its fences to hb, restricted to `Marked` where the .cat
// restricts them to its marked accesses. The axioms pass every access (plain accesses are
// ordered as marked ones, lkmm.hpp); the data-race check passes all but the plain ones. pb
// and the closures are left to what uses them (with_pb()): the axioms check pb without them
// unless the graph has a grace period.
struct Ordering {
    Relation po_unlock_lock_po, strong_fence, po_rel, acq_po, nonrw_fence, fence, wmb, cumul_fence,
        prop, hb;
    Relation rmb_fences; // fencerel(Rmb), before rmb's [R4rmb] restrictions
};

// hb*, pb = prop ; strong-fence ; hb* ; [Marked], and pb*: what RCU's relations and the data-race
// check's xb are made of.
struct Propagation {
    Relation hb_star, pb, pb_star;
};

Propagation with_pb(const Ordering& o, const EventSet& Marked) {
    Propagation p{o.hb.star(), Relation(o.hb.size()), Relation(o.hb.size())};
    p.pb = o.prop.then(o.strong_fence).then(p.hb_star).to(Marked);
    p.pb_star = p.pb.star();
    return p;
}

Ordering ordering(const View& v, const Basics& x, std::span<const ExtraFence> extra,
                  const EventSet& Marked) {
    const Sets& s = x.s;
    const Base& b = x.b;
    const Relation& po = b.po;
    const Relation& rf = b.rf;
    Ordering o;
    // Release, acquire, fences.
    o.acq_po = po.from(s.Acquire).to(s.M);
    o.po_rel = po.from(s.M).to(s.Release);
    o.po_unlock_lock_po = po.to(s.UL).then((po | rf).from(s.UL).to(s.LKR)).then(po);
    const EventSet R4rmb = s.R - s.Noreturn;
    o.rmb_fences = fencerel(v, b, Fence::rmb, extra);
    const Relation rmb = o.rmb_fences.from(R4rmb).to(R4rmb);
    o.wmb = fencerel(v, b, Fence::wmb, extra).from(s.W).to(s.W);
    const Relation po_opt = po.optional();
    // A fully ordered RMW acts as though enclosed by smp_mb(): its read and write carry Mb.
    const Relation mb =
        fencerel(v, b, Fence::mb, extra).from(s.M).to(s.M) | po.from(s.M).to(s.Mb & s.R) |
        po.from(s.Mb & s.W).to(s.M) |
        fencerel(v, b, Fence::before_atomic, extra).from(s.M).to(s.RMW).then(po_opt).to(s.M) |
        po_opt.from(s.M).to(s.RMW).then(fencerel(v, b, Fence::after_atomic, extra)).to(s.M) |
        po_opt.from(s.M).to(s.LKW).then(fencerel(v, b, Fence::after_spinlock, extra)).to(s.M) |
        o.po_unlock_lock_po.from(s.M).to(s.AfterUnlockLock).then(po).to(s.M);
    // gp = po ; [Sync-rcu] ; po?: synchronize_rcu() is a full fence too.
    o.strong_fence = empty_set(s.SyncRcu)
                         ? mb
                         : mb | fencerel(v, b, Fence::sync_rcu, extra).from(s.M).to(s.M) |
                               po.to(s.SyncRcu) | po.from(s.SyncRcu).to(s.M);
    o.nonrw_fence = o.strong_fence | o.po_rel | o.acq_po;
    o.fence = o.nonrw_fence | o.wmb | rmb;

    // Preserved program order. lockcheck cannot see the model's data flow, so it takes every
    // read to carry a dependency (data, control) to every po-later write, rwdep = [R]; po; [W]
    // and dep ⊇ it, but for the pairs the search saw to be independent (Event::independent):
    // more order than the kernel's only where a dependency was not ruled out.
    const Relation dep =
        v.g.dependencies() ? po.from(s.R).to(s.W) - independent_pairs(v) : Relation(v.size());
    const Relation rwdep = dep;
    const Relation overwrite = b.co | b.fr;
    const Relation to_w = rwdep | (overwrite & b.internal) | b.addr.to(s.Plain).then(o.wmb);
    // to-r = (addr ; [R]) | (dep ; [Marked] ; rfi): the read made through a loaded pointer.
    const Relation to_r = b.addr.to(s.R) | dep.to(Marked).then(x.rfi);
    const Relation ppo = to_r | to_w | (o.fence & b.internal) | (o.po_unlock_lock_po & b.internal);

    // Propagation from release operations and strong fences.
    const Relation a_cumul = x.rfe.to(Marked).optional().then(o.strong_fence | o.po_rel);
    // rmw-sequence = (rf ; rmw)*; then_star and then_optional spare the identity pairs.
    o.cumul_fence =
        (a_cumul | o.wmb | o.po_unlock_lock_po).from(Marked).to(Marked).then_star(rf.then(b.rmw));
    o.prop = (overwrite & x.ext)
                 .optional()
                 .from(Marked)
                 .then(o.cumul_fence.star())
                 .to(Marked)
                 .then_optional(x.rfe)
                 .to(Marked);
    o.hb = (ppo | x.rfe | (o.prop.without_identity() & b.internal)).from(Marked).to(Marked);
    return o;
}

// The RCU part of linux-kernel.cat: rcu-fence = po ; rcu-order ; po?, where rcu-order relates
// grace periods and read-side critical sections, at least as many of the first as of the
// second along each chain (the "RCU guarantee" of explanation.txt).
Relation rcu_fence(const Basics& x, const Ordering& o, const Propagation& p) {
    const Sets& s = x.s;
    const Relation& po = x.b.po;
    const std::size_t n = po.size();
    Relation rcu_gp(n);
    for (std::size_t e = 0; e < n; ++e)
        if (s.SyncRcu.has(e)) rcu_gp.add(e, e);
    const Relation rcu_rscsi = x.b.rcu_rscs.inverse();
    // rcu-link = po? ; hb* ; pb* ; prop ; po
    const Relation rcu_link = po.optional().then(p.hb_star).then(p.pb_star).then(o.prop).then(po);
    const Relation gp_link = rcu_gp.then(rcu_link);
    const Relation rscsi_link = rcu_rscsi.then(rcu_link);
    Relation order = rcu_gp | gp_link.then(rcu_rscsi) | rscsi_link.then(rcu_gp);
    // The .cat's `let rec`: its least fixed point.
    for (;;) {
        const Relation order_link = order.then(rcu_link);
        const Relation next = order | gp_link.then(order_link).then(rcu_rscsi) |
                              rscsi_link.then(order_link).then(rcu_gp) | order_link.then(order);
        if ((next - order).empty()) break;
        order = next;
    }
    return po.then(order).then_optional(po);
}

Axiom forbids(const View& v, std::span<const ExtraFence> extra) {
    const Basics x(v);
    const Base& b = x.b;

    // Fundamental coherence ordering.
    const Relation po_loc = b.po & b.loc;
    if (!(po_loc | b.rf | b.co | b.fr).acyclic()) return Axiom::coherence;
    if (!(b.rmw & x.fre.then(x.coe)).empty()) return Axiom::atomicity;

    // Marked = M: plain accesses are ordered as marked ones.
    const Ordering o = ordering(v, x, extra, x.s.M);
    if (!o.hb.acyclic()) return Axiom::happens_before;

    // pb = prop ; strong-fence ; hb* ; [Marked], acyclic. hb is acyclic by now, so a cycle of
    // prop;strong-fence and hb edges has a prop;strong-fence edge, and cut before each one it
    // is a cycle of pb edges; a pb cycle is one of those. Testing the union spares closing hb.
    if (!(o.prop.then(o.strong_fence).to(x.s.M) | o.hb).acyclic()) return Axiom::propagation;

    // rb = prop ; rcu-fence ; hb* ; pb* ; [Marked], irreflexive.
    if (!empty_set(x.s.SyncRcu)) { // rcu-order needs a grace period
        const Propagation p = with_pb(o, x.s.M);
        const Relation rb =
            o.prop.then(rcu_fence(x, o, p)).then(p.hb_star).then(p.pb_star).to(x.s.M);
        for (std::size_t e = 0; e < rb.size(); ++e)
            if (rb.has(e, e)) return Axiom::rcu;
    }
    return Axiom::none;
}

// linux-kernel.cat's data-race flag over the events `v` looks at.
DataRace data_race(const View& v, std::span<const ExtraFence> extra) {
    const Basics x(v);
    const Sets& s = x.s;
    const Base& b = x.b;
    // Potential races: nothing more to work out without one.
    const Relation pre_race =
        x.ext & (Relation::product(s.Plain, s.M) | Relation::product(s.M - s.IW, s.Plain));
    const Relation co_rf = b.co.optional().then(b.rf);
    if ((pre_race & (b.co | co_rf | b.fr)).empty()) return {};

    // Executes-before and visibility; the .cat's RCU section adds rcu-fence to fence and
    // strong-fence for what follows.
    const EventSet Marked = s.M - s.Plain;
    Ordering o = ordering(v, x, extra, Marked);
    const Propagation p = with_pb(o, Marked);
    Relation xb = o.hb | p.pb;
    if (!empty_set(s.SyncRcu)) {
        const Relation rcu = rcu_fence(x, o, p);
        xb = std::move(xb) | o.prop.then(rcu).then(p.hb_star).then(p.pb_star).to(Marked);
        o.fence = std::move(o.fence) | rcu;
        o.strong_fence = std::move(o.strong_fence) | rcu;
    }
    const Relation xbstar = xb.star();
    const Relation vis = o.cumul_fence.star().then_optional(x.rfe).to(Marked).then(
        o.strong_fence.to(Marked).then(xbstar) | (xbstar & b.internal));

    // Boundaries for lifetimes of plain accesses.
    const EventSet R4rmb = s.R - s.Noreturn;
    const EventSet not_noreturn = s.All - s.Noreturn;
    const Relation& rmb = o.rmb_fences;
    const Relation w_pre_bounded = (b.addr | o.fence).optional().from(Marked);
    const Relation r_pre_bounded =
        (b.addr | o.nonrw_fence | rmb.from(R4rmb).to(not_noreturn)).optional().from(Marked);
    const Relation w_post_bounded = o.fence.optional().to(Marked).then_star(b.rf.then(b.rmw));
    const Relation r_post_bounded =
        (o.nonrw_fence | rmb.from(not_noreturn).to(R4rmb)).optional().to(Marked);

    // Visibility and executes-before for plain accesses.
    const Relation ww_vis = o.fence | o.strong_fence.then(xbstar).then(w_pre_bounded) |
                            w_post_bounded.then(vis).then(w_pre_bounded);
    const Relation wr_vis = o.fence | o.strong_fence.then(xbstar).then(r_pre_bounded) |
                            w_post_bounded.then(vis).then(r_pre_bounded);
    const Relation rw_xbstar = o.fence | r_post_bounded.then(xbstar).then(w_pre_bounded);

    // Actual races.
    const Relation ww_nonrace = ww_vis & (Relation::product(Marked, s.W) | rw_xbstar) &
                                (Relation::product(s.W, Marked) | wr_vis);
    const Relation ww_race = (pre_race & b.co) - ww_nonrace;
    const Relation wr_race = (pre_race & co_rf) - wr_vis - rw_xbstar.inverse();
    const Relation rw_race = (pre_race & b.fr) - rw_xbstar;
    const Relation race = ww_race | wr_race | rw_race;
    for (std::uint32_t later = 0; later < v.size(); ++later)
        for (std::uint32_t earlier = 0; earlier < later; ++earlier)
            if (race.has(earlier, later) || race.has(later, earlier))
                return {v.events[earlier], v.events[later]};
    return {};
}

// The accesses of a conflicting pair a race could be made of: two accesses of one location by
// different tasks, at least one a write and at least one plain. Each such pair is in co,
// co?;rf or fr one way or the other; an initial write is in no pre-race.
std::vector<std::uint32_t> race_candidates(const Graph& g) {
    std::vector<std::vector<std::uint32_t>> by_loc(g.locations());
    std::vector<bool> candidate(g.size(), false);
    for (std::uint32_t e = 0; e < g.size(); ++e) {
        const Event& a = g[e];
        if (a.kind == Kind::fence || a.task == kNoTask) continue;
        for (const std::uint32_t f : by_loc[a.loc]) {
            const Event& b = g[f];
            const bool conflict = a.kind == Kind::write || b.kind == Kind::write;
            if (conflict && a.task != b.task && (a.is(kPlain) || b.is(kPlain)))
                candidate[e] = candidate[f] = true;
        }
        by_loc[a.loc].push_back(e);
    }
    std::vector<std::uint32_t> ends;
    for (std::uint32_t e = 0; e < g.size(); ++e)
        if (candidate[e]) ends.push_back(e);
    return ends;
}

} // namespace

Axiom lkmm_forbids(const Graph& g, std::span<const ExtraFence> extra) {
    return forbids(View(g, every_event(g)), extra);
}

namespace {

// Whether an RMW's write has, between it and the write its read read from in coherence order,
// a write of another task: linux-kernel.cat's `empty rmw & (fre ; coe)`, over the whole graph
// (an atomicity violation is no cycle, so the events lkmm_forbids_added() looks at may miss it).
bool atomicity_broken(const Graph& g) {
    for (std::uint32_t x = 0; x < g.size(); ++x) {
        const std::uint32_t w = rmw_write_of(g, x);
        if (w == kNone) continue;
        const auto& order = g.co(g[x].loc);
        for (std::size_t i = g.co_position(g[x].rf) + 1; i < order.size() && order[i] != w; ++i)
            if (g[order[i]].task != g[x].task) return true;
    }
    return false;
}

// Whether the graph has a grace period (a Sync-rcu fence). Without one, rcu-order is empty, so
// RCU's read-side fences order nothing: no relation of the .cat but rcu-rscs looks at them.
bool has_grace_period(const Graph& g) {
    return std::any_of(g.events().begin(), g.events().end(), [](const Event& e) {
        return e.kind == Kind::fence && e.fence == Fence::sync_rcu;
    });
}

bool is_read_side_fence(const Event& e) {
    return e.kind == Kind::fence && (e.fence == Fence::rcu_lock || e.fence == Fence::rcu_unlock);
}

// The events on a path of po | rf | co | fr from one of `sources` to one of them (a cycle through
// one, when there is a single source): those reached from one and reaching one, ascending.
// Walked over po's, co's and fr's first steps, whose closures are those relations. Without
// `read_side_fences`, Rcu-lock and Rcu-unlock fences are left out (no grace period: see
// has_grace_period()); every implicit reader's region makes a pair of them, and each one would
// widen every relation the check builds.
std::vector<std::uint32_t>
on_paths_between(const Graph& g, const std::vector<std::uint32_t>& sources, bool read_side_fences) {
    const std::uint32_t n = static_cast<std::uint32_t>(g.size());
    const std::vector<std::uint32_t> co_pos = co_positions(g);
    // po's steps both ways, and each write's readers as a list threaded through the reads.
    std::vector<std::uint32_t> po_next(n, kNone), po_prev(n, kNone), last_of_task;
    std::vector<std::uint32_t> first_reader(n, kNone), next_reader(n, kNone);
    for (std::uint32_t e = 0; e < n; ++e) {
        const Event& ev = g[e];
        if (ev.task != kNoTask) {
            if (ev.task >= last_of_task.size()) last_of_task.resize(ev.task + 1u, kNone);
            if (const std::uint32_t p = last_of_task[ev.task]; p != kNone) {
                po_next[p] = e;
                po_prev[e] = p;
            }
            last_of_task[ev.task] = e;
        }
        if (ev.kind == Kind::read && ev.rf != kNone) {
            next_reader[e] = first_reader[ev.rf];
            first_reader[ev.rf] = e;
        }
    }
    // The write right after (`step` 1) or right before (-1) `w` in its coherence order.
    const auto co_step = [&g, &co_pos](std::uint32_t w, int step) {
        const auto& order = g.co(g[w].loc);
        const std::size_t i = co_pos[w];
        if (step > 0) return i + 1 < order.size() ? order[i + 1] : kNone;
        return i > 0 ? order[i - 1] : kNone;
    };
    const auto reach = [&](bool forward) {
        std::vector<bool> seen(n, false);
        std::vector<std::uint32_t> todo;
        const auto visit = [&](std::uint32_t e) {
            if (e != kNone && !seen[e]) {
                seen[e] = true;
                todo.push_back(e);
            }
        };
        for (const std::uint32_t e : sources)
            visit(e);
        while (!todo.empty()) {
            const std::uint32_t e = todo.back();
            todo.pop_back();
            const Event& ev = g[e];
            visit(forward ? po_next[e] : po_prev[e]);
            if (ev.kind == Kind::write) {
                visit(co_step(e, forward ? 1 : -1));
                if (forward) {
                    for (std::uint32_t r = first_reader[e]; r != kNone; r = next_reader[r])
                        visit(r); // rf
                } else if (const std::uint32_t before = co_step(e, -1); before != kNone) {
                    for (std::uint32_t r = first_reader[before]; r != kNone; r = next_reader[r])
                        visit(r); // fr, from a read of the write just before
                }
            } else if (ev.kind == Kind::read && ev.rf != kNone) {
                visit(forward ? co_step(ev.rf, 1) : ev.rf); // fr's first step, or rf
            }
        }
        return seen;
    };
    const std::vector<bool> from = reach(true), to = reach(false);
    std::vector<std::uint32_t> both;
    for (std::uint32_t e = 0; e < n; ++e)
        if (from[e] && to[e] && (read_side_fences || !is_read_side_fence(g[e]))) both.push_back(e);
    return both;
}

} // namespace

Axiom lkmm_forbids_added(const Graph& g, std::uint32_t since) {
    // Every relation of the .cat only grows with the graph, and every one is contained in
    // (po | rf | co | fr)+. The graph before `since` was allowed, so a cycle that breaks an
    // axiom now has an added event on it or on the path behind one of its edges, and every
    // event of that cycle and those paths is on a cycle of po | rf | co | fr through an added
    // event: looking at those events alone finds it. Atomicity is no cycle: it looks at all.
    // RCU's rb is the exception: its rcu-rscsi leads from an Rcu-unlock back to its Rcu-lock,
    // against po, so a graph with a grace period is looked at whole.
    const bool rcu = has_grace_period(g);
    std::vector<std::uint32_t> added;
    for (auto e = since; e < g.size(); ++e)
        if (!is_read_side_fence(g[e])) added.push_back(e);
    const Axiom axiom =
        forbids(View(g, rcu ? every_event(g) : on_paths_between(g, added, false)), {});
    if (axiom == Axiom::coherence) return axiom;
    return atomicity_broken(g) ? Axiom::atomicity : axiom;
}

DataRace lkmm_data_race(const Graph& g, std::span<const ExtraFence> extra) {
    // Every relation the flag is made of is contained in (po | rf | co | fr)+, so what orders
    // two accesses (or fails to) lies on a path of those between them: the events on paths
    // between the candidates' accesses are all it needs to look at.
    const std::vector<std::uint32_t> ends = race_candidates(g);
    if (ends.empty()) return {};
    return data_race(View(g, on_paths_between(g, ends, has_grace_period(g))), extra);
}

DataRace lkmm_data_race_whole(const Graph& g) {
    return data_race(View(g, every_event(g)), {});
}

} // namespace lockcheck::detail::memory
