// rename-pin: btrfs pins the log tree during rename (seed 000_ac60bf2598a55087: "btrfs: do not
// take the log_mutex of the subvolume when pinning the log", Filipe Manana, August 2020).
//
// What the kernel does (fs/btrfs/tree-log.c and btrfs_rename() in fs/btrfs/inode.c, v5.8):
// - btrfs_rename() calls btrfs_pin_log_trans() (atomic_inc(&root->log_writers)) before it
//   removes the old name from the log (__btrfs_unlink_inode -> btrfs_del_inode_ref_in_log)
//   and logs the new name (btrfs_log_new_name), then unpins with btrfs_end_log_trans().
//   The patch removes the mutex_lock/mutex_unlock of root->log_mutex around that increment.
// - Every log edit joins the running log transaction first: join_running_log_trans() (and
//   start_log_trans(), for btrfs_log_new_name) takes log_mutex and increments log_writers;
//   btrfs_end_log_trans() decrements it and wakes log_writer_wait when it reaches zero.
// - fsync commits the log in btrfs_sync_log(): it takes log_mutex, wait_for_writer() drops
//   the mutex and sleeps while log_writers is nonzero, then, still holding log_mutex, it
//   writes the log tree (btrfs_write_marked_extents) and moves on to the next log
//   transaction; after unlocking, the super block is pointed at the written log.
// - A log edit changes a log leaf under its tree lock (btrfs_search_slot() takes
//   btrfs_tree_lock() on the leaf, btrfs_release_path() drops it) without holding log_mutex;
//   writeback takes the same lock on each leaf it writes (lock_extent_buffer_for_io()). Under
//   --memory-model lkmm that lock is what makes the commit see a finished edit: the
//   log_writers count it waited for is read without acquire ordering.
// Why the patch is safe: a rename that pins after a commit passed wait_for_writer() cannot
// put its unlink into the log being written, because that log edit blocks on log_mutex
// until the commit is done. The `unsynced-log-edits` variant removes exactly that.
//
// Abstracted away: the log tree is a word of items, one bit per name (each renamed inode
// was logged earlier, so its old name starts in the log); the two deletions of the unlink
// (inode ref, dir entry) are one edit; log_root/HAS_LOG_TREE checks (the log exists
// throughout); the log_batch loop and MULTI_LOG_TASKS sleep; log_commit[] ordering of
// concurrent syncs and log_transid bookkeeping; the log root tree; the fsync's own inode
// logging; transactions and full commits.
#include <array>
#include <string>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::protocols {

namespace {

// The patch under review, and the broken variants around it, as data on one model.
struct RenamePinPolicy {
    enum class Pin { under_log_mutex, atomic, none };
    Pin pin = Pin::atomic;
    bool pin_after_unlink = false;        // pin only once the old name is already gone
    bool log_edits_take_log_mutex = true; // join_running_log_trans() locks log_mutex
    // btrfs_end_log_trans() drops log_writers with atomic_dec() and tests it with
    // atomic_read() before its cond_wake_up_nomb(), instead of atomic_dec_and_test(), whose
    // full ordering the _nomb wake-up relies on; neither of the two orders anything.
    bool end_with_unordered_dec = false;
};

struct RenamePinVariant {
    Variant variant;
    RenamePinPolicy policy;
};

const std::string kInvariant = "committed log never holds the unlink of an old name without the "
                               "link of its new name";
const std::string kBalanced = "log_writers is back to zero";

const std::array<RenamePinVariant, 6>& variants() {
    using P = RenamePinPolicy::Pin;
    static const std::array<RenamePinVariant, 6> table = {{
        {{"log-mutex", "before the patch: btrfs_pin_log_trans() takes log_mutex around the pin",
          Expectation::verified()},
         {P::under_log_mutex, false, true}},
        {{"atomic", "the patch: the pin is a bare atomic_inc(&log_writers)",
          Expectation::verified()},
         {P::atomic, false, true}},
        {{"no-pin", "rename does not pin the log",
          Expectation::violation(ViolationKind::invariant, kInvariant)},
         {P::none, false, true}},
        {{"pin-after-unlink", "the pin comes after removing the old name from the log",
          Expectation::violation(ViolationKind::invariant, kInvariant)},
         {P::atomic, true, true}},
        {{"unsynced-log-edits", "the patched pin, but log edits do not take log_mutex",
          Expectation::violation(ViolationKind::invariant, kInvariant)},
         {P::atomic, false, false}},
        {{"dec-nomb",
          "the patch, but the log writer ends with atomic_dec() and atomic_read() before "
          "cond_wake_up_nomb(), which relies on atomic_dec_and_test()'s full barrier: a lost "
          "wake-up under --memory-model lkmm",
          Expectation::verified(), 0, Expectation::violation(ViolationKind::hang, "hang")},
         {P::atomic, false, true, true}},
    }};
    return table;
}

// Log items: bit 2i is rename i's old name, bit 2i+1 its new name.
long old_name(int i) {
    return 2 * i;
}
long new_name(int i) {
    return 2 * i + 1;
}

// The log tree's one leaf. btrfs_tree_lock() write-locks it: down_write() since v5.11; v5.8's
// spinning-then-blocking lock orders the same way.
struct extent_buffer {
    explicit extent_buffer(unsigned long logged) : items("log_tree", logged) {}

    struct rw_semaphore lock {
        "log_leaf"
    };
    bitmap_word items;
};

void btrfs_tree_lock(extent_buffer* eb) {
    down_write(&eb->lock);
}
void btrfs_tree_unlock(extent_buffer* eb) {
    up_write(&eb->lock);
}

struct btrfs_root {
    explicit btrfs_root(unsigned long logged)
        : log_tree(logged), super_log_root("super_log_root", logged) {}

    struct mutex log_mutex {
        "log_mutex"
    };
    atomic_t log_writers{"log_writers"};
    wait_queue_head_t log_writer_wait{"log_writer_wait"};
    extent_buffer log_tree;     // the running log transaction's items
    bitmap_word super_log_root; // the log a crash would replay: the last one committed
};

// --- fs/btrfs/tree-log.c ---

int join_running_log_trans(btrfs_root* root, const RenamePinPolicy& p) {
    if (p.log_edits_take_log_mutex) mutex_lock(&root->log_mutex);
    atomic_inc(&root->log_writers);
    if (p.log_edits_take_log_mutex) mutex_unlock(&root->log_mutex);
    return 0;
}

// Creating the log tree and counting log_batch are abstracted: it joins as above.
int start_log_trans(btrfs_root* root, const RenamePinPolicy& p) {
    return join_running_log_trans(root, p);
}

// Returns whether it pinned: the no-pin variant leaves the log unpinned.
bool btrfs_pin_log_trans(btrfs_root* root, const RenamePinPolicy& p) {
    if (p.pin == RenamePinPolicy::Pin::none) return false;
    const bool locked = p.pin == RenamePinPolicy::Pin::under_log_mutex;
    if (locked) mutex_lock(&root->log_mutex);
    atomic_inc(&root->log_writers);
    if (locked) mutex_unlock(&root->log_mutex);
    return true;
}

// cond_wake_up_nomb() (fs/btrfs/ctree.h): the lockless waitqueue_active() check, with no
// smp_mb() of its own: its caller must provide one.
void cond_wake_up_nomb(wait_queue_head_t* wq) {
    if (waitqueue_active(wq)) wake_up(wq);
}

void btrfs_end_log_trans(btrfs_root* root, const RenamePinPolicy& p) {
    forget_reads reads; // what it reads decides only whether it wakes
    if (p.end_with_unordered_dec) {
        atomic_dec(&root->log_writers);
        if (!atomic_read(&root->log_writers)) cond_wake_up_nomb(&root->log_writer_wait);
    } else if (atomic_dec_and_test(&root->log_writers)) {
        // atomic_dec_and_test() implies a barrier.
        cond_wake_up_nomb(&root->log_writer_wait);
    }
}

void btrfs_del_inode_ref_in_log(btrfs_root* root, const RenamePinPolicy& p, int i) {
    if (join_running_log_trans(root, p)) return;
    btrfs_tree_lock(&root->log_tree);
    clear_bit(old_name(i), &root->log_tree.items);
    btrfs_tree_unlock(&root->log_tree);
    btrfs_end_log_trans(root, p);
}

void btrfs_log_new_name(btrfs_root* root, const RenamePinPolicy& p, int i) {
    if (start_log_trans(root, p)) return;
    btrfs_tree_lock(&root->log_tree);
    set_bit(new_name(i), &root->log_tree.items);
    btrfs_tree_unlock(&root->log_tree);
    btrfs_end_log_trans(root, p);
}

void wait_for_writer(btrfs_root* root) {
    DEFINE_WAIT(wait);
    forget_reads reads; // a round of the wait keeps nothing it read
    while (atomic_read(&root->log_writers)) {
        reads.forget();
        prepare_to_wait(&root->log_writer_wait, &wait, TASK_UNINTERRUPTIBLE);
        mutex_unlock(&root->log_mutex);
        if (atomic_read(&root->log_writers)) schedule();
        finish_wait(&root->log_writer_wait, &wait);
        mutex_lock(&root->log_mutex);
    }
}

void btrfs_sync_log(btrfs_root* root) {
    mutex_lock(&root->log_mutex);
    wait_for_writer(root);
    // btrfs_write_marked_extents(): the log as it is now is what gets written; later edits
    // go to the next log transaction.
    btrfs_tree_lock(&root->log_tree);
    const unsigned long written = READ_ONCE(root->log_tree.items);
    btrfs_tree_unlock(&root->log_tree);
    mutex_unlock(&root->log_mutex);
    WRITE_ONCE(root->super_log_root, written);
}

// --- fs/btrfs/inode.c ---

void btrfs_rename(btrfs_root* root, const RenamePinPolicy& p, int i) {
    bool log_pinned = false;
    if (!p.pin_after_unlink) log_pinned = btrfs_pin_log_trans(root, p);
    btrfs_del_inode_ref_in_log(root, p, i); // __btrfs_unlink_inode() of the old name
    if (p.pin_after_unlink) log_pinned = btrfs_pin_log_trans(root, p);
    btrfs_log_new_name(root, p, i);
    if (log_pinned) btrfs_end_log_trans(root, p);
}

bool every_inode_named(unsigned long log, int inodes) {
    for (int i = 0; i < inodes; ++i) {
        const bool has_old = log & (1UL << old_name(i));
        const bool has_new = log & (1UL << new_name(i));
        if (!has_old && !has_new) return false;
    }
    return true;
}

void setup(std::size_t variant, const ParameterValues& values) {
    const RenamePinPolicy& p = variants()[variant].policy;
    const int renames = values[0];
    const int fsyncs = values[1];
    const int rounds = values[2];
    const int inodes = renames * rounds;
    unsigned long logged = 0;
    for (int i = 0; i < inodes; ++i)
        logged |= 1UL << old_name(i);
    btrfs_root& root = model_state<btrfs_root>(logged);

    // Rename task t renames inodes t, t + renames, ... one after another.
    for (int t = 0; t < renames; ++t)
        spawn("rename" + std::to_string(t), [&root, &p, t, renames, inodes] {
            for (int i = t; i < inodes; i += renames) {
                op rename("rename"); // what dbench's Rename row times
                btrfs_rename(&root, p, i);
            }
        });
    for (int i = 0; i < fsyncs; ++i)
        spawn("fsync" + std::to_string(i), [&root] {
            op fsync("fsync");
            btrfs_sync_log(&root);
        });

    invariant(kInvariant,
              [&root, inodes] { return every_inode_named(root.super_log_root.peek(), inodes); });
    final_check(kBalanced, [&root] { return root.log_writers.peek() == 0; });
}

} // namespace

Protocol rename_pin() {
    return Protocol{
        .name = "rename-pin",
        .summary = "btrfs rename pins the log (log_writers) so no fsync commits half a rename",
        .variants = variants_of(variants()),
        .default_variant = 1, // atomic: the patch under review
        .parameters =
            {
                {"renames", "rename tasks, each renaming its own inode", 1, 1, 8},
                {"fsyncs", "fsync tasks, each committing the log", 1, 1, 8},
                // Up to 8 x 4 inodes: two log bits each fill the 64-bit log word.
                {"rounds", "renames each rename task makes in turn, each of an inode of its own", 1,
                 1, 4},
            },
        // Both verify in about 6600 executions: dfs weighs every interleaving.
        .comparison = Comparison{.before = "log-mutex", .after = "atomic"},
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(rename_pin);

} // namespace lockcheck::protocols
