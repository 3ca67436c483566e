/* tree-lock in Promela, for bench/spin_vs_lockcheck.sh: protocols/tree_lock.cpp (btrfs
 * extent-buffer locks that spin, then block, against a plain mutex) as SPIN sees it.
 *
 * Same tasks: BALANCERS balance_level(), PUSHERS push_nodes_for_insert() and READERS read-only
 * btrfs_search_slot() processes over one parent and three children (lockcheck's --balancers,
 * --pushers, --readers), SPINS turns of btrfs_spin_on_block() (--spins). Same properties: one
 * owner per extent buffer, no sleep (schedule(), a COW) while holding a spinlock, and a
 * deadlock or a waiter never woken is SPIN's invalid end state. Each lockcheck scheduling point
 * (spin_lock, test_bit, cpu_relax, prepare_to_wait_exclusive, schedule, finish_wait,
 * wake_up, WRITE_ONCE, ...) is one Promela statement or atomic sequence; eb->lock_wq is a
 * channel, FIFO as exclusive waiters are queued, and wake_up() wakes its first waiter.
 * Where it differs from lockcheck's model: lockcheck's cpu_relax() waits until another task
 * took a step (a spin turn that changes nothing is not a new state to it), SPIN's is a plain
 * step; no lockdep (the sibling-order variant, a lock-order report, is not modelled) and no
 * data-race detection.
 *
 * Variants (-D): the default is "spin-block", the 2008 custom lock; MUTEX is the proposal's
 * plain mutex; SLEEP_WHILE_SPINNING (a COW under the spinlock) and UNLOCK_NO_WAKE (a waiter
 * left asleep: an invalid end state) are broken variants.
 */
#ifndef BALANCERS
#define BALANCERS 1
#endif
#ifndef PUSHERS
#define PUSHERS 1
#endif
#ifndef READERS
#define READERS 0
#endif
#ifndef SPINS
#define SPINS 1
#endif

#define NTASKS (BALANCERS + PUSHERS + READERS)
#define FREE 255
#define PARENT 0
#define LEFT 1
#define MID 2
#define RIGHT 3

byte spin_owner[4] = FREE; /* eb->lock as a spinlock, or the proposal's mutex */
bool blocking[4];          /* EXTENT_BUFFER_BLOCKING in eb->bflags */
byte lock_owner[4] = FREE; /* the model's one-owner bookkeeping */
byte contents[4];          /* what a COW or a push rewrites */
chan lock_wq[4] = [NTASKS] of { byte };
bool sleeping[NTASKS + 1]; /* by _pid: not TASK_RUNNING */
byte preempt_count[NTASKS + 1];

/* owned(): the lock is ours, no one else's */
inline owned(eb) {
    assert(lock_owner[eb] == FREE);
    lock_owner[eb] = _pid
}

inline spin_lock(eb) {
    atomic { spin_owner[eb] == FREE -> spin_owner[eb] = _pid; preempt_count[_pid]++ }
}

inline spin_unlock(eb) {
    atomic { spin_owner[eb] = FREE; preempt_count[_pid]-- }
}

/* btrfs_spin_on_block(): whether BLOCKING went away within SPINS turns */
inline btrfs_spin_on_block(eb) {
    i = 0;
    ret = false;
    do
    :: atomic { i < SPINS -> ret = !blocking[eb] } /* test_bit */
       if
       :: ret -> break
       :: else -> skip /* cpu_relax */; i++
       fi
    :: else -> break
    od
}

#ifndef MUTEX
/* btrfs_tree_lock(): returns holding the spinlock, the bit clear */
inline btrfs_tree_lock(eb) {
    btrfs_spin_on_block(eb);
    go_sleep = !ret;
    do
    :: !go_sleep ->
       spin_lock(eb);
       if
       :: atomic { !blocking[eb] -> owned(eb) } -> break /* test_bit */
       :: else
       fi;
       spin_unlock(eb);
       skip; /* cpu_relax */
       btrfs_spin_on_block(eb);
       go_sleep = !ret
    :: go_sleep ->
       atomic { /* prepare_to_wait_exclusive */
           if :: lock_wq[eb] ?? [eval(_pid)] :: else -> lock_wq[eb] ! _pid fi;
           sleeping[_pid] = true
       }
       if
       :: atomic { blocking[eb] -> assert(preempt_count[_pid] == 0) } /* test_bit */
          !sleeping[_pid] /* schedule() */
       :: else
       fi;
       atomic { /* finish_wait */
           sleeping[_pid] = false;
           if :: lock_wq[eb] ?? [eval(_pid)] -> lock_wq[eb] ?? eval(_pid) :: else fi;
           go_sleep = false
       }
    od
}

/* btrfs_try_spin_lock() */
inline btrfs_try_spin_lock(eb) {
    btrfs_spin_on_block(eb);
    if
    :: ret ->
       spin_lock(eb);
       if
       :: atomic { !blocking[eb] -> owned(eb) } /* test_bit */
       :: else -> spin_unlock(eb); ret = false
       fi
    :: else
    fi
}

inline btrfs_set_lock_blocking(eb) {
    if
    :: atomic { !blocking[eb] -> skip } /* test_bit */
       blocking[eb] = true; /* set_bit */
       spin_unlock(eb)
    :: else
    fi
}

inline btrfs_tree_unlock(eb) {
    atomic { /* test_and_clear_bit */
        lock_owner[eb] = FREE;
        was_blocking = blocking[eb];
        blocking[eb] = false
    }
    if
    :: !was_blocking -> spin_unlock(eb)
    :: else
    fi;
#ifndef UNLOCK_NO_WAKE
    if
    :: atomic { len(lock_wq[eb]) > 0 -> skip } /* waitqueue_active */
       atomic { /* wake_up: the first waiter */
           if
           :: len(lock_wq[eb]) > 0 -> lock_wq[eb] ? waker; sleeping[waker] = false; waker = 0
           :: else
           fi
       }
    :: else
    fi
#endif
}
#else
inline btrfs_tree_lock(eb) {
    atomic { spin_owner[eb] == FREE -> spin_owner[eb] = _pid; owned(eb) } /* mutex_lock */
}

inline btrfs_try_spin_lock(eb) {
    atomic { /* mutex_trylock */
        ret = (spin_owner[eb] == FREE);
        if :: ret -> spin_owner[eb] = _pid; owned(eb) :: else fi
    }
}

inline btrfs_set_lock_blocking(eb) {
    skip
}

inline btrfs_tree_unlock(eb) {
    atomic { lock_owner[eb] = FREE; spin_owner[eb] = FREE } /* mutex_unlock */
}
#endif

/* btrfs_cow_block(): may sleep */
inline btrfs_cow_block(eb) {
    atomic { assert(preempt_count[_pid] == 0); contents[eb]++ }
}

proctype balance_level() {
    byte i, waker;
    bool ret, was_blocking, go_sleep;
    btrfs_tree_lock(PARENT);
    btrfs_set_lock_blocking(PARENT);
    btrfs_tree_lock(MID);
    btrfs_set_lock_blocking(MID);
    btrfs_tree_lock(LEFT);
#ifdef SLEEP_WHILE_SPINNING
    btrfs_cow_block(LEFT);
#endif
    btrfs_set_lock_blocking(LEFT);
    btrfs_cow_block(LEFT);
    btrfs_tree_lock(RIGHT);
    btrfs_set_lock_blocking(RIGHT);
    btrfs_cow_block(RIGHT);
    btrfs_tree_unlock(RIGHT);
    btrfs_tree_unlock(LEFT);
    btrfs_tree_unlock(MID);
    btrfs_tree_unlock(PARENT)
}

inline push_into(eb) {
    btrfs_tree_lock(eb);
    btrfs_set_lock_blocking(eb);
    contents[eb]++ /* WRITE_ONCE */
}

proctype push_nodes_for_insert() {
    byte i, waker;
    bool ret, was_blocking, go_sleep;
    btrfs_tree_lock(PARENT);
    btrfs_set_lock_blocking(PARENT);
    btrfs_tree_lock(MID);
    btrfs_set_lock_blocking(MID);
    push_into(LEFT);
    btrfs_tree_unlock(LEFT);
    push_into(RIGHT);
    btrfs_tree_unlock(RIGHT);
    btrfs_tree_unlock(MID);
    btrfs_tree_unlock(PARENT)
}

proctype search_slot() {
    byte i, waker, seen;
    bool ret, was_blocking, go_sleep;
    btrfs_tree_lock(PARENT);
    btrfs_try_spin_lock(MID);
    if
    :: !ret ->
       btrfs_set_lock_blocking(PARENT);
       btrfs_tree_lock(MID)
    :: else
    fi;
    btrfs_tree_unlock(PARENT);
    seen = contents[MID]; /* READ_ONCE */
    btrfs_tree_unlock(MID)
}

init {
    byte n;
    atomic {
        n = 0;
        do :: n < BALANCERS -> run balance_level(); n++ :: else -> break od;
        n = 0;
        do :: n < PUSHERS -> run push_nodes_for_insert(); n++ :: else -> break od;
        n = 0;
        do :: n < READERS -> run search_slot(); n++ :: else -> break od
    }
}
