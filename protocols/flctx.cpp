// flctx: fs/locks.c allocates an inode's file_lock_context on the first lock request and
// publishes it in inode->i_flctx with cmpxchg(), for every later request to find without a lock
// (commit 128a37852234 "fs: fix data races on inode->i_flctx", Dmitry Vyukov, 2015: "cmpxchg()
// is a release operation which is correct. But it uses a plain load to load i_flctx. This is
// incorrect. Subsequent loads from i_flctx can hoist above the load of i_flctx pointer itself
// and observe uninitialized garbage there ... The data race was found with KernelThreadSanitizer
// (KTSAN)").
//
// What the kernel does (fs/locks.c at the fix, v4.4):
// - locks_get_lock_context(inode, type) loads i_flctx with smp_load_acquire() ("paired with
//   cmpxchg() below"); if it is NULL and the request is not F_UNLCK it allocates a context
//   (kmem_cache_alloc(), not zeroed), initialises its flc_lock and its three lists, and
//   publishes it with cmpxchg(&inode->i_flctx, NULL, ctx). The loser of two such allocations
//   frees its own context and loads the winner's, again with smp_load_acquire().
// - posix_lock_inode() (fcntl(F_SETLK)) gets the context, then adds its lock to flc_posix under
//   flc_lock; posix_test_lock() (fcntl(F_GETLK)) loads i_flctx with smp_load_acquire() and,
//   unless it is NULL or flc_posix empty, looks for a conflicting lock under flc_lock.
// - Before the fix (0429c2b5c1c4 "locks: use cmpxchg to assign i_flctx pointer"), both read
//   inode->i_flctx with plain loads: locks_get_lock_context() tested it and returned it again.
// The variants: the fix, the code before it, and the loser of the cmpxchg returning the context
// it just freed instead of loading the winner's, the slip a reviewer would look for in a
// conversion to a local ctx.
//
// Abstracted away: the file_lock's owner, range and type (every lock is a write lock on its own
// range: they never conflict, and posix_test_lock() only finds whether one is there), the
// blocked-lock machinery, flc_flock and flc_lease, and freeing the context at inode eviction.
#include <array>
#include <string>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::protocols {

namespace {

enum class Load { acquire, plain };

struct FlctxPolicy {
    Load load = Load::acquire;
    bool reload_after_lost_race = true; // the cmpxchg's loser loads the winner's context
};

struct FlctxVariant {
    Variant variant;
    FlctxPolicy policy;
};

const std::array<FlctxVariant, 3>& variants() {
    static const std::array<FlctxVariant, 3> table = {{
        {{"acquire", "the fix: smp_load_acquire() of inode->i_flctx, paired with cmpxchg()",
          Expectation::verified()},
         {Load::acquire, true}},
        {{"plain-load", "before the fix: plain loads of inode->i_flctx beside the cmpxchg()",
          Expectation::violation(ViolationKind::data_race, "data race on inode->i_flctx")},
         {Load::plain, true}},
        {{"no-reload", "the fix, but the loser of the cmpxchg() frees its context and returns it",
          Expectation::violation(ViolationKind::use_after_free, "use-after-free of ctx")},
         {Load::acquire, false}},
    }};
    return table;
}

constexpr int F_WRLCK = 1;
constexpr int F_UNLCK = 2;

// struct file_lock_context (include/linux/fs.h at the fix): the flock and lease lists left out.
struct file_lock_context {
    explicit file_lock_context(const std::string& name)
        : flc_lock(name + "->flc_lock"), flc_posix(name + "->flc_posix") {}
    spinlock_t flc_lock;
    list_head flc_posix;
};

struct file_lock {
    explicit file_lock(const std::string& name) : fl_list(name + ".fl_list") {}
    list_head fl_list;
};

// struct inode, what fs/locks.c reaches of it.
struct inode {
    shared<file_lock_context*> i_flctx{"inode->i_flctx"};
};

file_lock_context* load_flctx(inode* inode, const FlctxPolicy& p) {
    if (p.load == Load::acquire) return smp_load_acquire(&inode->i_flctx);
    return inode->i_flctx.read();
}

file_lock_context* locks_get_lock_context(inode* inode, int type, const FlctxPolicy& p) {
    /* paired with cmpxchg() below */
    file_lock_context* ctx = load_flctx(inode, p);
    if (ctx || type == F_UNLCK) return ctx;

    // kmem_cache_alloc(flctx_cache, GFP_KERNEL), then spin_lock_init(&ctx->flc_lock) and
    // INIT_LIST_HEAD(&ctx->flc_posix)
    ctx = kmalloc<file_lock_context>("ctx", "ctx");
    INIT_LIST_HEAD(&ctx->flc_posix);

    // Assign the pointer if it's not already assigned. If it is, then free the context we just
    // allocated.
    if (cmpxchg(&inode->i_flctx, static_cast<file_lock_context*>(nullptr), ctx)) {
        kfree(ctx); // kmem_cache_free(flctx_cache, ctx)
        if (p.reload_after_lost_race) ctx = load_flctx(inode, p);
    }
    return ctx;
}

// fcntl(F_SETLK)'s posix_lock_inode(), for a lock that conflicts with none.
void posix_lock_inode(inode* inode, file_lock* request, const FlctxPolicy& p) {
    file_lock_context* ctx = locks_get_lock_context(inode, F_WRLCK, p);
    spin_lock(&ctx->flc_lock);
    list_add_tail(&request->fl_list, &ctx->flc_posix); // locks_insert_lock_ctx()
    spin_unlock(&ctx->flc_lock);
}

// fcntl(F_GETLK)'s posix_test_lock(): whether a lock is there (every lock conflicts with the
// tested range here).
bool posix_test_lock(inode* inode, const FlctxPolicy& p) {
    file_lock_context* ctx = load_flctx(inode, p);
    if (!ctx || list_empty(&ctx->flc_posix)) return false; // fl->fl_type = F_UNLCK
    spin_lock(&ctx->flc_lock);
    const bool found = !list_empty(&ctx->flc_posix);
    spin_unlock(&ctx->flc_lock);
    return found;
}

struct files {
    inode ino;
    file_lock first{"fl1"};
    file_lock second{"fl2"};
};

void setup(std::size_t variant, const ParameterValues&) {
    files& f = model_state<files>();
    const FlctxPolicy& p = variants()[variant].policy;
    // Each task one system call, whose waits `lockcheck compare` measures.
    spawn("setlk1", [&f, &p] {
        op setlk("F_SETLK");
        posix_lock_inode(&f.ino, &f.first, p);
    });
    spawn("setlk2", [&f, &p] {
        op setlk("F_SETLK");
        posix_lock_inode(&f.ino, &f.second, p);
    });
    spawn("getlk", [&f, &p] {
        op getlk("F_GETLK");
        posix_test_lock(&f.ino, p);
    });
}

} // namespace

Protocol flctx() {
    return Protocol{
        .name = "flctx",
        .summary = "fs/locks.c publishes an inode's file_lock_context with cmpxchg() to "
                   "lockless lookups",
        .variants = variants_of(variants()),
        .default_variant = 0, // acquire: the fix
        .comparison = Comparison{.before = "plain-load", .after = "acquire"},
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(flctx);

} // namespace lockcheck::protocols
