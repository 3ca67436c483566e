// buffered-write: btrfs buffered writes inside EOF without the inode lock, against truncate
// (seed 001_47d7f1f6fe4fbb9a: "Btrfs: implement unlocked buffered write", Robbie Ko, May 2018).
//
// What the kernel does (v4.17-era fs/btrfs/file.c and inode.c, mm/truncate.c):
// - btrfs_file_write_iter() holds inode_lock() around __btrfs_buffered_write(). The patch
//   brackets the write with inode_dio_begin()/inode_dio_end() and, if pos + count <= i_size,
//   drops the inode lock for the copy and retakes it after inode_dio_end(). Each batch of pages
//   is locked with lock_and_cleanup_extent_if_need() (lock_extent on its range), filled by
//   btrfs_copy_from_user(), and btrfs_dirty_pages() re-reads i_size and calls i_size_write()
//   if the write ends past it; then unlock_extent.
// - do_truncate() holds the inode lock over btrfs_setattr() -> btrfs_setsize(). A shrinking
//   btrfs_setsize() calls truncate_setsize() (i_size_write(), then truncate_pagecache(): every
//   cached page past EOF goes through btrfs_invalidatepage(), which takes its extent lock),
//   only then inode_dio_wait(), then btrfs_truncate() drops the file extents past i_size.
// - i_size_write() "does need locking around it (normally i_mutex)" (include/linux/fs.h).
// - btrfs_direct_IO() is where the patch's idea comes from: a direct write inside EOF
//   ("overwrite") drops the inode lock, and then never writes i_size. Its range is locked by
//   lock_extent_direct() and busy with an ordered extent until the I/O ends; btrfs_punch_hole()
//   (inode lock, lock_extent of the range, drop pages and extents) must not find one there.
// The finding: truncate does wait for the unlocked writes, but only after it shrank i_size,
// so a write that checked "inside EOF" before the shrink copies into a page past the new EOF
// and its btrfs_dirty_pages() raises i_size again, without the inode lock, under the truncate.
//
// Abstracted away: a page is two "has data" flags, its page cache page and its file extent;
// every write is one page, one batch; page locks (copying into a page and dropping it are one
// step each); space reservation, delalloc bits and writeback; a direct write keeps its extent
// range locked until its ordered extent completes (btrfs unlocks earlier, and punch hole's
// retry loop over ordered extents makes up for it); truncate only shrinks, to one page;
// btrfs_truncate()'s transactions and orphan item.
#include <array>
#include <deque>
#include <string>
#include <vector>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::protocols {

namespace {

// The patch under review, and the variants around it, as data on one model.
struct BufferedWritePolicy {
    // What a shrinking btrfs_setsize() does about in-flight (direct or unlocked) writes.
    enum class Truncate { shrink_then_wait, wait_then_shrink, no_wait };
    bool unlocked_write = true;          // the patch: inode_dio_begin(), unlock inside EOF
    bool unlock_past_eof = false;        // ... and for writes past EOF too
    bool dio_begin_after_unlock = false; // inode_dio_begin() once the lock is dropped
    bool relock_before_dio_end = false;  // inode_lock() again before inode_dio_end()
    bool dio_end_unordered = false;      // inode_dio_end() with atomic_dec() + atomic_read()
    Truncate truncate = Truncate::shrink_then_wait; // v4.17
    bool direct_io = false;       // the writers are direct writes, and a punch hole runs
    bool dio_locks_extent = true; // lock_extent_direct() on the direct write's range
};

struct BufferedWriteVariant {
    Variant variant;
    BufferedWritePolicy policy;
};

const std::string kSizeLocked = "i_size changes only under the inode lock";
const std::string kTruncated =
    "after a truncate completes, i_size is its target and no page beyond it holds data";
const std::string kNoDataPastEof = "no data lies beyond i_size (no lost i_size update)";
const std::string kPunchHole =
    "punch hole never sees a direct write in flight inside its locked range";

const std::array<BufferedWriteVariant, 10>& variants() {
    using T = BufferedWritePolicy::Truncate;
    static const std::array<BufferedWriteVariant, 10> table = {{
        {{"locked", "before the patch: the whole buffered write under the inode lock",
          Expectation::verified()},
         {.unlocked_write = false}},
        {{"unlocked", "the patch, against v4.17 btrfs_setsize(): shrink, then inode_dio_wait()",
          Expectation::violation(ViolationKind::check_failed, kSizeLocked)},
         {}},
        {{"unlocked-wait-first", "the patch, with truncate waiting for writes before it shrinks",
          Expectation::verified()},
         {.truncate = T::wait_then_shrink}},
        {{"unlocked-extend", "the fixed patch, dropping the inode lock also for writes past EOF",
          Expectation::violation(ViolationKind::check_failed, kSizeLocked)},
         {.unlock_past_eof = true, .truncate = T::wait_then_shrink}},
        {{"dio-begin-after-unlock", "the fixed patch, with inode_dio_begin() after inode_unlock()",
          Expectation::violation(ViolationKind::check_failed, kSizeLocked)},
         {.dio_begin_after_unlock = true, .truncate = T::wait_then_shrink}},
        {{"truncate-nowait", "the patch, with a truncate that never calls inode_dio_wait()",
          Expectation::violation(ViolationKind::check_failed, kSizeLocked)},
         {.truncate = T::no_wait}},
        {{"relock-before-dio-end",
          "the fixed patch, retaking the inode lock before inode_dio_end(): truncate sleeps in "
          "inode_dio_wait() holding it",
          Expectation::violation(ViolationKind::deadlock, "deadlock")},
         {.relock_before_dio_end = true, .truncate = T::wait_then_shrink}},
        {{"dio-end-dec-nomb",
          "the fixed patch, but inode_dio_end() ends with atomic_dec() and atomic_read() before "
          "wake_up_bit(), whose waitqueue_active() relies on atomic_dec_and_test()'s full "
          "barrier: a lost wake-up under --memory-model lkmm",
          Expectation::verified(), 0, Expectation::violation(ViolationKind::hang, "hang")},
         {.dio_end_unordered = true, .truncate = T::wait_then_shrink}},
        {{"dio-punch-hole",
          "btrfs's own unlocked direct write inside EOF, against v4.17 truncate and a punch hole",
          Expectation::verified()},
         {.direct_io = true}},
        {{"dio-no-extent-lock", "the direct write without lock_extent_direct() on its range",
          Expectation::violation(ViolationKind::invariant, kPunchHole)},
         {.direct_io = true, .dio_locks_extent = false}},
    }};
    return table;
}

constexpr long long PAGE_SIZE = 4096;

struct btrfs_inode {
    // A file of nr_pages pages, each on disk and in the page cache.
    explicit btrfs_inode(int nr_pages)
        : vfs_inode("inode", nr_pages * PAGE_SIZE), io_tree("io_tree"), punching(nr_pages) {
        for (int i = 0; i < nr_pages; ++i) {
            const std::string n = std::to_string(i);
            page_cache.emplace_back("page" + n, true);
            file_extents.emplace_back("extent" + n, true);
            ordered_extents.emplace_back("ordered" + n);
        }
    }

    struct inode vfs_inode;
    extent_io_tree io_tree;
    std::deque<shared<bool>> page_cache; // page i is cached, with data
    // Page i has a file extent item, data on disk. Its updates are btree operations under the
    // tree's own locks, which the model leaves out: marked accesses, never a data race.
    std::deque<shared<bool>> file_extents;
    std::deque<atomic_t> ordered_extents; // direct writes in flight on page i
    // Ghost state for the punch-hole property, a plain field: punch hole holds page i's
    // extent lock.
    std::vector<char> punching;
};

int page_index(long long pos) {
    return static_cast<int>(pos / PAGE_SIZE);
}

// The first page wholly past `size`.
int first_page_past(long long size) {
    return page_index(size + PAGE_SIZE - 1);
}

int nr_pages(const btrfs_inode* bi) {
    return static_cast<int>(bi->page_cache.size());
}

// The pages' extent range, inclusive as btrfs ranges are.
void lock_pages(btrfs_inode* bi, long long pos, long long len) {
    lock_extent(&bi->io_tree, pos, pos + len - 1);
}
void unlock_pages(btrfs_inode* bi, long long pos, long long len) {
    unlock_extent(&bi->io_tree, pos, pos + len - 1);
}

// lockdep_assert_held(&inode->i_rwsem), which i_size_write() asks of its callers.
bool inode_locked_by_me(const btrfs_inode* bi) {
    return holds_lock(current(), &bi->vfs_inode.i_rwsem);
}

// For properties: reads with peek(), no scheduling point.
bool no_data_past(const btrfs_inode* bi, long long size) {
    for (int i = first_page_past(size); i < nr_pages(bi); ++i)
        if (bi->page_cache[i].peek() || bi->file_extents[i].peek()) return false;
    return true;
}

// --- fs/btrfs/file.c ---

void btrfs_dirty_pages(btrfs_inode* bi, long long pos, long long write_bytes) {
    const long long end_pos = pos + write_bytes;
    const long long isize = i_size_read(&bi->vfs_inode);
    // The pages are marked uptodate and dirty: their data is already in the page cache.
    if (end_pos > isize) {
        check(inode_locked_by_me(bi), kSizeLocked.c_str());
        i_size_write(&bi->vfs_inode, end_pos);
    }
}

// inode_dio_end() as no kernel has it: the count dropped and read back with atomic_dec() and
// atomic_read(), neither of which orders the decrement before wake_up_bit()'s lockless
// waitqueue_active(). inode_dio_wait() sets its task state (a full barrier) before it reads the
// count: store buffering, where each side can miss the other's write.
void inode_dio_end_unordered(inode* inode) {
    atomic_dec(&inode->i_dio_count);
    inode_dio_ended(inode);
    if (!atomic_read(&inode->i_dio_count)) inode_dio_wake_up_bit(inode);
}

void __btrfs_buffered_write(btrfs_inode* bi, const BufferedWritePolicy& p, long long pos,
                            long long count) {
    inode* inode = &bi->vfs_inode;
    bool relock = false;

    if (p.unlocked_write && !p.dio_begin_after_unlock) inode_dio_begin(inode);
    // "If the write is beyond the EOF, we need update the isize, but it is protected by
    // i_mutex. So we can not unlock the i_mutex at this case."
    if (p.unlocked_write && (p.unlock_past_eof || pos + count <= i_size_read(inode))) {
        inode_unlock(inode);
        relock = true;
    }
    if (p.unlocked_write && p.dio_begin_after_unlock) inode_dio_begin(inode);

    // prepare_pages(), lock_and_cleanup_extent_if_need(), btrfs_copy_from_user().
    lock_pages(bi, pos, count);
    bi->page_cache[page_index(pos)].write(true, "btrfs_copy_from_user");
    btrfs_dirty_pages(bi, pos, count);
    unlock_pages(bi, pos, count);

    if (relock && p.relock_before_dio_end) inode_lock(inode);
    if (p.unlocked_write) {
        if (p.dio_end_unordered)
            inode_dio_end_unordered(inode);
        else
            inode_dio_end(inode);
    }
    if (relock && !p.relock_before_dio_end) inode_lock(inode);
}

// btrfs_file_write_iter() for a buffered write.
void btrfs_buffered_write_iter(btrfs_inode* bi, const BufferedWritePolicy& p, long long pos) {
    inode_lock(&bi->vfs_inode);
    __btrfs_buffered_write(bi, p, pos, PAGE_SIZE);
    inode_unlock(&bi->vfs_inode);
}

// btrfs_punch_hole(): truncate_pagecache_range() and lock_extent_bits() are retried until no
// ordered extent is left in the range; the range stays locked while it is dropped.
void btrfs_punch_hole(btrfs_inode* bi, long long offset, long long len) {
    const int page = page_index(offset);
    inode_lock(&bi->vfs_inode);
    lock_pages(bi, offset, len);
    bi->punching[page] = true;
    bi->page_cache[page].write(false, "truncate_pagecache_range");
    bi->file_extents[page].write_once(false, "__btrfs_drop_extents");
    bi->punching[page] = false;
    unlock_pages(bi, offset, len);
    inode_unlock(&bi->vfs_inode);
}

// --- fs/btrfs/inode.c: direct I/O ---

// btrfs_get_blocks_direct() for a write, and its I/O up to btrfs_finish_ordered_io().
void btrfs_direct_write_range(btrfs_inode* bi, const BufferedWritePolicy& p, long long start,
                              long long len, bool overwrite) {
    inode* inode = &bi->vfs_inode;
    const int page = page_index(start);
    if (p.dio_locks_extent) lock_pages(bi, start, len); // lock_extent_direct()
    atomic_inc(&bi->ordered_extents[page]);             // btrfs_create_dio_extent()
    // "Need to update the i_size under the extent lock so buffered readers will get the
    // updated i_size when we unlock."
    if (!overwrite && start + len > i_size_read(inode)) {
        check(inode_locked_by_me(bi), kSizeLocked.c_str());
        i_size_write(inode, start + len);
    }
    bi->file_extents[page].write_once(true, "btrfs_submit_direct");
    atomic_dec(&bi->ordered_extents[page]); // btrfs_finish_ordered_io()
    if (p.dio_locks_extent) unlock_pages(bi, start, len);
}

// btrfs_file_write_iter() -> generic_file_direct_write() -> btrfs_direct_IO().
void btrfs_direct_write_iter(btrfs_inode* bi, const BufferedWritePolicy& p, long long offset) {
    inode* inode = &bi->vfs_inode;
    const long long count = PAGE_SIZE;
    bool relock = false;

    inode_lock(inode);
    inode_dio_begin(inode);
    const bool overwrite = offset + count <= i_size_read(inode);
    if (overwrite) {
        inode_unlock(inode);
        relock = true;
    }
    btrfs_direct_write_range(bi, p, offset, count, overwrite);
    inode_dio_end(inode);
    if (relock) inode_lock(inode);
    inode_unlock(inode);
}

// --- mm/truncate.c ---

// truncate_inode_pages(): btrfs_invalidatepage() locks each page's extent range to drop it.
void truncate_pagecache(btrfs_inode* bi, long long newsize) {
    for (int i = first_page_past(newsize); i < nr_pages(bi); ++i) {
        lock_pages(bi, i * PAGE_SIZE, PAGE_SIZE);
        bi->page_cache[i].write(false, "btrfs_invalidatepage");
        unlock_pages(bi, i * PAGE_SIZE, PAGE_SIZE);
    }
}

void truncate_setsize(btrfs_inode* bi, long long newsize) {
    check(inode_locked_by_me(bi), kSizeLocked.c_str());
    i_size_write(&bi->vfs_inode, newsize);
    truncate_pagecache(bi, newsize);
}

// --- fs/btrfs/inode.c: truncate ---

// btrfs_truncate_inode_items(): drops the file extents past i_size as it is now; the page
// cache stays as truncate_pagecache() left it.
void btrfs_truncate(btrfs_inode* bi) {
    const long long size = i_size_read(&bi->vfs_inode);
    for (int i = first_page_past(size); i < nr_pages(bi); ++i)
        bi->file_extents[i].write_once(false, "btrfs_truncate_inode_items");
}

void btrfs_setsize(btrfs_inode* bi, const BufferedWritePolicy& p, long long newsize) {
    using T = BufferedWritePolicy::Truncate;
    inode* inode = &bi->vfs_inode;
    const long long oldsize = i_size_read(inode);
    if (newsize > oldsize) return; // expanding truncates are not modelled

    if (p.truncate == T::wait_then_shrink) inode_dio_wait(inode);
    truncate_setsize(bi, newsize);
    // v4.17: the wait for in-flight writes comes once i_size and the page cache shrank.
    if (p.truncate == T::shrink_then_wait) inode_dio_wait(inode);
    btrfs_truncate(bi);

    check(bi->vfs_inode.i_size.peek() == newsize && no_data_past(bi, newsize), kTruncated.c_str());
}

// do_truncate(): the VFS holds the inode lock over notify_change() -> btrfs_setattr().
void do_truncate(btrfs_inode* bi, const BufferedWritePolicy& p, long long newsize) {
    inode_lock(&bi->vfs_inode);
    btrfs_setsize(bi, p, newsize);
    inode_unlock(&bi->vfs_inode);
}

void setup(std::size_t variant, const ParameterValues& values) {
    const BufferedWritePolicy& p = variants()[variant].policy;
    const int writers = values[0];
    const int pages = values[1];
    btrfs_inode& bi = model_state<btrfs_inode>(pages);
    plain_state(bi.punching);
    const long long last_page = (pages - 1) * PAGE_SIZE;

    // The truncate keeps the first page. Writer 0 writes the last page, writer i the i-th
    // page before it; the punch hole punches the last page.
    for (int i = 0; i < writers; ++i) {
        const long long pos = (pages - 1 - i % pages) * PAGE_SIZE;
        if (p.direct_io)
            spawn("dio_write" + std::to_string(i), [&bi, &p, pos] {
                op write("write"); // what fio's write latency times
                btrfs_direct_write_iter(&bi, p, pos);
            });
        else
            spawn("write" + std::to_string(i), [&bi, &p, pos] {
                op write("write");
                btrfs_buffered_write_iter(&bi, p, pos);
            });
    }
    spawn("truncate", [&bi, &p] {
        op truncate("truncate");
        do_truncate(&bi, p, PAGE_SIZE);
    });
    if (p.direct_io) {
        spawn("punch_hole", [&bi, last_page] {
            op punch_hole("punch_hole");
            btrfs_punch_hole(&bi, last_page, PAGE_SIZE);
        });
        invariant(kPunchHole, [&bi] {
            for (int i = 0; i < nr_pages(&bi); ++i)
                if (bi.punching[i] && bi.ordered_extents[i].peek()) return false;
            return true;
        });
    }
    final_check(kNoDataPastEof, [&bi] { return no_data_past(&bi, bi.vfs_inode.i_size.peek()); });
}

} // namespace

Protocol buffered_write() {
    return Protocol{
        .name = "buffered-write",
        .summary = "btrfs buffered writes inside EOF drop the inode lock; truncate waits for them",
        .variants = variants_of(variants()),
        .default_variant = 1, // unlocked: the patch under review
        .parameters =
            {
                {"writers", "writer tasks; writer i writes page (pages - 1 - i) mod pages", 1, 1,
                 8},
                {"pages", "pages in the file; the truncate keeps the first one", 2, 2, 8},
            },
        .comparison = Comparison{.before = "locked", .after = "unlocked"},
        // The writers and the truncate meet on the inode, its pages and extent locks:
        // dio-punch-hole's 8,139 DPOR executions are 158 storing the states.
        .check_stores_states = true,
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(buffered_write);

} // namespace lockcheck::protocols
