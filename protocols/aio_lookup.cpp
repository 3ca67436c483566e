// aio-lookup: fs/aio.c's lookup_ioctx() finds an ioctx on mm->ioctx_list under rcu_read_lock()
// and takes a reference to it while io_destroy() may be dropping the last one (commit
// 3bd9a5d734c7 "aio: fix rcu ioctx lookup", Nick Piggin; "aio-dio-invalidate-failure GPFs in
// aio_put_req from io_submit. lookup_ioctx doesn't implement the rcu lookup pattern properly.
// rcu_read_lock does not prevent refcount going to zero, so we might take a refcount on a zero
// count ioctx").
//
// What the kernel does (fs/aio.c at the fix):
// - ioctx_alloc() sets ctx->users to 1, the reference of mm->ioctx_list, and adds the ioctx to
//   the list with hlist_add_head_rcu() under mm->ioctx_lock (here before the tasks start).
// - lookup_ioctx() walks the list with hlist_for_each_entry_rcu() inside rcu_read_lock(); for
//   the ioctx with the id, not dead, it takes a reference: before the fix with get_ioctx()
//   (BUG_ON(atomic_read(&users) <= 0); atomic_inc()), with the fix with try_get_ioctx()
//   (atomic_inc_not_zero()), which fails once the count reached 0.
// - io_destroy(), with the reference sys_io_destroy()'s lookup took, marks the ioctx dead and
//   unlinks it under mm->ioctx_lock, drops the list's reference and its own; put_ioctx()'s last
//   put calls __put_ioctx(), which frees the ioctx after a grace period (call_rcu(),
//   ctx_rcu_free()).
// - io_submit() looks the ioctx up and puts its reference when done.
// ctx->dead is a plain int read without the lock in the 2011 code; here READ_ONCE()/WRITE_ONCE(),
// so that the race detector does not report what KCSAN would today before the bug.
// The variants: the fix, the historical get_ioctx(), and the free a reviewer might think the
// reference count makes safe without a grace period.
#include <array>
#include <string>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::protocols {

namespace {

enum class Get { try_get_ioctx, get_ioctx };

struct AioPolicy {
    Get get = Get::try_get_ioctx;
    bool call_rcu = true; // __put_ioctx() frees after a grace period, else at once
};

struct AioVariant {
    Variant variant;
    AioPolicy policy;
};

const std::array<AioVariant, 3>& variants() {
    static const std::array<AioVariant, 3> table = {{
        {{"try-get", "the fix: try_get_ioctx(), atomic_inc_not_zero() of ctx->users",
          Expectation::verified()},
         {Get::try_get_ioctx, true}},
        {{"get", "before the fix: get_ioctx() revives an ioctx whose count reached 0",
          Expectation::violation(ViolationKind::check_failed,
                                 "BUG_ON(atomic_read(&kioctx->users) <= 0)")},
         {Get::get_ioctx, true}},
        {{"free-at-once", "the fix's lookup, but __put_ioctx() frees without call_rcu()",
          Expectation::violation(ViolationKind::use_after_free, "use-after-free of ctx")},
         {Get::try_get_ioctx, false}},
    }};
    return table;
}

// struct kioctx, what the lookup and its teardown touch.
struct kioctx {
    explicit kioctx(const std::string& name)
        : users(name + "->users", 1), dead(name + "->dead"), list(name + "->list") {}
    atomic_t users;
    shared<int> dead;
    unsigned long user_id = 0; // set before the ioctx is published, never written again
    hlist_node list;
    struct rcu_head rcu_head;
};

struct mm_struct {
    spinlock_t ioctx_lock{"mm->ioctx_lock"};
    hlist_head ioctx_list{"mm->ioctx_list"};
};

constexpr unsigned long kCtxId = 1;

void ctx_rcu_free(rcu_head* head) {
    kioctx* ctx = container_of(head, &kioctx::rcu_head);
    kfree(ctx); // kmem_cache_free(kioctx_cachep, ctx)
}

void __put_ioctx(kioctx* ctx, const AioPolicy& p) {
    if (p.call_rcu)
        call_rcu(&ctx->rcu_head, &ctx_rcu_free);
    else
        kfree(ctx);
}

void get_ioctx(kioctx* kioctx) {
    check(atomic_read(&kioctx->users) > 0, "BUG_ON(atomic_read(&kioctx->users) <= 0)");
    atomic_inc(&kioctx->users);
}

bool try_get_ioctx(kioctx* kioctx) {
    return atomic_inc_not_zero(&kioctx->users);
}

void put_ioctx(kioctx* kioctx, const AioPolicy& p) {
    check(atomic_read(&kioctx->users) > 0, "BUG_ON(atomic_read(&kioctx->users) <= 0)");
    if (atomic_dec_and_test(&kioctx->users)) __put_ioctx(kioctx, p);
}

// sys_io_setup()'s ioctx_alloc(), which returned before the race: the list's reference, then
// the ioctx on the list (at set-up, the list the model starts with).
kioctx* ioctx_alloc(mm_struct* mm) {
    kioctx* ctx = kzalloc<kioctx>("ctx", "ctx");
    ctx->user_id = kCtxId; // aio_setup_ring()
    hlist_add_head_rcu(&ctx->list, &mm->ioctx_list);
    return ctx;
}

kioctx* lookup_ioctx(mm_struct* mm, unsigned long ctx_id, const AioPolicy& p) {
    kioctx *ctx, *ret = nullptr;
    rcu_read_lock();
    hlist_for_each_entry_rcu(ctx, &mm->ioctx_list, list) {
        if (p.get == Get::get_ioctx) {
            if (ctx->user_id == ctx_id && !READ_ONCE(ctx->dead)) {
                get_ioctx(ctx);
                ret = ctx;
                break;
            }
        } else if (ctx->user_id == ctx_id && !READ_ONCE(ctx->dead) && try_get_ioctx(ctx)) {
            ret = ctx;
            break;
        }
    }
    rcu_read_unlock();
    return ret;
}

void io_destroy(mm_struct* mm, kioctx* ioctx, const AioPolicy& p) {
    spin_lock(&mm->ioctx_lock);
    const int was_dead = READ_ONCE(ioctx->dead);
    WRITE_ONCE(ioctx->dead, 1);
    hlist_del_rcu(&ioctx->list);
    spin_unlock(&mm->ioctx_lock);
    if (!was_dead) put_ioctx(ioctx, p); // twice for the list
    put_ioctx(ioctx, p);                // once for the lookup
}

void setup(std::size_t variant, const ParameterValues& values) {
    mm_struct& mm = model_state<mm_struct>();
    const AioPolicy& p = variants()[variant].policy;
    ioctx_alloc(&mm);
    spawn("io_destroy", [&mm, &p] {
        op destroy("io_destroy"); // what each system call waits for, for `lockcheck compare`
        if (kioctx* ioctx = lookup_ioctx(&mm, kCtxId, p)) io_destroy(&mm, ioctx, p);
    });
    // --submitters: the lookups that race with io_destroy(), each a reader of the list whose
    // ioctx the grace period keeps (docs/PERFORMANCE.md measures what it costs).
    for (int i = 0; i < values[0]; ++i)
        spawn(i == 0 ? std::string("io_submit") : "io_submit" + std::to_string(i + 1), [&mm, &p] {
            op submit("io_submit");
            if (kioctx* ctx = lookup_ioctx(&mm, kCtxId, p)) put_ioctx(ctx, p);
        });
}

} // namespace

Protocol aio_lookup() {
    return Protocol{
        .name = "aio-lookup",
        .summary = "fs/aio.c's RCU lookup of an ioctx takes a reference while io_destroy() "
                   "drops the last one",
        .variants = variants_of(variants()),
        .default_variant = 0, // try-get: the fix
        .parameters = {{"submitters", "io_submit() calls looking the ioctx up", 1, 1, 3}},
        .comparison = Comparison{.before = "get", .after = "try-get"},
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(aio_lookup);

} // namespace lockcheck::protocols
