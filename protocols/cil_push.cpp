// cil-push: XFS per-CPU committed item list (seed 004_8e667ff89a541899: "[PATCH 5/5] [RFC] xfs:
// make CIl busy extent lists per-cpu", Dave Chinner, May 2020, on top of 3/5 "use percpu
// counters for CIL context counters" and 4/5 "per-cpu CIL lists").
//
// What the kernel does (fs/xfs/xfs_log_cil.c with that series):
// - xfs_log_commit_cil() holds cil->xc_ctx_lock shared (down_read) around
//   xlog_cil_insert_items(), which reads ctx = cil->xc_ctx, adds the transaction's space to
//   the percpu counter xc_space_used (percpu_counter_add_batch), splices tp->t_busy onto this
//   CPU's busy extent list (pcp_busy(cil)) and adds each log item to this CPU's CIL list
//   (pcp_cil(cil)); both macros are this_cpu_ptr(cil->xc_pcp). Before the series the CIL was
//   one list, cil->xc_cil, and busy extents went to ctx->busy_extents, under xc_cil_lock.
// - xlog_cil_push_work() takes xc_ctx_lock exclusively, splices every online CPU's lists into
//   the checkpoint context (`/* XXX: hotplug! */ for_each_online_cpu`), drains xc_space_used
//   into the context (percpu_counter_sum, then percpu_counter_set to 0), switches cil->xc_ctx
//   to a new context with sequence + 1, drops the lock and writes the checkpoint.
// - Preemption: the series as posted calls this_cpu_ptr() with only xc_ctx_lock held (a
//   sleeping rwsem: preemptible), and 4/5 says so itself ("XXX: preempt_disable() around the
//   list operations"): the posted RFC is the `preemptible-insert` variant. The `percpu`
//   variant adds what that note asks for and what the merged code does (get_cpu_ptr() ...
//   put_cpu_ptr() around the per-CPU list operations in xlog_cil_insert_items()).
// - Hotplug: a CPU that goes offline keeps its per-CPU lists, and the push walks online CPUs
//   only. Upstream this bit: the merged per-CPU CIL (af1c2146a50b "xfs: introduce per-cpu
//   CIL tracking structure") drained a dead CPU's lists in xlog_cil_pcp_dead(), but a CPU
//   leaves cpu_online_mask before that callback runs; "xfs: fix per-cpu CIL structure
//   aggregation racing with dying cpus" (2023, log shutdowns in generic/650) walks
//   ctx->cil_pcpmask, every CPU that added to the context, instead. `hotplug-possible-cpus`
//   walks every possible CPU, a superset of that mask.
//
// Abstracted away: formatting, log vectors and the lv chain (a context's item list is its
// checkpoint); each transaction logs one item, one unit of log space, and frees one extent,
// so its item is never already on the CIL and splicing its t_busy list is adding that one
// busy extent; ticket reservations and xc_curr_res; background push thresholds and skipping
// an empty CIL (every push switches contexts); xc_push_lock, push sequences, the committing
// list and the checkpoint write after up_write (nothing here reads it: a context is written
// once the push switched away from it). The final push (the log force at unmount, once every
// commit returned) runs alone, so the final checks work out what it collects. The model's
// remove_cpu() folds a dead CPU's counter deltas in the same step that clears its online bit,
// so percpu_counter_sum()'s own dying-CPU window is not explored.
#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::protocols {

namespace {

// What xc_ctx_lock is: how a commit and the push exclude each other.
enum class CtxLock {
    rwsem,              // the kernel's: down_read() in the commit, down_write() in the push
    percpu_rwsem,       // kernel/locking/percpu-rwsem.c's reader count and block flag, written out
    percpu_rwsem_no_mb, // the same without percpu_up_read()'s smp_mb() before the decrement
    none_for_insert,    // the commit takes nothing (the push still takes it exclusively)
};

// The patch under review, and the broken variants around it, as data on one model.
struct CilPushPolicy {
    bool percpu_cil = true;            // 4-5/5: per-CPU item and busy extent lists
    CtxLock ctx_lock = CtxLock::rwsem; // what the commit holds shared, the push exclusively
    bool insert_preempt_off = true;    // get_cpu_ptr(): no preemption around per-CPU lists
    bool offline_cpu = false;          // a CPU goes offline between a commit and the push
    bool push_walks_possible = false;  // for_each_possible_cpu instead of for_each_online_cpu
};

struct CilPushVariant {
    Variant variant;
    CilPushPolicy policy;
};

const std::string kCheckpointed = "every committed item is in a written checkpoint";
const std::string kRightCheckpoint = "every item is in the checkpoint of the context it was "
                                     "committed in";
const std::string kBusyTravels = "busy extents are checkpointed with their transaction's item";
const std::string kDrained = "after the final push every per-CPU list is empty";
const std::string kSpaceUsed = "xc_space_used sums to the space of the unpushed items";
const std::string kPreemptible = "smp-processor-id-preemptible";

// The commit that did not spawn the push, on the second CPU: only a lock or a barrier orders it.
const std::string kListRace = "data race on xc_pcp@cpu1.p_cil";

const std::array<CilPushVariant, 8>& variants() {
    static const std::array<CilPushVariant, 8> table = {{
        {{"global", "before the series: one CIL list and ctx->busy_extents under xc_cil_lock",
          Expectation::verified()},
         {false, CtxLock::rwsem, true, false, false}},
        {{"percpu", "the patch: per-CPU item and busy extent lists, preemption off around them",
          Expectation::verified()},
         {true, CtxLock::rwsem, true, false, false}},
        {{"hotplug", "the patch, and a CPU goes offline before the push walks online CPUs",
          Expectation::violation(ViolationKind::final_check, kCheckpointed)},
         {true, CtxLock::rwsem, true, true, false}},
        {{"hotplug-possible-cpus", "the same hotplug, the push walks every possible CPU",
          Expectation::verified()},
         {true, CtxLock::rwsem, true, true, true}},
        {{"no-ctx-lock",
          "the patch, but the insert does not hold xc_ctx_lock shared; under --memory-model "
          "lkmm nothing orders its list_add_tail() before the push's splice: a data race",
          Expectation::violation(ViolationKind::final_check, kRightCheckpoint), 0,
          Expectation::violation(ViolationKind::data_race, kListRace)},
         {true, CtxLock::none_for_insert, true, false, false}},
        {{"preemptible-insert", "the RFC as posted: this_cpu_ptr() in preemptible code",
          Expectation::violation(ViolationKind::preempt, kPreemptible)},
         {true, CtxLock::rwsem, false, false, false}},
        {{"percpu-rwsem",
          "the patch, xc_ctx_lock written out as kernel/locking/percpu-rwsem.c's reader count "
          "and block flag, with its smp_mb() pairs (A-D, B-C)",
          Expectation::verified()},
         {true, CtxLock::percpu_rwsem, true, false, false}},
        {{"percpu-rwsem-no-mb",
          "the same without percpu_up_read()'s smp_mb() before the reader's decrement (\"B "
          "matches C\"): under --memory-model lkmm the push can see the count drop before the "
          "commit's list_add_tail(), a data race on the per-CPU list",
          Expectation::verified(), 0, Expectation::violation(ViolationKind::data_race, kListRace)},
         {true, CtxLock::percpu_rwsem_no_mb, true, false, false}},
    }};
    return table;
}

// Each transaction logs one item of this much log space.
constexpr long long kItemSpace = 1;

std::string name_of(const char* what, int i) {
    return what + std::to_string(i);
}

struct xfs_log_item {
    explicit xfs_log_item(const std::string& tp) : li_cil(tp + ".li_cil") {}
    list_head li_cil;
    int li_seq = 0; // the sequence of the context it was committed in
};

struct xfs_extent_busy {
    explicit xfs_extent_busy(const std::string& tp) : list(tp + ".busy") {}
    list_head list;
};

struct xfs_trans {
    explicit xfs_trans(const std::string& name) : t_item(name), t_busy_extent(name) {}
    xfs_log_item t_item;
    xfs_extent_busy t_busy_extent; // the extent it freed: t_busy holds just this one
    bool t_fills_cil = false;      // its commit queues a background push
};

struct xfs_cil_ctx {
    explicit xfs_cil_ctx(int seq)
        : sequence(seq), log_items(name_of("ctx", seq) + ".log_items"),
          busy_extents(name_of("ctx", seq) + ".busy_extents") {}
    const int sequence;
    list_head log_items; // the checkpoint: what the push collected
    list_head busy_extents;
    long long space_used = 0; // drained from xc_space_used by the push
};

struct xfs_cil_pcpu {
    explicit xfs_cil_pcpu(const std::string& name)
        : p_cil(name + ".p_cil"), p_busy_extents(name + ".p_busy_extents") {}
    list_head p_cil;
    list_head p_busy_extents;
};

struct xfs_cil {
    // Set-up, after set_nr_cpus(): the initial context and one per push.
    xfs_cil(int commits, int contexts) {
        for (int i = 0; i < commits; ++i)
            trans.push_back(std::make_unique<xfs_trans>(name_of("tp", i)));
        for (int seq = 1; seq <= contexts; ++seq)
            ctxs.push_back(std::make_unique<xfs_cil_ctx>(seq));
    }

    percpu_counter xc_space_used{"xc_space_used"};
    list_head xc_cil{"xc_cil"};
    percpu<xfs_cil_pcpu> xc_pcp{"xc_pcp"};
    spinlock_t xc_cil_lock{"xc_cil_lock"};
    struct rw_semaphore xc_ctx_lock {
        "xc_ctx_lock"
    };
    // xc_ctx_lock as a percpu-rwsem written out (the percpu-rwsem variants): sem->read_count,
    // summed here into one counter, sem->block, sem->waiters and sem->writer.
    atomic_t xc_read_count{"xc_ctx_lock.read_count"};
    atomic_t xc_block{"xc_ctx_lock.block"};
    wait_queue_head_t xc_waiters{"xc_ctx_lock.waiters"};
    wait_queue_head_t xc_writer{"xc_ctx_lock.writer"};
    shared<int> xc_ctx{"xc_ctx", 1}; // the current context, by sequence
    struct completion cpu_dead {
        "cpu_dead"
    }; // the CPU going offline is gone

    std::vector<std::unique_ptr<xfs_trans>> trans;
    std::vector<std::unique_ptr<xfs_cil_ctx>> ctxs; // ctxs[seq - 1]

    xfs_cil_ctx* ctx(int seq) { return ctxs[static_cast<std::size_t>(seq - 1)].get(); }
};

// --- fs/xfs/xfs_log_priv.h ---

list_head* pcp_cil(xfs_cil* cil) {
    return &this_cpu_ptr(&cil->xc_pcp)->p_cil;
}
list_head* pcp_busy(xfs_cil* cil) {
    return &this_cpu_ptr(&cil->xc_pcp)->p_busy_extents;
}
list_head* pcp_cil_cpu(xfs_cil* cil, int cpu) {
    return &per_cpu_ptr(&cil->xc_pcp, cpu)->p_cil;
}
list_head* pcp_busy_cpu(xfs_cil* cil, int cpu) {
    return &per_cpu_ptr(&cil->xc_pcp, cpu)->p_busy_extents;
}

// --- xc_ctx_lock as kernel/locking/percpu-rwsem.c's handshake, written out ---
// Its slow path (rcu_sync not idle, so every reader takes it). read_count is one atomic_t:
// this_cpu_inc() and this_cpu_dec() order nothing, as atomic_inc() and atomic_dec() do not.

// __percpu_down_read_trylock(), and percpu_rwsem_wait() when a writer blocks readers.
void percpu_down_read(xfs_cil* cil) {
    for (;;) {
        atomic_inc(&cil->xc_read_count);
        // If the reader misses the writer's block, the writer sees its increment.
        smp_mb(); /* A matches D */
        // If !block the critical section starts here, matched by the release in
        // percpu_up_write().
        if (!atomic_read_acquire(&cil->xc_block)) return;
        atomic_dec(&cil->xc_read_count);
        wake_up(&cil->xc_writer); // prod the writer to re-evaluate readers_active_check()
        wait_event(cil->xc_waiters, !atomic_read(&cil->xc_block));
    }
}

void percpu_up_read(xfs_cil* cil, const CilPushPolicy& p) {
    // If the writer sees the decrement, it sees the critical section too.
    if (p.ctx_lock != CtxLock::percpu_rwsem_no_mb) smp_mb(); /* B matches C */
    atomic_dec(&cil->xc_read_count);
    wake_up(&cil->xc_writer);
}

bool readers_active_check(xfs_cil* cil) {
    if (atomic_read(&cil->xc_read_count) != 0) return false;
    // If we observed the decrement, ensure we see the entire critical section.
    smp_mb(); /* C */
    return true;
}

// __percpu_down_write_trylock()'s atomic_xchg() excludes other writers and is the barrier D.
void percpu_down_write(xfs_cil* cil) {
    while (atomic_xchg(&cil->xc_block, 1))
        wait_event(cil->xc_waiters, !atomic_read(&cil->xc_block));
    wait_event(cil->xc_writer, readers_active_check(cil));
}

void percpu_up_write(xfs_cil* cil) {
    atomic_set_release(&cil->xc_block, 0);
    wake_up_all(&cil->xc_waiters);
}

bool percpu_rwsem(const CilPushPolicy& p) {
    return p.ctx_lock == CtxLock::percpu_rwsem || p.ctx_lock == CtxLock::percpu_rwsem_no_mb;
}

void ctx_lock_shared(xfs_cil* cil, const CilPushPolicy& p) {
    if (p.ctx_lock == CtxLock::rwsem) down_read(&cil->xc_ctx_lock);
    if (percpu_rwsem(p)) percpu_down_read(cil);
}

void ctx_unlock_shared(xfs_cil* cil, const CilPushPolicy& p) {
    if (p.ctx_lock == CtxLock::rwsem) up_read(&cil->xc_ctx_lock);
    if (percpu_rwsem(p)) percpu_up_read(cil, p);
}

// --- fs/xfs/xfs_log_cil.c ---

void xlog_cil_insert_items(xfs_cil* cil, const CilPushPolicy& p, xfs_trans* tp) {
    forget_reads reads; // the context it read is left in tp, not kept by the caller
    xfs_cil_ctx* ctx = cil->ctx(READ_ONCE(cil->xc_ctx));
    tp->t_item.li_seq = ctx->sequence;

    percpu_counter_add_batch(&cil->xc_space_used, kItemSpace, 1000 * 1000);

    if (!p.percpu_cil) {
        spin_lock(&cil->xc_cil_lock);
        list_add_tail(&tp->t_busy_extent.list, &ctx->busy_extents);
        list_add_tail(&tp->t_item.li_cil, &cil->xc_cil);
        spin_unlock(&cil->xc_cil_lock);
        return;
    }

    // get_cpu_ptr() in the merged code; the RFC's "XXX: preempt_disable()".
    if (p.insert_preempt_off) preempt_disable();
    list_add_tail(&tp->t_busy_extent.list, pcp_busy(cil));
    list_add_tail(&tp->t_item.li_cil, pcp_cil(cil));
    if (p.insert_preempt_off) preempt_enable();
}

void xlog_cil_pcp_splice(xfs_cil* cil, xfs_cil_ctx* ctx, int cpu) {
    list_splice_tail_init(pcp_cil_cpu(cil, cpu), &ctx->log_items);
    list_splice_tail_init(pcp_busy_cpu(cil, cpu), &ctx->busy_extents);
}

// percpu_counter_set(fbc, 0) is not in the model API: subtracting what was just summed gives
// the same total, as nothing else adds while xc_ctx_lock is held exclusively.
void percpu_counter_set_zero(percpu_counter* fbc, long long summed) {
    percpu_counter_add_batch(fbc, -summed, 1);
}

void xlog_cil_push_work(xfs_cil* cil, const CilPushPolicy& p) {
    if (percpu_rwsem(p))
        percpu_down_write(cil);
    else
        down_write(&cil->xc_ctx_lock);
    xfs_cil_ctx* ctx = cil->ctx(READ_ONCE(cil->xc_ctx));

    if (!p.percpu_cil) {
        list_splice_tail_init(&cil->xc_cil, &ctx->log_items);
    } else if (p.push_walks_possible) {
        for_each_possible_cpu(cpu) xlog_cil_pcp_splice(cil, ctx, cpu);
    } else {
        /* XXX: hotplug! */
        for_each_online_cpu(cpu) xlog_cil_pcp_splice(cil, ctx, cpu);
    }

    ctx->space_used = percpu_counter_sum(&cil->xc_space_used);
    percpu_counter_set_zero(&cil->xc_space_used, ctx->space_used);

    WRITE_ONCE(cil->xc_ctx, ctx->sequence + 1);
    if (percpu_rwsem(p))
        percpu_up_write(cil);
    else
        up_write(&cil->xc_ctx_lock);
    // The checkpoint write (xlog_cil_write_chain, commit record) follows, outside the lock.
}

// The kworker running the queued push. With a CPU going offline, it runs once the CPU is
// dead: the window between a commit and the push that the seed's "XXX: hotplug!" is about.
void xfs_cil_push_worker(xfs_cil* cil, const CilPushPolicy& p) {
    if (p.offline_cpu) wait_for_completion(&cil->cpu_dead);
    xlog_cil_push_work(cil, p);
}

// The first commits fill the CIL past XLOG_CIL_SPACE_LIMIT (the threshold is abstracted): each
// queues the push work, which a worker then runs. Called with xc_ctx_lock held shared, it
// releases it.
void xlog_cil_push_background(xfs_cil* cil, const CilPushPolicy& p, xfs_trans* tp) {
    if (tp->t_fills_cil)
        spawn("xfs-cil-push", [cil, &p] {
            op push("push");
            xfs_cil_push_worker(cil, p);
        });
    ctx_unlock_shared(cil, p);
}

void xfs_log_commit_cil(xfs_cil* cil, const CilPushPolicy& p, xfs_trans* tp) {
    ctx_lock_shared(cil, p);
    xlog_cil_insert_items(cil, p, tp);
    xlog_cil_push_background(cil, p, tp);
}

// --- properties, read without scheduling points ---

// Whether a push splices the lists of `cpu`, with the online mask as it is now.
bool push_walks(const CilPushPolicy& p, int cpu) {
    return p.push_walks_possible || cpumask_test_cpu(cpu, cpu_online_mask());
}

// Where each transaction's item and busy extent end up once the final push wrote the current
// context: the sequence of the checkpoint holding it, 0 if none ever will.
struct Landing {
    int item = 0;
    int busy = 0;
};

std::vector<Landing> after_final_push(xfs_cil& cil, const CilPushPolicy& p) {
    std::vector<Landing> landed(cil.trans.size());
    auto land = [&cil, &landed](const list_head& list, int seq) {
        for (std::size_t i = 0; i < cil.trans.size(); ++i) {
            if (list_contains(list, &cil.trans[i]->t_item.li_cil)) landed[i].item = seq;
            if (list_contains(list, &cil.trans[i]->t_busy_extent.list)) landed[i].busy = seq;
        }
    };
    // Every context up to the current one was pushed, so its checkpoint is written; the final
    // push writes the current one with what it splices into it.
    const int current = cil.xc_ctx.peek();
    for (int seq = 1; seq <= current; ++seq) {
        land(cil.ctx(seq)->log_items, seq);
        land(cil.ctx(seq)->busy_extents, seq);
    }
    land(cil.xc_cil, current);
    for_each_possible_cpu(cpu) {
        // What stays on a CPU's lists the push does not walk is in no checkpoint (0).
        const int seq = push_walks(p, cpu) ? current : 0;
        land(*pcp_cil_cpu(&cil, cpu), seq);
        land(*pcp_busy_cpu(&cil, cpu), seq);
    }
    return landed;
}

bool all_checkpointed(xfs_cil& cil, const CilPushPolicy& p) {
    for (const Landing& l : after_final_push(cil, p))
        if (!l.item) return false;
    return true;
}

bool in_right_checkpoints(xfs_cil& cil, const CilPushPolicy& p) {
    const std::vector<Landing> landed = after_final_push(cil, p);
    for (std::size_t i = 0; i < landed.size(); ++i)
        if (landed[i].item != cil.trans[i]->t_item.li_seq) return false;
    return true;
}

bool busy_extents_travel(xfs_cil& cil, const CilPushPolicy& p) {
    for (const Landing& l : after_final_push(cil, p))
        if (l.busy != l.item) return false;
    return true;
}

// The lists the final push does not walk keep what is on them.
bool drained(xfs_cil& cil, const CilPushPolicy& p) {
    for_each_possible_cpu(cpu) {
        if (push_walks(p, cpu)) continue;
        if (list_count_nodes(*pcp_cil_cpu(&cil, cpu))) return false;
        if (list_count_nodes(*pcp_busy_cpu(&cil, cpu))) return false;
    }
    return true;
}

// Before the final push drains it, xc_space_used holds the space of every item that is not
// yet in a written checkpoint.
bool space_matches(xfs_cil& cil) {
    const int current = cil.xc_ctx.peek();
    long long unpushed = static_cast<long long>(cil.trans.size()) * kItemSpace;
    for (int seq = 1; seq < current; ++seq)
        unpushed -= static_cast<long long>(list_count_nodes(cil.ctx(seq)->log_items)) * kItemSpace;
    return cil.xc_space_used.peek_sum() == unpushed;
}

void setup(std::size_t variant, const ParameterValues& values) {
    const CilPushPolicy& p = variants()[variant].policy;
    const int cpus = values[0];
    const int commits = values[1];
    const int pushes = values[2];
    const int rounds = values[3];
    const int transactions = commits * rounds;
    set_nr_cpus(cpus);
    xfs_cil& cil = model_state<xfs_cil>(transactions, pushes + 1);
    for (const auto& tp : cil.trans) {
        plain_state(tp->t_item.li_seq);
        plain_state(tp->t_fills_cil);
    }
    for (const auto& ctx : cil.ctxs)
        plain_state(ctx->space_used);

    // The highest CPU with a commit goes offline once that task's last commit returned, its
    // items still on that CPU's lists: a hotplug task starts then.
    const int victim = p.offline_cpu ? std::min(commits, cpus) - 1 : -1;
    const int queued = std::min(pushes, transactions);
    for (int t = 0; t < transactions; ++t)
        cil.trans[static_cast<std::size_t>(t)]->t_fills_cil = t < queued;
    // Commit task i commits transactions i, i + commits, ... one after another: its round r is
    // transaction r * commits + i, so the first round of every task queues the pushes.
    for (int i = 0; i < commits; ++i) {
        spawn_on(i % cpus, name_of("commit", i), [&cil, &p, i, commits, transactions, victim] {
            for (int t = i; t < transactions; t += commits) {
                op commit("commit");
                xfs_log_commit_cil(&cil, p, cil.trans[static_cast<std::size_t>(t)].get());
            }
            if (i != victim) return;
            spawn("cpuhp", [&cil, victim] {
                remove_cpu(victim);
                complete_all(&cil.cpu_dead);
            });
        });
    }

    // After the final push, in the order that names each broken variant's failure.
    final_check(kCheckpointed, [&cil, &p] { return all_checkpointed(cil, p); });
    final_check(kRightCheckpoint, [&cil, &p] { return in_right_checkpoints(cil, p); });
    final_check(kBusyTravels, [&cil, &p] { return busy_extents_travel(cil, p); });
    final_check(kDrained, [&cil, &p] { return drained(cil, p); });
    final_check(kSpaceUsed, [&cil] { return space_matches(cil); });
}

} // namespace

Protocol cil_push() {
    return Protocol{
        .name = "cil-push",
        .summary = "XFS per-CPU committed item lists: commits hold xc_ctx_lock shared, the push "
                   "exclusive",
        .variants = variants_of(variants()),
        .default_variant = 1, // percpu: the patch under review
        .parameters =
            {
                {"cpus", "possible CPUs, all online at the start", 2, 1, 8},
                {"commits", "commit tasks, started on the CPUs in turn", 2, 1, 8},
                {"pushes", "the first commits each queue a background push (a final push follows)",
                 1, 0, 8},
                {"rounds", "transactions each commit task commits in turn", 1, 1, 8},
            },
        .comparison = Comparison{.before = "global", .after = "percpu"},
        // Commits and the push share the context lock and lists: percpu-rwsem's 34,352 DPOR
        // executions reach 8,898 states (3,020 executions storing them).
        .check_stores_states = true,
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(cil_push);

} // namespace lockcheck::protocols
