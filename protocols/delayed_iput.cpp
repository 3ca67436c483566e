// delayed-iput: btrfs drops an inode's last reference from a bio's completion by handing it to
// the cleaner kthread, and the list it hands it over on is locked from interrupt and process
// context (commit 866e98a4d95d "btrfs: use irq safe locking when running and adding delayed
// iputs", Filipe Manana, July 2023, fixing ec63b84d4611 "btrfs: add an ordered_extent pointer
// to struct btrfs_bio"; found by lockdep's irq-safety check on syzbot: "inconsistent
// {IN-SOFTIRQ-W} -> {SOFTIRQ-ON-W} usage" of fs_info->delayed_iput_lock in btrfs-cleaner).
//
// What the kernel does (fs/btrfs/inode.c, bio.c, ordered-data.c, v6.5 with the fix):
// - An ordered extent holds a reference to its inode and is itself counted: by the ordered
//   tree, and since ec63b84d4611 by the btrfs_bio that writes it (bbio->ordered).
//   __btrfs_bio_end_io() runs the bio's end_io, which finds the extent written and queues
//   finish_ordered_fn() on the unbound endio-write workqueue with a reference of its own, and
//   then btrfs_put_ordered_extent(): so the extent's last put, and with it the inode's, can come
//   from the bio's completion (hard or soft interrupt) or from the worker (process context).
// - btrfs_put_ordered_extent()'s last put calls btrfs_add_delayed_iput(): unless another
//   reference remains (atomic_add_unless(&i_count, -1, 1)) it puts the inode on
//   fs_info->delayed_iputs under delayed_iput_lock, for the cleaner kthread to iput() it where
//   eviction may sleep. btrfs_run_delayed_iputs() (the cleaner) takes the same lock to walk the
//   list, dropping it around each iput().
// - Before the fix both took the lock with a plain spin_lock(): the cleaner holding it with
//   interrupts on can be interrupted, on its CPU, by a completion that spins on it for ever.
//   The fix: spin_lock_irq() where the list is run (never in interrupt context), and
//   spin_lock_irqsave() where an inode is added (from either context).
// The variants a reviewer would try: irqsave only where an inode is added, the one side called
// from interrupts (the cleaner holding the lock with interrupts on is what they interrupt),
// and spin_lock_bh(), enough for a completion in BLOCK_SOFTIRQ, the path of syzbot's report,
// but not for a queue that ends its request in the hardirq (NVMe). The patch's own first
// version made only the running side irq-safe (v2: "Also make adding delayed iputs irq safe"):
// lockdep needs two inodes to see it, one added from an interrupt and one from a worker
// (--files 2; see the README).
//
// Abstracted away: the ordered tree and its (irq-safe) lock, the extent's checksums and file
// extent items (finish_ordered_fn() only drops its two references), the cleaner's other work
// and its sleep between passes (it makes one pass, at any point), the cleaner's wake-up and
// delayed_iputs_wait, need_resched(), eviction (iput() of the last reference evicts).
#include <array>
#include <string>

#include <lockcheck/lockcheck.hpp>

#include "blk_mq.hpp"

namespace lockcheck::protocols {

namespace {

// How each side takes delayed_iput_lock: the cleaner running the list, and whoever adds an
// inode to it (a bio's completion or a worker).
enum class Take { plain, irq, irqsave, bh };
struct IputPolicy {
    Take run = Take::irq;
    Take add = Take::irqsave;
};

struct IputVariant {
    Variant variant;
    IputPolicy policy;
};

const std::array<IputVariant, 5>& variants() {
    using T = Take;
    static const std::array<IputVariant, 5> table = {{
        {{"irq-safe",
          "the fix: spin_lock_irq() running delayed iputs, spin_lock_irqsave() adding one",
          Expectation::verified()},
         {T::irq, T::irqsave}},
        {{"spin-lock", "before the fix: delayed_iput_lock taken with a plain spin_lock()",
          Expectation::violation(ViolationKind::lock_order, "inconsistent-lock-state")},
         {T::plain, T::plain}},
        {{"run-irq-only",
          "the patch's first version: only running is irq-safe (found with --files 2)",
          Expectation::verified()},
         {T::irq, T::plain}},
        {{"add-irqsave-only",
          "only the side called from interrupts, adding, takes the lock irqsave",
          Expectation::violation(ViolationKind::lock_order, "inconsistent-lock-state")},
         {T::plain, T::irqsave}},
        {{"spin-lock-bh", "spin_lock_bh() on both sides: hardirq completions still come in",
          Expectation::violation(ViolationKind::lock_order, "inconsistent-lock-state")},
         {T::bh, T::bh}},
    }};
    return table;
}

constexpr int kMaxFiles = 3;

// fs/btrfs/btrfs_inode.h: the inode's count (vfs_inode.i_count) and its delayed-iput hook.
struct btrfs_inode {
    explicit btrfs_inode(const std::string& name)
        : i_count(name + "->i_count", 1), delayed_iput(name + "->delayed_iput") {}
    atomic_t i_count; // the ordered extent's reference: the file was written and closed
    list_head delayed_iput;
};

struct btrfs_fs_info;

// fs/btrfs/ordered-data.h
struct btrfs_ordered_extent {
    btrfs_ordered_extent(const std::string& name, btrfs_fs_info* fs, btrfs_inode* inode)
        : refs(name + "->refs", 2), fs(fs), inode(inode), work(name + "->work"), rq(name + "_rq") {}
    refcount_t refs; // the ordered tree's and the bio's (bbio->ordered)
    btrfs_fs_info* fs;
    btrfs_inode* inode;
    work_struct work;
    request rq; // the write's request, in flight when the model starts
};

// fs/btrfs/fs.h
struct btrfs_fs_info {
    btrfs_fs_info(int files, const IputPolicy& p) : policy(p), files(files) {
        for (int i = 0; i < files; ++i)
            inodes[i] = std::make_unique<btrfs_inode>("inode" + std::to_string(i));
    }
    spinlock_t delayed_iput_lock{"fs_info->delayed_iput_lock"};
    list_head delayed_iputs{"fs_info->delayed_iputs"};
    atomic_t nr_delayed_iputs{"fs_info->nr_delayed_iputs"};
    workqueue_struct* endio_write_workers = nullptr;
    const IputPolicy& policy;
    int files;
    std::array<std::unique_ptr<btrfs_inode>, kMaxFiles> inodes;
};

// --- fs/inode.c: iput() of the last reference evicts the inode ---

void iput(btrfs_inode* inode) {
    atomic_dec_and_test(&inode->i_count); // iput_final() -> evict()
}

// --- fs/btrfs/inode.c ---

// spin_lock(), spin_lock_irq(), spin_lock_irqsave() or spin_lock_bh(), as `how` says, and the
// matching unlock: since the fix, the running side's spin_lock_irq() (never called from
// interrupts) and the adding side's spin_lock_irqsave() (called from either context).
void take(spinlock_t* lock, Take how, unsigned long& flags) {
    switch (how) {
    case Take::plain:
        spin_lock(lock);
        break;
    case Take::irq:
        spin_lock_irq(lock);
        break;
    case Take::irqsave:
        spin_lock_irqsave(lock, flags);
        break;
    case Take::bh:
        spin_lock_bh(lock);
        break;
    }
}

void drop(spinlock_t* lock, Take how, unsigned long flags) {
    switch (how) {
    case Take::plain:
        spin_unlock(lock);
        break;
    case Take::irq:
        spin_unlock_irq(lock);
        break;
    case Take::irqsave:
        spin_unlock_irqrestore(lock, flags);
        break;
    case Take::bh:
        spin_unlock_bh(lock);
        break;
    }
}

void btrfs_add_delayed_iput(btrfs_fs_info* fs_info, btrfs_inode* inode) {
    unsigned long flags = 0;
    if (atomic_add_unless(&inode->i_count, -1, 1)) return;
    atomic_inc(&fs_info->nr_delayed_iputs);
    take(&fs_info->delayed_iput_lock, fs_info->policy.add, flags);
    list_add_tail(&inode->delayed_iput, &fs_info->delayed_iputs);
    drop(&fs_info->delayed_iput_lock, fs_info->policy.add, flags);
}

// The running side never takes the lock with spin_lock_irqsave(): no flags to keep.
void run_delayed_iput_locked(btrfs_fs_info* fs_info, btrfs_inode* inode) {
    unsigned long flags = 0;
    list_del_init(&inode->delayed_iput);
    drop(&fs_info->delayed_iput_lock, fs_info->policy.run, flags);
    iput(inode);
    atomic_dec_and_test(&fs_info->nr_delayed_iputs); // wake_up(&delayed_iputs_wait) at zero
    take(&fs_info->delayed_iput_lock, fs_info->policy.run, flags);
}

void btrfs_run_delayed_iputs(btrfs_fs_info* fs_info) {
    unsigned long flags = 0;
    take(&fs_info->delayed_iput_lock, fs_info->policy.run, flags);
    while (!list_empty(&fs_info->delayed_iputs)) {
        btrfs_inode* inode = list_first_entry(&fs_info->delayed_iputs, btrfs_inode, delayed_iput);
        run_delayed_iput_locked(fs_info, inode);
    }
    drop(&fs_info->delayed_iput_lock, fs_info->policy.run, flags);
}

// --- fs/btrfs/ordered-data.c ---

void btrfs_put_ordered_extent(btrfs_ordered_extent* entry) {
    if (refcount_dec_and_test(&entry->refs)) {
        btrfs_add_delayed_iput(entry->fs, entry->inode);
        // kfree(entry); // kmem_cache_free(btrfs_ordered_extent_cache, entry)
    }
}

// finish_ordered_fn() -> btrfs_finish_one_ordered(): off the ordered tree, and its references
// dropped: "once for us", "once for the tree".
void finish_ordered_fn(work_struct* work) {
    btrfs_ordered_extent* ordered = container_of(work, &btrfs_ordered_extent::work);
    btrfs_put_ordered_extent(ordered);
    btrfs_put_ordered_extent(ordered);
}

// --- fs/btrfs/bio.c: __btrfs_bio_end_io() of a data write ---

void btrfs_write_bio_end_io(request* rq) {
    op end_io("end_io"); // what a completion waits for, for `lockcheck compare`
    btrfs_ordered_extent* ordered = container_of(rq, &btrfs_ordered_extent::rq);
    // bbio->end_io(): btrfs_mark_ordered_io_finished() finds the extent written and queues
    // its finishing, with a reference for it.
    refcount_inc(&ordered->refs);
    queue_work(ordered->fs->endio_write_workers, &ordered->work);
    btrfs_put_ordered_extent(ordered);
}

// Whether file i's write ends in its queue's hardirq (file 0 and 2) or is handed to
// BLOCK_SOFTIRQ (file 1), the path of syzbot's report (the loop device's completion).
bool completes_in_softirq(int file) {
    return file % 2 == 1;
}

void setup(std::size_t variant, const ParameterValues& values) {
    set_nr_cpus(2);
    blk_mq_init();
    btrfs_fs_info& fs = model_state<btrfs_fs_info>(values[0], variants()[variant].policy);
    fs.endio_write_workers =
        alloc_workqueue("btrfs-endio-write", WQ_UNBOUND | WQ_MEM_RECLAIM | WQ_FREEZABLE, 2);
    static const std::array<const char*, kMaxFiles> kQueues = {"nvme0q1", "nvme0q2", "nvme0q3"};
    for (int i = 0; i < fs.files; ++i) {
        btrfs_inode* inode = fs.inodes[static_cast<std::size_t>(i)].get();
        auto* ordered = kzalloc<btrfs_ordered_extent>("ordered" + std::to_string(i),
                                                      "ordered" + std::to_string(i), &fs, inode);
        INIT_WORK(&ordered->work, finish_ordered_fn);
        ordered->rq.in_softirq = completes_in_softirq(i);
        ordered->rq.end_io = btrfs_write_bio_end_io;
        // The queues interrupt the CPU the cleaner runs on; the unbound workers run on the other.
        const unsigned irq = 40 + static_cast<unsigned>(i);
        request_irq(irq, blk_mq_queue_irq, 0, kQueues[static_cast<std::size_t>(i)], &ordered->rq);
        irq_fires(irq, 1);
    }
    spawn_on(1, "btrfs-cleaner", [&fs] {
        op clean("clean");
        btrfs_run_delayed_iputs(&fs);
    });
    final_check("every inode's last reference is dropped, or waits on delayed_iputs for the "
                "cleaner's next pass",
                [&fs] {
                    std::size_t waiting = 0;
                    for (int i = 0; i < fs.files; ++i) {
                        const btrfs_inode& inode = *fs.inodes[static_cast<std::size_t>(i)];
                        const bool listed = list_count_nodes(inode.delayed_iput) != 0;
                        waiting += listed;
                        if (inode.i_count.peek() != (listed ? 1 : 0)) return false;
                    }
                    return list_count_nodes(fs.delayed_iputs) == waiting &&
                           fs.nr_delayed_iputs.peek() == static_cast<int>(waiting);
                });
}

} // namespace

Protocol delayed_iput() {
    return Protocol{
        .name = "delayed-iput",
        .summary = "btrfs hands an inode's last reference from a bio's completion to the cleaner "
                   "over an irq-safe list",
        .variants = variants_of(variants()),
        .default_variant = 0, // irq-safe: the fix
        // Each file's write is a completion, a worker and an inode more: two make DPOR run
        // millions of executions (BFS stores 18,645 states), see the README.
        .parameters = {{"files", "files whose write completes, each dropping its inode", 1, 1,
                        kMaxFiles}},
        .comparison = Comparison{.before = "run-irq-only", .after = "irq-safe"},
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(delayed_iput);

} // namespace lockcheck::protocols
