/* rename-pin in Promela, for bench/spin_vs_lockcheck.sh: protocols/rename_pin.cpp (btrfs
 * renames pin the log so that no fsync commits half a rename) as SPIN sees it.
 *
 * Same tasks: RENAMES rename processes, each renaming ROUNDS inodes of its own one after
 * another, and FSYNCS fsync processes, each committing the log once (lockcheck's --renames,
 * --rounds and --fsyncs). Same properties: the invariant is asserted in the one step that can
 * break it (the write of super_log_root), the final check once every task is done, and a
 * deadlock is SPIN's invalid end state. Each lockcheck scheduling point (mutex_lock, atomic_inc, clear_bit, prepare_to_wait,
 * schedule, READ_ONCE, ...) is one Promela statement or one atomic sequence; what lockcheck
 * runs between two of them (branching on the value just read) is folded into the step before
 * where Promela allows it, and is otherwise a local statement SPIN's partial-order reduction
 * does not interleave.
 * Where it differs from lockcheck's model: the wait queue is a bit set of sleeping fsyncs, as
 * every waiter on log_writer_wait is non-exclusive (wake_up wakes them all, order does not
 * matter); no lockdep and no data-race detection (lockcheck checks both at every step).
 *
 * Variants (-D): the default is "atomic", the patch; LOG_MUTEX is the kernel before the patch;
 * NO_PIN, PIN_AFTER_UNLINK and UNSYNCED_LOG_EDITS are the broken variants, each an assertion
 * violation of the invariant.
 */
#ifndef RENAMES
#define RENAMES 1
#endif
#ifndef FSYNCS
#define FSYNCS 1
#endif
#ifndef ROUNDS
#define ROUNDS 1
#endif

#ifdef UNSYNCED_LOG_EDITS
#define EDITS_TAKE_LOG_MUTEX 0
#else
#define EDITS_TAKE_LOG_MUTEX 1
#endif

#define FREE 255

byte log_mutex = FREE; /* the owner's _pid */
byte log_leaf = FREE;  /* the log leaf's btrfs_tree_lock(), write-locked: its owner's _pid */
byte log_writers;
byte log_writer_wait; /* bit j: fsync j is queued, in TASK_UNINTERRUPTIBLE */
int log_tree; /* bit 2i: inode i's old name is logged, bit 2i+1: its new name (15 inodes) */
int super_log_root;   /* the last log committed: what a crash replays */

/* mutex_lock(), and down_write() of the leaf: both sleep until the lock is free. */
inline lock(m) {
    atomic { m == FREE -> m = _pid }
}

inline unlock(m) {
    m = FREE
}

/* join_running_log_trans() and start_log_trans() */
inline join_running_log_trans() {
    if
    :: EDITS_TAKE_LOG_MUTEX -> lock(log_mutex); log_writers++; unlock(log_mutex)
    :: else -> log_writers++
    fi
}

/* atomic_dec_and_test(), then cond_wake_up_nomb(): waitqueue_active() and wake_up() */
inline btrfs_end_log_trans() {
    atomic { log_writers--; last = (log_writers == 0) }
    if
    :: atomic { last -> sleepers = (log_writer_wait != 0) }
       if
       :: atomic { sleepers -> log_writer_wait = 0 } /* wake_up: all waiters non-exclusive */
       :: else
       fi
    :: else
    fi
}

inline btrfs_pin_log_trans() {
#ifdef LOG_MUTEX
    lock(log_mutex); log_writers++; unlock(log_mutex);
#else
    log_writers++;
#endif
    pinned = true
}

/* Rename task t renames inodes t, t + RENAMES, ... one after another: lockcheck's --rounds. */
proctype rename(byte t) {
    bool last, sleepers, pinned;
    byte i = t;
again:
#ifndef NO_PIN
#ifndef PIN_AFTER_UNLINK
    btrfs_pin_log_trans();
#endif
#endif
    /* btrfs_del_inode_ref_in_log(): the unlink of the old name */
    join_running_log_trans();
    lock(log_leaf);
    log_tree = log_tree & ~(1 << (2 * i)); /* clear_bit */
    unlock(log_leaf);
    btrfs_end_log_trans();
#ifdef PIN_AFTER_UNLINK
    btrfs_pin_log_trans();
#endif
    /* btrfs_log_new_name() */
    join_running_log_trans();
    lock(log_leaf);
    log_tree = log_tree | (1 << (2 * i + 1)); /* set_bit */
    unlock(log_leaf);
    btrfs_end_log_trans();
    if
    :: pinned -> btrfs_end_log_trans()
    :: else
    fi;
    if
    :: atomic { i + RENAMES < RENAMES * ROUNDS -> i = i + RENAMES; pinned = false; goto again }
    :: else
    fi
}

/* The invariant: every renamed inode has its old or its new name in the committed log. */
inline assert_every_inode_named() {
    k = 0;
    do
    :: k < RENAMES * ROUNDS -> assert((super_log_root & (3 << (2 * k))) != 0); k++
    :: else -> break
    od
}

proctype fsync(byte j) {
    bool writers;
    int written;
    byte k;
    lock(log_mutex);
    /* wait_for_writer() */
    do
    :: atomic { writers = (log_writers != 0) } /* atomic_read */
       if
       :: writers ->
          log_writer_wait = log_writer_wait | (1 << j); /* prepare_to_wait */
          unlock(log_mutex);
          atomic { writers = (log_writers != 0) }
          if
          :: writers -> (log_writer_wait & (1 << j)) == 0 /* schedule(): until woken */
          :: else
          fi;
          log_writer_wait = log_writer_wait & ~(1 << j); /* finish_wait */
          lock(log_mutex)
       :: else -> break
       fi
    od;
    lock(log_leaf);
    written = log_tree; /* READ_ONCE: the log btrfs_write_marked_extents() writes */
    unlock(log_leaf);
    unlock(log_mutex);
    atomic { super_log_root = written; assert_every_inode_named() } /* WRITE_ONCE */
}

init {
    byte i;
    atomic {
        i = 0;
        do
        :: i < RENAMES * ROUNDS -> log_tree = log_tree | (1 << (2 * i)); i++
        :: else -> break
        od;
        super_log_root = log_tree;
        i = 0;
        do
        :: i < RENAMES -> run rename(i); i++
        :: else -> break
        od;
        i = 0;
        do
        :: i < FSYNCS -> run fsync(i); i++
        :: else -> break
        od
    }
    /* The final check, once every task returned. */
    _nr_pr == 1 -> assert(log_writers == 0)
}
