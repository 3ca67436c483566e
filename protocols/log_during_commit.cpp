// log-during-commit: btrfs fsyncs in a new transaction while the previous one still writes its
// super block (seed 003_74a867d68d8bd5c4: "[PATCH 6/6] btrfs: do not block inode logging for so
// long during transaction commit", Filipe Manana, November 2020; 47876f7ceffa, in v5.12-rc1).
//
// What the kernel does (fs/btrfs/transaction.c and fs/btrfs/tree-log.c, v5.11 and v5.12):
// - btrfs_commit_transaction() sets the transaction TRANS_STATE_COMMIT_DOING, waits for its
//   writers (num_writers back to its own handle), takes fs_info->tree_log_mutex, commits the
//   roots (commit_fs_roots() frees every log tree and the log root tree), copies super_copy,
//   log root cleared, into super_for_commit, then sets TRANS_STATE_UNBLOCKED and
//   running_transaction = NULL under trans_lock and wakes transaction_wait: new transactions
//   start from here. Only then does it write its extent buffers
//   (btrfs_write_and_wait_transaction()) and the super block (write_all_supers()), and it
//   releases tree_log_mutex after the super block is written. The patch does not change this.
// - btrfs_start_transaction() waits in wait_current_trans() while the running transaction is
//   blocked (COMMIT_START up to UNBLOCKED), then join_transaction() joins it or, with no running
//   transaction, starts the next one; btrfs_end_transaction() drops num_writers and wakes
//   writer_wait.
// - fsync (btrfs_sync_file()) logs the inode: start_log_trans() creates the root's log tree,
//   and the log root tree if there is none; btrfs_sync_log() writes the log, then the log root
//   tree, points super_for_commit's log root at it and calls write_all_supers(fs_info, 1).
//   Before the patch (`before`), start_log_trans() creates the log root tree under
//   tree_log_mutex, once per transaction: the first fsync of the next transaction sleeps there
//   until the commit has written its super block, for the whole extent buffer writeback. The
//   patch (`after`) creates the log root tree under tree_root->log_mutex (tested first with
//   BTRFS_ROOT_HAS_LOG_TREE) and takes tree_log_mutex in btrfs_sync_log() only around
//   btrfs_set_super_log_root() and write_all_supers(): the fsync logs and writes its log while
//   the commit writes, and waits only for the previous transaction's super block.
// Why that is enough: the super block a log commit writes is super_for_commit, the previous
// transaction's; written before that transaction's extent buffers, it would point at trees that
// are not on disk; written while the commit copies super_for_commit to disk, it races with that
// copy, and the commit's super block, without the log, can land after the fsync's and lose the
// fsync'd inode. `no-super-wait` drops the tree_log_mutex from btrfs_sync_log(): the first
// finding is that data race (with --no-races, the lost fsync). `before-wake-nomb` ends the log
// commit with cond_wake_up_nomb() instead of cond_wake_up(): before the patch nothing else in
// this model orders the fsync's btrfs_set_super_log_root() before btrfs_end_transaction()'s
// atomic_dec() (the model leaves out the locks write_all_supers() and the end of the
// transaction take), so under --memory-model lkmm the commit that waited for that decrement
// can write a super block carrying the fsync's log root.
// Under --memory-model lkmm `before` has a data race by LKMM's definition (linux-kernel.cat,
// "Plain accesses and data races"): btrfs_free_log() clears root->log_root with a plain store
// under tree_log_mutex, the fsync set it with a plain store in btrfs_add_log_tree() after
// releasing tree_log_mutex, and what orders the two is the commit's atomic_read() of
// num_writers in wait_event(), relaxed: a control dependency, which the .cat does not count
// for a plain write (w-pre-bounded is [Marked] ; (addr | fence)?), and mutex_lock(), an
// acquire that orders what follows it, not that read. The patch orders them through
// tree_log_mutex, which btrfs_sync_log() now takes after btrfs_add_log_tree(). README.md,
// "An LKMM data race before the patch", says what it means.
//
// Abstracted away: one subvolume root, every fsync logging its own inode there; logging an
// inode is one atomic step (log_writers and wait_for_writer(), the subject of rename-pin, are
// left out); the log_commit[]/log_commit_wait[] handshake, with which a log commit waits for
// the previous one to finish (super block included), is log_root_tree->log_mutex held to the
// end of the log commit; batching of log commits, log_transid per root, full commit fallbacks,
// errors. Transaction 1 is committing (its handle is the btrfs-transaction kthread's); only
// transaction 2 starts after it, and is not committed. COMMIT_START and external writers are
// folded into COMMIT_DOING; reloc_mutex and the end of the commit (btrfs_finish_extent_commit(),
// TRANS_STATE_COMPLETED), which nothing here waits for, are left out. A device holds one super
// block, written in one step: write_all_supers() is numbered, and the device word holds the
// number of the write it last took (its contents are kept beside it). Extent buffer writeback
// (btrfs_write_marked_extents()) is one step per buffer: --buffers for the transaction's, the
// span in which `before` keeps the next transaction's first fsync asleep, and --log-buffers for
// a log commit's, the work the patch lets an fsync do in that span.
#include <array>
#include <string>
#include <vector>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::protocols {

namespace {

// The patch under review, and the broken variants around it, as data on one model.
struct LogDuringCommitPolicy {
    bool start_log_takes_tree_log_mutex = false; // v5.11 start_log_trans()
    bool sync_log_takes_tree_log_mutex = true;   // v5.12 btrfs_sync_log()
    // btrfs_sync_log() wakes log_commit_wait with cond_wake_up(), a full barrier first; false:
    // cond_wake_up_nomb(), which has none.
    bool log_commit_wake_has_barrier = true;
};

struct LogDuringCommitVariant {
    Variant variant;
    LogDuringCommitPolicy policy;
};

const std::string kDurable = "no log commit points at a tree the super block has not made "
                             "durable";
const std::string kInOrder = "super block writes in order: a log is replayed over the "
                             "transaction before its own";
const std::string kLogRace = "data race on fs_root->log_root";
const std::string kSynced = "every fsync'd inode is in the super block's transaction or in its "
                            "log";

const std::array<LogDuringCommitVariant, 4>& variants() {
    static const std::array<LogDuringCommitVariant, 4> table = {{
        {{"before",
          "before the patch: start_log_trans() creates the log root tree under "
          "tree_log_mutex; under --memory-model lkmm a data race by LKMM's definition: only a "
          "control dependency orders the commit's btrfs_free_log() after the fsync's "
          "btrfs_add_log_tree()",
          Expectation::verified(), 0, Expectation::violation(ViolationKind::data_race, kLogRace)},
         {true, false}},
        {{"after",
          "the patch: btrfs_sync_log() takes tree_log_mutex only to write the super "
          "block",
          Expectation::verified()},
         {false, true}},
        {{"no-super-wait",
          "the patch, but btrfs_sync_log() writes the super block without "
          "tree_log_mutex",
          Expectation::violation(ViolationKind::data_race,
                                 "data race on super_for_commit.log_root")},
         {false, false}},
        {{"before-wake-nomb",
          "before the patch, and btrfs_sync_log() ends with cond_wake_up_nomb(), without the "
          "barrier its comment calls perhaps unnecessary: under --memory-model lkmm the "
          "commit's super block can carry the fsync's log root (with --no-races; first comes "
          "the data race `before` has)",
          Expectation::verified(), 0, Expectation::violation(ViolationKind::data_race, kLogRace)},
         {true, false, false}},
    }};
    return table;
}

// fs/btrfs/transaction.h
enum btrfs_trans_state : int {
    TRANS_STATE_RUNNING,
    TRANS_STATE_COMMIT_START,
    TRANS_STATE_COMMIT_DOING,
    TRANS_STATE_UNBLOCKED,
    TRANS_STATE_COMPLETED,
};

// fs/btrfs/ctree.h: root->state bits.
constexpr long BTRFS_ROOT_HAS_LOG_TREE = 0;

constexpr int kCommitting = 1; // the transaction btrfs-transaction commits
constexpr int kNext = 2;       // the one writers and fsyncs start once it is unblocked

struct btrfs_transaction {
    btrfs_transaction(int id, int writers)
        : transid(id), state("trans" + std::to_string(id) + ".state", TRANS_STATE_RUNNING),
          num_writers("trans" + std::to_string(id) + ".num_writers", writers),
          writer_wait("trans" + std::to_string(id) + ".writer_wait") {}
    const int transid;
    shared<int> state;
    atomic_t num_writers;
    wait_queue_head_t writer_wait;
};

struct btrfs_root {
    explicit btrfs_root(const std::string& name)
        : log_mutex(name + "->log_mutex"), state(name + "->state"), log_root(name + "->log_root"),
          logged(name + "->log_root.items") {}
    struct mutex log_mutex;
    bitmap_word state;
    shared<int> log_root; // the transaction its log tree belongs to, 0: none
    bitmap_word logged;   // the inodes in its log tree, one bit each
    int log_transid = 0;  // the log root tree's: log commits so far, under log_mutex
};

// What one log commit wrote: the log root tree numbered by its log_transid.
struct log_commit {
    long transid = 0;         // the transaction the logged inodes belong to
    unsigned long logged = 0; // the inodes in it
};

// What one write_all_supers() wrote.
struct btrfs_super_block {
    int generation = 0;    // the transaction whose trees it points at
    int log_root = 0;      // the log commit a mount replays over them, 0: none
    int trees_on_disk = 0; // the newest transaction whose trees were written when it was
};

struct btrfs_fs_info {
    btrfs_fs_info(int fsyncs, int buffers, int log_buffers)
        : dirty_buffers(buffers), dirty_log_buffers(log_buffers),
          fsync_transid(static_cast<std::size_t>(fsyncs), 0) {
        log_commits.reserve(static_cast<std::size_t>(fsyncs) + 1);
        log_commits.emplace_back();
        supers.reserve(static_cast<std::size_t>(fsyncs) + 2);
        supers.emplace_back(); // mkfs's: generation 0, no log
    }

    spinlock_t trans_lock{"trans_lock"};
    shared<int> running_transaction{"running_transaction", kCommitting};
    wait_queue_head_t transaction_wait{"transaction_wait"};
    struct mutex tree_log_mutex {
        "tree_log_mutex"
    };
    // Transaction 1 runs with btrfs-transaction's handle; transaction 2 is not started yet.
    std::array<btrfs_transaction, 2> trans{btrfs_transaction(kCommitting, 1),
                                           btrfs_transaction(kNext, 0)};

    btrfs_root tree_root{"tree_root"};
    btrfs_root fs_root{"fs_root"}; // the subvolume the fsync'd inodes live in
    btrfs_root log_root_tree_root{"log_root_tree"};
    shared<int> log_root_tree{"fs_info->log_root_tree"}; // its transaction, 0: none

    shared<int> super_generation{"super_for_commit.generation"};
    shared<int> super_log_root{"super_for_commit.log_root"};

    // On disk: the extent buffers written so far of the committing transaction and of the log
    // commit under way, the transaction whose extent buffers are all written, and the super
    // block.
    const int dirty_buffers;
    const int dirty_log_buffers;
    shared<int> buffers_written{"buffers_written"};
    shared<int> log_buffers_written{"log_buffers_written"}; // under log_root_tree's log_mutex
    shared<int> trees_written{"trees_written"};
    shared<int> dev_super{"dev_super"}; // which write_all_supers() the device holds

    std::vector<log_commit> log_commits;   // [log_transid]; [0]: none
    std::vector<btrfs_super_block> supers; // [dev_super]; [0]: mkfs's
    std::vector<int> fsync_transid;        // the transaction each fsync logged in, 0: not done

    btrfs_transaction* transaction(int transid) {
        return &trans[static_cast<std::size_t>(transid - 1)];
    }
};

// --- fs/btrfs/transaction.c ---

bool is_transaction_blocked(int state) {
    return state >= TRANS_STATE_COMMIT_START && state < TRANS_STATE_UNBLOCKED;
}

// join_transaction(): joins the running transaction, or with none starts the next one. While
// the running one is blocked it returns -EBUSY, and start_transaction() waits for it to unblock
// (wait_current_trans()). The kernel's TRANS_START also waits once before trying: folded here
// into that retry, which waits on the same transaction_wait for the same state.
int btrfs_start_transaction(btrfs_fs_info* fs_info) {
    for (;;) {
        spin_lock(&fs_info->trans_lock);
        int transid = fs_info->running_transaction.read();
        btrfs_transaction* cur_trans = transid ? fs_info->transaction(transid) : nullptr;
        if (cur_trans && is_transaction_blocked(cur_trans->state.read())) {
            spin_unlock(&fs_info->trans_lock);
            wait_event(fs_info->transaction_wait,
                       READ_ONCE(cur_trans->state) >= TRANS_STATE_UNBLOCKED);
            continue;
        }
        if (!transid) {
            transid = kNext;
            fs_info->running_transaction.write(transid);
        }
        atomic_inc(&fs_info->transaction(transid)->num_writers);
        spin_unlock(&fs_info->trans_lock);
        return transid;
    }
}

void btrfs_end_transaction(btrfs_fs_info* fs_info, int transid) {
    btrfs_transaction* cur_trans = fs_info->transaction(transid);
    atomic_dec(&cur_trans->num_writers);
    // cond_wake_up(): a full barrier, then wake only if someone sleeps.
    if (wq_has_sleeper(&cur_trans->writer_wait)) wake_up(&cur_trans->writer_wait);
}

// --- fs/btrfs/disk-io.c ---

void write_all_supers(btrfs_fs_info* fs_info) {
    btrfs_super_block sb;
    sb.generation = fs_info->super_generation.read();
    sb.log_root = fs_info->super_log_root.read();
    // Not the kernel's: what a mount would find beside this super block after a crash.
    sb.trees_on_disk = READ_ONCE(fs_info->trees_written);
    fs_info->supers.push_back(sb);
    WRITE_ONCE(fs_info->dev_super, static_cast<int>(fs_info->supers.size()) - 1);
}

// btrfs_write_marked_extents(): `dirty` extent buffers, one write each.
void btrfs_write_marked_extents(shared<int>& written, int dirty) {
    for (int buffer = 1; buffer <= dirty; ++buffer)
        WRITE_ONCE(written, buffer);
}

// btrfs_write_and_wait_transaction(): the extent buffers the transaction dirtied.
void btrfs_write_and_wait_transaction(btrfs_fs_info* fs_info, int transid) {
    btrfs_write_marked_extents(fs_info->buffers_written, fs_info->dirty_buffers);
    WRITE_ONCE(fs_info->trees_written, transid);
}

// commit_fs_roots() frees the subvolume's log tree (btrfs_free_log()); the log root tree goes
// with it (btrfs_free_log_root_tree()), so the next transaction logs into new ones.
void commit_fs_roots(btrfs_fs_info* fs_info) {
    fs_info->fs_root.log_root.write(0, "btrfs_free_log");
    fs_info->fs_root.logged.write(0, "btrfs_free_log");
    fs_info->log_root_tree.write(0, "btrfs_free_log_root_tree");
    clear_bit(BTRFS_ROOT_HAS_LOG_TREE, &fs_info->tree_root.state);
}

void btrfs_commit_transaction(btrfs_fs_info* fs_info) {
    btrfs_transaction* cur_trans = fs_info->transaction(kCommitting);
    spin_lock(&fs_info->trans_lock);
    WRITE_ONCE(cur_trans->state, TRANS_STATE_COMMIT_DOING);
    spin_unlock(&fs_info->trans_lock);
    wait_event(cur_trans->writer_wait, atomic_read(&cur_trans->num_writers) == 1);

    mutex_lock(&fs_info->tree_log_mutex);
    commit_fs_roots(fs_info);
    // btrfs_set_super_log_root(super_copy, 0), then memcpy() into super_for_commit.
    fs_info->super_log_root.write(0);
    fs_info->super_generation.write(cur_trans->transid);

    spin_lock(&fs_info->trans_lock);
    WRITE_ONCE(cur_trans->state, TRANS_STATE_UNBLOCKED);
    fs_info->running_transaction.write(0);
    spin_unlock(&fs_info->trans_lock);
    wake_up(&fs_info->transaction_wait);

    btrfs_write_and_wait_transaction(fs_info, cur_trans->transid);
    write_all_supers(fs_info);
    // The super is written: the tree-loggers may go about their business.
    mutex_unlock(&fs_info->tree_log_mutex);
}

// --- fs/btrfs/tree-log.c ---

void btrfs_init_log_root_tree(btrfs_fs_info* fs_info, int transid) {
    fs_info->log_root_tree.write(transid);
}

void start_log_trans(btrfs_fs_info* fs_info, const LogDuringCommitPolicy& p, int transid) {
    btrfs_root* tree_root = &fs_info->tree_root;
    btrfs_root* root = &fs_info->fs_root;
    if (!p.start_log_takes_tree_log_mutex &&
        !test_bit(BTRFS_ROOT_HAS_LOG_TREE, &tree_root->state)) {
        mutex_lock(&tree_root->log_mutex);
        if (!fs_info->log_root_tree.read()) {
            btrfs_init_log_root_tree(fs_info, transid);
            set_bit(BTRFS_ROOT_HAS_LOG_TREE, &tree_root->state);
        }
        mutex_unlock(&tree_root->log_mutex);
    }

    mutex_lock(&root->log_mutex);
    if (!root->log_root.read()) {
        if (p.start_log_takes_tree_log_mutex) {
            mutex_lock(&fs_info->tree_log_mutex);
            if (!fs_info->log_root_tree.read()) btrfs_init_log_root_tree(fs_info, transid);
            mutex_unlock(&fs_info->tree_log_mutex);
        }
        root->log_root.write(transid, "btrfs_add_log_tree");
    }
    mutex_unlock(&root->log_mutex);
}

// btrfs_log_inode(): the inode's items go into the subvolume's log tree.
void btrfs_log_inode(btrfs_fs_info* fs_info, int ino) {
    set_bit(ino, &fs_info->fs_root.logged);
}

void btrfs_sync_log(btrfs_fs_info* fs_info, const LogDuringCommitPolicy& p, int transid) {
    btrfs_root* log_root_tree = &fs_info->log_root_tree_root;
    mutex_lock(&log_root_tree->log_mutex);
    // The log tree and the log root tree are written (btrfs_write_marked_extents() and
    // btrfs_wait_tree_log_extents()) with what is logged now.
    const unsigned long logged = READ_ONCE(fs_info->fs_root.logged);
    btrfs_write_marked_extents(fs_info->log_buffers_written, fs_info->dirty_log_buffers);
    const int log_root_start = ++log_root_tree->log_transid;
    fs_info->log_commits.push_back({transid, logged});

    if (p.sync_log_takes_tree_log_mutex) mutex_lock(&fs_info->tree_log_mutex);
    fs_info->super_log_root.write(log_root_start, "btrfs_set_super_log_root");
    write_all_supers(fs_info);
    if (p.sync_log_takes_tree_log_mutex) mutex_unlock(&fs_info->tree_log_mutex);

    mutex_unlock(&log_root_tree->log_mutex);
    // out_wake_log_root: cond_wake_up(&log_root_tree->log_commit_wait[index2]). Nothing sleeps
    // there in this model (the handshake is the log_mutex above), but its full barrier is what
    // orders the super block's log root before btrfs_end_transaction()'s atomic_dec(), on which
    // the commit waits before it clears that log root: under --memory-model lkmm, without it the
    // fsync's log root can land over the commit's.
    if (p.log_commit_wake_has_barrier) smp_mb();
}

// --- fs/btrfs/file.c ---

void btrfs_sync_file(btrfs_fs_info* fs_info, const LogDuringCommitPolicy& p, int ino) {
    const int transid = btrfs_start_transaction(fs_info);
    start_log_trans(fs_info, p, transid);
    btrfs_log_inode(fs_info, ino);
    btrfs_sync_log(fs_info, p, transid);
    btrfs_end_transaction(fs_info, transid);
    fs_info->fsync_transid[static_cast<std::size_t>(ino)] = transid;
}

// A buffered write dirties its inode in the running transaction (or the next one).
void btrfs_write(btrfs_fs_info* fs_info) {
    const int transid = btrfs_start_transaction(fs_info);
    btrfs_end_transaction(fs_info, transid);
}

// --- properties, read without scheduling points ---

// A mount replays the super block's log over the trees the super block points at: those must
// have been written before it, and the log must belong to the transaction after theirs. Each
// super block write is kept, so that the final checks see every one a crash could have found.
bool every_super_points_at_written_trees(const btrfs_fs_info& fs_info) {
    for (const btrfs_super_block& sb : fs_info.supers)
        if (sb.generation > sb.trees_on_disk) return false;
    return true;
}

bool every_log_over_previous_transaction(const btrfs_fs_info& fs_info) {
    for (const btrfs_super_block& sb : fs_info.supers) {
        if (!sb.log_root) continue;
        if (fs_info.log_commits[static_cast<std::size_t>(sb.log_root)].transid != sb.generation + 1)
            return false;
    }
    return true;
}

const btrfs_super_block& on_disk(const btrfs_fs_info& fs_info) {
    return fs_info.supers[static_cast<std::size_t>(fs_info.dev_super.peek())];
}

bool every_fsync_durable(const btrfs_fs_info& fs_info) {
    const btrfs_super_block& sb = on_disk(fs_info);
    const log_commit& replayed = fs_info.log_commits[static_cast<std::size_t>(sb.log_root)];
    for (std::size_t ino = 0; ino < fs_info.fsync_transid.size(); ++ino) {
        const int transid = fs_info.fsync_transid[ino];
        if (transid <= sb.generation) continue;
        if (replayed.transid != transid || !(replayed.logged & (1UL << ino))) return false;
    }
    return true;
}

void setup(std::size_t variant, const ParameterValues& values) {
    const LogDuringCommitPolicy& p = variants()[variant].policy;
    const int fsyncs = values[0];
    const int writers = values[1];
    btrfs_fs_info& fs_info = model_state<btrfs_fs_info>(fsyncs, values[2], values[3]);
    for (const btrfs_root* root :
         {&fs_info.tree_root, &fs_info.fs_root, &fs_info.log_root_tree_root})
        plain_state(root->log_transid);
    plain_state(fs_info.log_commits);
    plain_state(fs_info.supers);
    plain_state(fs_info.fsync_transid);

    spawn("btrfs-transaction", [&fs_info] {
        op commit("commit");
        btrfs_commit_transaction(&fs_info);
    });
    for (int i = 0; i < writers; ++i)
        spawn("writer" + std::to_string(i), [&fs_info] {
            op write("write"); // dbench's WriteX
            btrfs_write(&fs_info);
        });
    for (int i = 0; i < fsyncs; ++i)
        spawn("fsync" + std::to_string(i), [&fs_info, &p, i] {
            op fsync("fsync"); // dbench's Flush
            btrfs_sync_file(&fs_info, p, i);
        });

    final_check(kDurable, [&fs_info] { return every_super_points_at_written_trees(fs_info); });
    final_check(kInOrder, [&fs_info] { return every_log_over_previous_transaction(fs_info); });
    final_check(kSynced, [&fs_info] { return every_fsync_durable(fs_info); });
}

} // namespace

Protocol log_during_commit() {
    return Protocol{
        .name = "log-during-commit",
        .summary = "btrfs fsyncs log while the previous transaction commits, and wait only for "
                   "its super block",
        .variants = variants_of(variants()),
        .default_variant = 1, // after: the patch under review
        .parameters =
            {
                {"fsyncs", "fsync tasks, each logging its own inode", 1, 1, 8},
                {"writers", "tasks starting a transaction to write", 0, 0, 8},
                {"buffers", "extent buffers the commit writes, one step each", 8, 0, 64},
                {"log-buffers", "extent buffers each log commit writes, one step each", 4, 0, 64},
            },
        // Two tasks of 30 to 50 steps each: beyond dfs. A random sample weighs the schedules as
        // a machine running both at once would, where an adversary stalls the commit's
        // writeback while the fsync logs, and takes the patch's overlap away (--strategy dfs
        // --preemptions 2: both wait 25 steps at worst).
        .comparison =
            Comparison{
                .before = "before", .after = "after", .strategy = "random", .iterations = 2000},
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(log_during_commit);

} // namespace lockcheck::protocols
