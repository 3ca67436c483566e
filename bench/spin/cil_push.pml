/* cil-push in Promela, for bench/spin_vs_lockcheck.sh: protocols/cil_push.cpp (XFS per-CPU
 * committed item lists: commits hold xc_ctx_lock shared, the push holds it exclusive) as SPIN
 * sees it.
 *
 * Same tasks: COMMITS commit processes, process i started on CPU i % CPUS, each committing
 * ROUNDS transactions one after another (lockcheck's --commits and --rounds; transaction
 * r * COMMITS + i is process i's round r), the first PUSHES transactions each starting a push
 * worker, and a final push once every task is done. Same properties: the final checks are
 * asserted after the final push (all but "every per-CPU list is drained", which holds by
 * construction without hotplug), and a deadlock is SPIN's invalid end state. Each lockcheck
 * scheduling point (down_read, READ_ONCE, percpu_counter_add_batch, list_add_tail, preempt_enable,
 * cpumask_next, list_splice_tail_init, ...) is one Promela statement or atomic sequence, and
 * so is where lockcheck lets a task resume on another CPU (after a lock it may have slept on,
 * after spin_unlock and preempt_enable): the CPU it resumes on is chosen in that same step.
 * Where it differs from lockcheck's model: a list is the set of what is on it, not its order
 * (every property asks where an item or busy extent is, never its place in a list); no
 * CPU hotplug (the hotplug variants are not modelled); no lockdep and no data-race detection.
 *
 * Variants (-D): the default is "percpu", the patch with preemption off around the per-CPU
 * lists; GLOBAL is the kernel before the series; NO_CTX_LOCK (a final check fails) and
 * PREEMPTIBLE_INSERT (this_cpu_ptr() in preemptible code) are broken variants.
 */
#ifndef CPUS
#define CPUS 2
#endif
#ifndef COMMITS
#define COMMITS 2
#endif
#ifndef ROUNDS
#define ROUNDS 1
#endif
#ifndef PUSHES
#define PUSHES 1
#endif

#define NTRANS (COMMITS * ROUNDS)
#define QUEUED (PUSHES < NTRANS -> PUSHES : NTRANS)
#define FREE 255

/* Where an item or a busy extent is: NOWHERE before its commit adds it, then one list. */
#define NOWHERE 0
#define XC_CIL 1
#define PCP(cpu) (2 + (cpu))
#define CTX(seq) (2 + CPUS + (seq))

byte xc_ctx_readers; /* xc_ctx_lock, an rw_semaphore */
byte xc_ctx_writer = FREE;
byte xc_cil_lock = FREE; /* a spinlock */
byte xc_ctx = 1;         /* the current context, by sequence */
short space_count;       /* xc_space_used: the shared count ... */
short space_pcpu[CPUS];  /* ... and each CPU's delta */
byte item_on[NTRANS];    /* transaction t's log item (li_cil) */
byte busy_on[NTRANS];    /* transaction t's busy extent */
byte li_seq[NTRANS];     /* the context t was committed in */

/* lockcheck's resume_on_any_cpu(): a preemptible task that may have slept or been preempted
 * goes on on any CPU (every CPU is online here). */
inline resume_on_any_cpu() {
    if
    :: cpu = 0
#if CPUS > 1
    :: cpu = 1
#endif
#if CPUS > 2
    :: cpu = 2
#endif
#if CPUS > 3
    :: cpu = 3
#endif
    fi
}

/* percpu_counter_add_batch() on this task's CPU */
inline percpu_counter_add_batch(amount, batch) {
    delta = space_pcpu[cpu] + amount;
    if
    :: delta >= batch || -delta >= batch -> space_count = space_count + delta; space_pcpu[cpu] = 0
    :: else -> space_pcpu[cpu] = delta
    fi
}

/* list_splice_tail_init(from, to) of what is on the list `from` */
inline splice_items(from, to) {
    d_step {
        k = 0;
        do
        :: k < NTRANS -> if :: item_on[k] == from -> item_on[k] = to :: else fi; k++
        :: else -> break
        od;
        k = 0
    }
}
inline splice_busy(from, to) {
    d_step {
        k = 0;
        do
        :: k < NTRANS -> if :: busy_on[k] == from -> busy_on[k] = to :: else fi; k++
        :: else -> break
        od;
        k = 0
    }
}

proctype xfs_cil_push_worker() {
    byte cpu, seq, k, c;
    short sum, delta;
    atomic { xc_ctx_writer == FREE && xc_ctx_readers == 0 -> xc_ctx_writer = _pid; resume_on_any_cpu() }
    seq = xc_ctx; /* READ_ONCE */
#ifdef GLOBAL
    splice_items(XC_CIL, CTX(seq));
#else
    /* for_each_online_cpu(): each test of c is a cpumask_next() read of the online mask */
    do
    :: c < CPUS -> splice_items(PCP(c), CTX(seq)); splice_busy(PCP(c), CTX(seq)); c++
    :: else -> break
    od;
#endif
    atomic { sum = space_count; k = 0; do :: k < CPUS -> sum = sum + space_pcpu[k]; k++ :: else -> break od; k = 0 } /* percpu_counter_sum */
    d_step { percpu_counter_add_batch(-sum, 1); delta = 0 } /* percpu_counter_set(0) */
    xc_ctx = seq + 1; /* WRITE_ONCE */
    atomic { xc_ctx_writer = FREE; sum = 0 } /* up_write */
}

proctype commit(byte i) {
    byte cpu = i % CPUS, t = i, seq;
    short delta;
again:
#ifndef NO_CTX_LOCK
    atomic { xc_ctx_writer == FREE -> xc_ctx_readers++; resume_on_any_cpu() } /* down_read */
#endif
    /* xlog_cil_insert_items() */
    atomic { seq = xc_ctx; li_seq[t] = seq } /* READ_ONCE */
    d_step { percpu_counter_add_batch(1, 1000000); delta = 0 }
#ifdef GLOBAL
    atomic { xc_cil_lock == FREE -> xc_cil_lock = _pid }
    busy_on[t] = CTX(seq);
    item_on[t] = XC_CIL;
    atomic {
        xc_cil_lock = FREE; resume_on_any_cpu(); /* spin_unlock */
        if :: t < QUEUED -> run xfs_cil_push_worker() :: else fi
    }
#else
#ifdef PREEMPTIBLE_INSERT
    assert(false); /* this_cpu_ptr() in preemptible code: smp-processor-id-preemptible */
#endif
    busy_on[t] = PCP(cpu); /* list_add_tail(pcp_busy) */
    item_on[t] = PCP(cpu); /* list_add_tail(pcp_cil) */
#if CPUS > 1
    atomic { /* preempt_enable(): a preemption point */
        resume_on_any_cpu();
        if :: t < QUEUED -> run xfs_cil_push_worker() :: else fi
    }
#else
    if :: t < QUEUED -> run xfs_cil_push_worker() :: else fi;
#endif
#endif
#ifndef NO_CTX_LOCK
    atomic { /* up_read */
        xc_ctx_readers--;
        if :: t + COMMITS < NTRANS -> t = t + COMMITS; goto again :: else fi
    }
#else
    if :: atomic { t + COMMITS < NTRANS -> t = t + COMMITS; goto again } :: else fi
#endif
}

/* Once every task is done, the final push writes the current context (it runs alone: its
 * outcome is worked out as lockcheck's final checks do) and the final checks run. */
inline final_checks() {
    d_step {
        cur = xc_ctx;
        unpushed = NTRANS;
        sum = space_count;
        k = 0;
        do
        :: k < CPUS -> sum = sum + space_pcpu[k]; k++
        :: else -> break
        od;
        k = 0;
        do
        :: k < NTRANS ->
           /* an item on xc_cil or a CPU's list lands in the current context, by the final push */
           landed_item = (item_on[k] >= CTX(1) -> item_on[k] - CTX(0) : cur);
           landed_busy = (busy_on[k] >= CTX(1) -> busy_on[k] - CTX(0) : cur);
           assert(item_on[k] != NOWHERE);      /* every committed item is in a written checkpoint */
           assert(landed_item == li_seq[k]);   /* ... of the context it was committed in */
           assert(landed_busy == landed_item); /* busy extents travel with their item */
           if :: landed_item < cur -> unpushed-- :: else fi;
           k++
        :: else -> break
        od;
        assert(sum == unpushed) /* xc_space_used sums to the space of the unpushed items */
    }
}

init {
    byte i, cur, k, landed_item, landed_busy;
    short unpushed, sum;
    atomic {
        i = 0;
        do
        :: i < COMMITS -> run commit(i); i++
        :: else -> break
        od
    }
    _nr_pr == 1 -> final_checks()
}
