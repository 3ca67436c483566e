// tree-lock: btrfs extent-buffer locks that start spinning and switch to blocking, against
// the proposal to use a plain mutex (seed 002_36f007f6a06fdb96: "[PATCH RFC] btrfs: Simplify
// locking", Tejun Heo, March 2011, with Chris Mason's replies).
//
// What the kernel does (fs/btrfs/locking.c as the seed removes it, fs/btrfs/ctree.c):
// - An extent buffer lock is eb->lock (a spinlock) plus the EXTENT_BUFFER_BLOCKING bit and
//   an exclusive wait queue eb->lock_wq. btrfs_tree_lock() spins a while on the bit
//   (btrfs_spin_on_block), takes the spinlock and returns holding it unless the bit is set;
//   otherwise it sleeps on lock_wq. btrfs_set_lock_blocking() sets the bit and drops the
//   spinlock so the owner may sleep; btrfs_clear_lock_blocking() takes the spinlock back.
//   btrfs_tree_unlock() clears the bit (or drops the spinlock) and wakes lock_wq, whose wake
//   function always counts as a wake so exactly one waiter comes to retry.
// - balance_level() holds the parent and the middle node, locks the left sibling nested 1
//   and the right sibling nested 2, goes blocking and COWs each; push_nodes_for_insert()
//   locks left (nested 1), pushes, unlocks it, then right (nested 1). Readers walk down
//   taking the child with btrfs_try_spin_lock() and falling back to btrfs_tree_lock().
// - The proposal: eb->lock is a mutex (SIMPLE); with the second patch btrfs_try_spin_lock()
//   is mutex_tryspin(): a trylock that spins while the owner runs (SPIN).
// Lock classes are per tree level, as btrfs_set_buffer_lockdep_class() makes them: the
// parent is btrfs-extent-01, the children btrfs-extent-00 (with nesting subclasses).
//
// Abstracted away: node contents (a COW or a push is one write to the node), the path
// structure and btrfs_set_path_blocking() (each path sets its own nodes blocking),
// need_resched() (never true: spins end by the bound or by the bit), the 512-iteration
// spin bound (an option, --spins), optimistic spinning inside mutex_lock() itself, reads of
// the tree outside the locks.
#include <string>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::protocols {

namespace {

enum { EXTENT_BUFFER_BLOCKING = 1 };

// How eb->lock is implemented, and the broken paths around it: data on one model.
struct TreeLockPolicy {
    enum class Lock { spin_block, mutex, mutex_tryspin };
    Lock lock = Lock::spin_block;
    bool right_before_left = false;   // one path takes the right sibling first
    bool cow_before_blocking = false; // a path sleeps before btrfs_set_lock_blocking()
    bool unlock_wakes = true;         // btrfs_tree_unlock() wakes lock_wq
    // btrfs_tree_unlock() tests BLOCKING with test_bit() and clears it with clear_bit(), neither
    // ordered, where test_and_clear_bit() is a full barrier before its waitqueue_active().
    bool unlock_clears_unordered = false;
};

struct TreeLockVariant {
    Variant variant;
    TreeLockPolicy policy;
};

const std::string kOneOwner = "one owner per extent buffer at a time";

const std::array<TreeLockVariant, 7>& variants() {
    using L = TreeLockPolicy::Lock;
    static const std::array<TreeLockVariant, 7> table = {{
        {{"spin-block", "the 2008 custom lock: spinlock + BLOCKING bit + exclusive wait queue",
          Expectation::verified()},
         {L::spin_block, false, false, true}},
        {{"mutex", "the proposal: eb->lock is a plain mutex (SIMPLE)", Expectation::verified()},
         {L::mutex, false, false, true}},
        {{"mutex-tryspin", "the mutex, and btrfs_try_spin_lock() is mutex_tryspin() (SPIN)",
          Expectation::verified()},
         {L::mutex_tryspin, false, false, true}},
        {{"sibling-order", "the mutex, and push_nodes_for_insert locks right before left",
          Expectation::violation(ViolationKind::lock_order, "circular-locking-dependency")},
         {L::mutex, true, false, true}},
        {{"sleep-while-spinning", "the custom lock, and balance_level COWs before going blocking",
          Expectation::violation(ViolationKind::sleep_in_atomic, "sleep-in-atomic")},
         {L::spin_block, false, true, true}},
        // The lost waiter is left asleep only when balance_level releases the parent, its last
        // step: the search needs a bound past it.
        {{"unlock-no-wake", "the custom lock, and btrfs_tree_unlock clears BLOCKING without waking",
          Expectation::violation(ViolationKind::hang, "hang")},
         {L::spin_block, false, false, false}},
        {{"unlock-unordered",
          "the custom lock, and btrfs_tree_unlock clears BLOCKING with test_bit() and "
          "clear_bit(), not test_and_clear_bit(), whose full barrier its waitqueue_active() "
          "relies on: a lost wake-up under --memory-model lkmm",
          Expectation::verified(), 0, Expectation::violation(ViolationKind::hang, "hang")},
         {L::spin_block, false, false, true, true}},
    }};
    return table;
}

struct Sizes {
    int spins; // iterations of btrfs_spin_on_block / mutex_tryspin
};

struct extent_buffer {
    extent_buffer(const std::string& name, int level)
        : lock(name + ".lock"), mutex(name + ".lock"), bflags(name + ".bflags"),
          lock_wq(name + ".lock_wq"), contents(name) {
        const std::string cls = "btrfs-extent-0" + std::to_string(level);
        lockdep_set_class(&lock.dep_map, cls);
        lockdep_set_class(&mutex.dep_map, cls);
    }

    spinlock_t lock;    // the 2008 lock ...
    struct mutex mutex; // ... or the proposal's
    bitmap_word bflags;
    wait_queue_head_t lock_wq;
    shared<int> contents;                    // what a COW or a push rewrites
    const task_struct* lock_owner = nullptr; // bookkeeping for the one-owner check
};

struct btrfs_tree {
    extent_buffer parent{"parent", 1};
    extent_buffer left{"left", 0};
    extent_buffer mid{"mid", 0};
    extent_buffer right{"right", 0};
};

// --- fs/btrfs/locking.c (2008) ---

int btrfs_spin_on_block(extent_buffer* eb, const Sizes& s) {
    for (int i = 0; i < s.spins; i++) {
        if (!test_bit(EXTENT_BUFFER_BLOCKING, &eb->bflags)) return 1;
        cpu_relax();
    }
    return 0;
}

// The wake function that always counts as a wake: one waiter is told the lock is ready.
int btrfs_wake_function(wait_queue_entry* wait, unsigned mode, int sync, void* key) {
    autoremove_wake_function(wait, mode, sync, key);
    return 1;
}

// btrfs_tree_lock(): returns with the spinlock held, after spinning and/or sleeping.
void spin_block_lock(extent_buffer* eb, int subclass, const Sizes& s) {
    DEFINE_WAIT_FUNC(wait, btrfs_wake_function);
    forget_reads reads; // it returns nothing, and each round starts afresh

    if (!btrfs_spin_on_block(eb, s)) goto sleep;

    while (1) {
        reads.forget();
        spin_lock_nested(&eb->lock, subclass);

        // nobody is blocking, exit with the spinlock held
        if (!test_bit(EXTENT_BUFFER_BLOCKING, &eb->bflags)) return;

        // we have the spinlock, but the real owner is blocking: wait for them
        spin_unlock(&eb->lock);

        // spin for a bit, and if the blocking flag goes away, loop around
        cpu_relax();
        if (btrfs_spin_on_block(eb, s)) continue;
    sleep:
        reads.forget();
        prepare_to_wait_exclusive(&eb->lock_wq, &wait, TASK_UNINTERRUPTIBLE);

        if (test_bit(EXTENT_BUFFER_BLOCKING, &eb->bflags)) schedule();

        finish_wait(&eb->lock_wq, &wait);
    }
}

int spin_block_try_spin_lock(extent_buffer* eb, const Sizes& s) {
    if (btrfs_spin_on_block(eb, s)) {
        spin_lock(&eb->lock);
        if (!test_bit(EXTENT_BUFFER_BLOCKING, &eb->bflags)) return 1;
        spin_unlock(&eb->lock);
    }
    return 0;
}

void spin_block_unlock(extent_buffer* eb, const TreeLockPolicy& p) {
    forget_reads reads;
    // a blocking owner holds no spinlock: just clear the bit and look for waiters
    bool was_blocking;
    if (p.unlock_clears_unordered) {
        was_blocking = test_bit(EXTENT_BUFFER_BLOCKING, &eb->bflags);
        if (was_blocking) clear_bit(EXTENT_BUFFER_BLOCKING, &eb->bflags);
    } else {
        was_blocking = test_and_clear_bit(EXTENT_BUFFER_BLOCKING, &eb->bflags);
    }
    if (!was_blocking) spin_unlock(&eb->lock);
    if (p.unlock_wakes && waitqueue_active(&eb->lock_wq)) wake_up(&eb->lock_wq);
}

// --- kernel/mutex.c with the second patch: trylock, then spin while the owner runs ---

int mutex_tryspin(struct mutex* lock, const Sizes& s) {
    if (mutex_trylock(lock)) return 1;
    for (int i = 0; i < s.spins; i++) {
        cpu_relax();
        if (mutex_trylock(lock)) return 1;
    }
    return 0;
}

// --- fs/btrfs/locking.h: the interface ctree.c calls, over whichever lock the policy has ---

struct locking {
    const TreeLockPolicy& p;
    const Sizes& s;

    void owned(extent_buffer* eb) {
        check(eb->lock_owner == nullptr, kOneOwner.c_str());
        eb->lock_owner = current();
    }

    void btrfs_tree_lock_nested(extent_buffer* eb, int subclass) {
        if (p.lock == TreeLockPolicy::Lock::spin_block)
            spin_block_lock(eb, subclass, s);
        else
            mutex_lock_nested(&eb->mutex, subclass);
        owned(eb);
    }
    void btrfs_tree_lock(extent_buffer* eb) { btrfs_tree_lock_nested(eb, 0); }

    int btrfs_try_spin_lock(extent_buffer* eb) {
        int ret = 0;
        switch (p.lock) {
        case TreeLockPolicy::Lock::spin_block:
            ret = spin_block_try_spin_lock(eb, s);
            break;
        case TreeLockPolicy::Lock::mutex:
            ret = mutex_trylock(&eb->mutex);
            break;
        case TreeLockPolicy::Lock::mutex_tryspin:
            ret = mutex_tryspin(&eb->mutex, s);
            break;
        }
        if (ret) owned(eb);
        return ret;
    }

    void btrfs_set_lock_blocking(extent_buffer* eb) {
        if (p.lock != TreeLockPolicy::Lock::spin_block) return;
        forget_reads reads;
        if (!test_bit(EXTENT_BUFFER_BLOCKING, &eb->bflags)) {
            set_bit(EXTENT_BUFFER_BLOCKING, &eb->bflags);
            spin_unlock(&eb->lock);
        }
    }

    void btrfs_tree_unlock(extent_buffer* eb) {
        eb->lock_owner = nullptr;
        if (p.lock == TreeLockPolicy::Lock::spin_block)
            spin_block_unlock(eb, p);
        else
            mutex_unlock(&eb->mutex);
    }
};

// --- fs/btrfs/ctree.c ---

// COW allocates and may read blocks: it may sleep.
void btrfs_cow_block(extent_buffer* eb) {
    might_sleep("btrfs_cow_block");
    WRITE_ONCE(eb->contents, eb->contents.peek() + 1);
}

void balance_level(btrfs_tree* t, locking& l) {
    // btrfs_search_slot() has the parent and the middle node locked and the path blocking.
    l.btrfs_tree_lock(&t->parent);
    l.btrfs_set_lock_blocking(&t->parent);
    l.btrfs_tree_lock(&t->mid);
    l.btrfs_set_lock_blocking(&t->mid);

    l.btrfs_tree_lock_nested(&t->left, 1);
    if (l.p.cow_before_blocking) btrfs_cow_block(&t->left);
    l.btrfs_set_lock_blocking(&t->left);
    btrfs_cow_block(&t->left);

    l.btrfs_tree_lock_nested(&t->right, 2);
    l.btrfs_set_lock_blocking(&t->right);
    btrfs_cow_block(&t->right);

    l.btrfs_tree_unlock(&t->right);
    l.btrfs_tree_unlock(&t->left);
    l.btrfs_tree_unlock(&t->mid);
    l.btrfs_tree_unlock(&t->parent);
}

void push_into(extent_buffer* sibling, int subclass, locking& l) {
    l.btrfs_tree_lock_nested(sibling, subclass);
    l.btrfs_set_lock_blocking(sibling);
    WRITE_ONCE(sibling->contents, sibling->contents.peek() + 1);
}

void push_nodes_for_insert(btrfs_tree* t, locking& l) {
    l.btrfs_tree_lock(&t->parent);
    l.btrfs_set_lock_blocking(&t->parent);
    l.btrfs_tree_lock(&t->mid);
    l.btrfs_set_lock_blocking(&t->mid);
    if (l.p.right_before_left) {
        // The broken path keeps right locked while it goes for left.
        push_into(&t->right, 2, l);
        push_into(&t->left, 1, l);
        l.btrfs_tree_unlock(&t->left);
        l.btrfs_tree_unlock(&t->right);
    } else {
        push_into(&t->left, 1, l);
        l.btrfs_tree_unlock(&t->left);
        push_into(&t->right, 1, l);
        l.btrfs_tree_unlock(&t->right);
    }
    l.btrfs_tree_unlock(&t->mid);
    l.btrfs_tree_unlock(&t->parent);
}

// btrfs_search_slot() for reading: lock the parent, take the child with a try-spin and fall
// back to sleeping for it, release the parent, read the child.
void search_slot(btrfs_tree* t, extent_buffer* child, locking& l) {
    l.btrfs_tree_lock(&t->parent);
    if (!l.btrfs_try_spin_lock(child)) {
        l.btrfs_set_lock_blocking(&t->parent);
        l.btrfs_tree_lock(child);
    }
    l.btrfs_tree_unlock(&t->parent);
    (void)READ_ONCE(child->contents);
    l.btrfs_tree_unlock(child);
}

void setup(std::size_t variant, const ParameterValues& values) {
    const TreeLockPolicy& p = variants()[variant].policy;
    btrfs_tree& t = model_state<btrfs_tree>();
    for (const extent_buffer* eb : {&t.parent, &t.left, &t.mid, &t.right})
        plain_state(eb->lock_owner);
    const Sizes& s = model_state<Sizes>(Sizes{values[3]});
    locking& l = model_state<locking>(locking{p, s});
    for (int i = 0; i < values[0]; ++i)
        spawn("balance" + std::to_string(i), [&t, &l] {
            op balance("balance");
            balance_level(&t, l);
        });
    for (int i = 0; i < values[1]; ++i)
        spawn("push" + std::to_string(i), [&t, &l] {
            op push("push");
            push_nodes_for_insert(&t, l);
        });
    for (int i = 0; i < values[2]; ++i)
        spawn("reader" + std::to_string(i), [&t, &l] {
            op search("search");
            search_slot(&t, &t.mid, l);
        });
}

} // namespace

Protocol tree_lock() {
    // The custom lock's spin-then-sleep paths take ~40 steps per task, whose interleavings
    // plain DFS cannot cover in minutes: DPOR checks every class of them, to the end (the
    // longest execution at the default sizes is 78 steps), in under a second.
    return Protocol{
        .name = "tree-lock",
        .summary = "btrfs extent-buffer locks, spinning then blocking, vs a plain mutex",
        .variants = variants_of(variants()),
        .default_variant = 0,
        .parameters =
            {
                {"balancers", "tasks running balance_level()", 1, 0, 4},
                {"pushers", "tasks running push_nodes_for_insert()", 1, 0, 4},
                {"readers", "tasks running a read-only btrfs_search_slot()", 0, 0, 4},
                {"spins", "iterations of btrfs_spin_on_block() / mutex_tryspin()", 1, 0, 8},
            },
        .default_depth = 100,
        // The custom lock's spin-then-sleep paths are beyond dfs at these sizes (docs/dpor.md):
        // its waits are sampled, weighed by how likely a uniformly random schedule is.
        .comparison =
            Comparison{
                .before = "spin-block", .after = "mutex", .strategy = "random", .iterations = 2000},
        // Both tasks lock all four extent buffers: DPOR runs 40,694 classes of interleavings of
        // the custom lock where they reach 1,518 states (483 executions storing them).
        .check_stores_states = true,
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(tree_lock);

} // namespace lockcheck::protocols
