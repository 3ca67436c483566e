/* buffered-write in Promela, for bench/spin_vs_lockcheck.sh: protocols/buffered_write.cpp
 * (btrfs buffered writes inside EOF drop the inode lock; truncate waits for them) as SPIN sees
 * it.
 *
 * Same tasks: WRITERS buffered writers, writer i writing one page, page
 * (PAGES - 1 - i) mod PAGES, and one truncate to the first page (lockcheck's --writers and
 * --pages). Same properties: i_size changes only under the inode lock and a completed
 * truncate leaves i_size at its target with no data past it (asserted where lockcheck checks
 * them), no data past i_size once every task is done (asserted then), and a deadlock is
 * SPIN's invalid end state. Each lockcheck scheduling point (inode_lock, atomic_inc of
 * i_dio_count, i_size_read, lock_extent, the page write, prepare_to_wait, schedule, ...) is one
 * Promela statement or atomic sequence. Sizes are in pages: every write and the truncate are
 * page-aligned, so i_size is a whole number of pages.
 * Where it differs from lockcheck's model: the extent io tree holds one-page ranges only, so it
 * is an owner per page; the direct-I/O and punch-hole variants are not modelled; no lockdep and
 * no data-race detection.
 *
 * Variants (-D): the default is "unlocked-wait-first", the patch with truncate waiting for
 * writes before it shrinks; LOCKED is the kernel before the patch; UNLOCKED (the patch against
 * v4.17's shrink-then-wait truncate) and TRUNCATE_NOWAIT are broken variants, each an
 * assertion violation of "i_size changes only under the inode lock".
 */
#ifndef WRITERS
#define WRITERS 1
#endif
#ifndef PAGES
#define PAGES 2
#endif

#define FREE 255
#define NEWSIZE 1 /* the truncate keeps the first page */

byte i_rwsem = FREE; /* inode_lock(): held for write by this _pid */
byte i_dio_count;
bool dio_waiter;       /* i_dio_wait's queue: only the truncate sleeps there */
bool truncate_sleeping; /* the truncate is not TASK_RUNNING */
byte i_size = PAGES;
bool page_cache[PAGES];   /* page i is cached, with data */
bool file_extents[PAGES]; /* page i has data on disk */
byte extent_locker[PAGES] = FREE; /* io_tree: the task holding page i's range */

inline inode_lock() {
    atomic { i_rwsem == FREE -> i_rwsem = _pid }
}

inline inode_unlock() {
    i_rwsem = FREE
}

inline lock_extent(page) {
    atomic { extent_locker[page] == FREE -> extent_locker[page] = _pid }
}

inline unlock_extent(page) {
    extent_locker[page] = FREE
}

/* i_size_write(), whose callers must hold the inode lock */
inline i_size_write(size) {
    atomic { assert(i_rwsem == _pid); i_size = size }
}

/* no page from the first wholly past `size` holds data */
inline assert_no_data_past(size) {
    k = size;
    do
    :: k < PAGES -> assert(!page_cache[k] && !file_extents[k]); k++
    :: else -> break
    od
}

proctype write(byte page) {
    byte isize;
    bool relock, last, waiter;
    inode_lock();
#ifndef LOCKED
    i_dio_count++; /* inode_dio_begin() */
    atomic { isize = i_size; relock = (page + 1 <= isize) } /* i_size_read */
    if
    :: relock -> inode_unlock()
    :: else
    fi;
#endif
    lock_extent(page);
    page_cache[page] = true; /* btrfs_copy_from_user() */
    /* btrfs_dirty_pages() */
    atomic { isize = i_size } /* i_size_read */
    if
    :: page + 1 > isize -> i_size_write(page + 1)
    :: else
    fi;
    unlock_extent(page);
#ifndef LOCKED
    /* inode_dio_end() */
    atomic { i_dio_count--; last = (i_dio_count == 0) }
    if
    :: atomic { last -> waiter = dio_waiter } /* waitqueue_active */
       if
       :: atomic { waiter -> dio_waiter = false; truncate_sleeping = false } /* wake_up */
       :: else
       fi
    :: else
    fi;
    if
    :: relock -> inode_lock()
    :: else
    fi;
#endif
    inode_unlock()
}

inline inode_dio_wait() {
    atomic { busy = (i_dio_count != 0) } /* atomic_read */
    if
    :: busy ->
       do
       :: atomic { dio_waiter = true; truncate_sleeping = true } /* prepare_to_wait */
          atomic { busy = (i_dio_count != 0) }
          if
          :: busy -> !truncate_sleeping /* schedule() */
          :: else
          fi;
          atomic { busy = (i_dio_count != 0) }
          if
          :: busy
          :: else -> break
          fi
       od;
       atomic { dio_waiter = false; truncate_sleeping = false } /* finish_wait */
    :: else
    fi
}

proctype truncate() {
    byte oldsize, k;
    bool busy;
    inode_lock();
    /* btrfs_setsize() */
    oldsize = i_size; /* i_size_read */
#ifndef UNLOCKED
#ifndef TRUNCATE_NOWAIT
    inode_dio_wait();
#endif
#endif
    /* truncate_setsize(): i_size_write(), then truncate_pagecache() */
    i_size_write(NEWSIZE);
    k = NEWSIZE;
    do
    :: k < PAGES -> lock_extent(k); page_cache[k] = false; unlock_extent(k); k++
    :: else -> break
    od;
#ifdef UNLOCKED
    inode_dio_wait();
#endif
    /* btrfs_truncate(): drops the file extents past i_size as it is now */
    atomic { k = i_size } /* i_size_read */
    do
    :: k < PAGES -> file_extents[k] = false; k++
    :: else -> break
    od;
    /* the truncate's own check, then inode_unlock() */
    atomic { assert(i_size == NEWSIZE); assert_no_data_past(NEWSIZE); i_rwsem = FREE }
}

init {
    byte i, k;
    atomic {
        i = 0;
        do
        :: i < PAGES -> page_cache[i] = true; file_extents[i] = true; i++
        :: else -> break
        od;
        i = 0;
        do
        :: i < WRITERS -> run write(PAGES - 1 - i % PAGES); i++
        :: else -> break
        od;
        run truncate()
    }
    _nr_pr == 1 -> d_step { assert_no_data_past(i_size) }
}
