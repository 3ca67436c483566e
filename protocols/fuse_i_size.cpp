// fuse-i-size: fuse sets i_size from a server's reply without i_mutex, and on a 32-bit SMP
// kernel an unserialized i_size_write() loses an update of i_size_seqcount, leaving every later
// i_size_read() spinning (commit 9ffbb9162312 "[PATCH] fuse: fix hang on SMP", Miklos Szeredi,
// 2006: "Fuse didn't always call i_size_write() with i_mutex held which caused rare hangs on
// SMP/32bit ... The simplest solution is to protect i_size_write() with the per-connection
// spinlock").
//
// What the kernel does (fs/fuse/inode.c, file.c, include/linux/fs.h, v2.6.17 with the fix):
// - fuse_change_attributes() stores the attributes of a GETATTR or LOOKUP reply in the inode,
//   with no inode lock: it compares i_size_read() with attr->size (to invalidate the page
//   cache, left out here) and calls i_size_write(inode, attr->size).
// - fuse_commit_write(), under i_mutex (generic_file_write() holds it), extends the file:
//   if (pos > i_size_read(inode)) i_size_write(inode, pos).
// - i_size_write() on 32-bit SMP is a write section of i_size_seqcount whose increments are
//   plain: two writers at once can leave the count odd, and i_size_read() retries for ever.
// - The fix takes fc->lock around both i_size_write()s (the commit's other call sites, the
//   truncate in fuse_do_setattr() and fuse_init_inode(), are not modelled).
// The variants a reviewer would try: i_mutex in fuse_change_attributes() instead, which the
// commit message considers (correct, but it would "require some restructuring"), and the
// unfixed code on a 64-bit kernel, where i_size is one word and no lock is needed.
//
// Abstracted away: the request round trip that produces the reply (the GETATTR is already
// answered), the page cache, the other attributes, and the sizes, which are 4 GiB + 1 (a write
// past 4 GiB, whose high word changes) and 2 (the server's).
#include <array>
#include <string>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::protocols {

namespace {

// What serializes fuse_change_attributes()'s i_size_write() against fuse_commit_write()'s.
enum class Serialize { fc_lock, none, i_mutex };
struct SizePolicy {
    Serialize attrs = Serialize::fc_lock;
    int bits_per_long = 32;
};

struct SizeVariant {
    Variant variant;
    SizePolicy policy;
};

const std::array<SizeVariant, 4>& variants() {
    static const std::array<SizeVariant, 4> table = {{
        {{"fc-lock", "the fix: every i_size_write() under the connection's fc->lock",
          Expectation::verified()},
         {Serialize::fc_lock, 32}},
        {{"unlocked", "before the fix: fuse_change_attributes() calls i_size_write() with no lock",
          Expectation::violation(ViolationKind::final_check,
                                 "i_size_seqcount is even once every i_size_write() is done")},
         {Serialize::none, 32}},
        {{"i-mutex", "fuse_change_attributes() takes i_mutex around i_size_write() instead",
          Expectation::verified()},
         {Serialize::i_mutex, 32}},
        {{"unlocked-64bit", "before the fix, on a 64-bit kernel: i_size is one word",
          Expectation::verified()},
         {Serialize::none, 64}},
    }};
    return table;
}

constexpr long long kWritePos = (1LL << 32) + 1; // a write that ends past 4 GiB
constexpr long long kAttrSize = 2;               // the size in the server's reply

// fs/fuse/fuse_i.h: the connection, and the inode (struct fuse_inode's vfs_inode).
struct fuse_conn {
    spinlock_t lock{"fc->lock"};
};
struct fuse_inode {
    fuse_inode(int bits_per_long, const SizePolicy& p)
        : inode("inode", 0, bits_per_long), policy(p) {}
    struct inode inode;
    fuse_conn fc;
    const SizePolicy& policy;
};

// --- fs/fuse/inode.c ---

void fuse_change_attributes(fuse_inode* fi, long long attr_size) {
    struct inode* inode = &fi->inode;
    if (i_size_read(inode) != attr_size) {
        // invalidate_inode_pages(inode->i_mapping);
    }
    if (fi->policy.attrs == Serialize::fc_lock) spin_lock(&fi->fc.lock);
    if (fi->policy.attrs == Serialize::i_mutex) inode_lock(inode);
    i_size_write(inode, attr_size);
    if (fi->policy.attrs == Serialize::i_mutex) inode_unlock(inode);
    if (fi->policy.attrs == Serialize::fc_lock) spin_unlock(&fi->fc.lock);
}

// --- fs/fuse/file.c: fuse_commit_write(), its caller holding i_mutex ---

void fuse_commit_write(fuse_inode* fi, long long pos) {
    struct inode* inode = &fi->inode;
    const bool fc_lock = fi->policy.attrs == Serialize::fc_lock;
    if (fc_lock) spin_lock(&fi->fc.lock);
    if (pos > i_size_read(inode)) i_size_write(inode, pos);
    if (fc_lock) spin_unlock(&fi->fc.lock);
}

void setup(std::size_t variant, const ParameterValues& values) {
    const SizePolicy& p = variants()[variant].policy;
    fuse_inode& fi = model_state<fuse_inode>(p.bits_per_long, p);
    // SMP: the reply is handled on another CPU than the write (on one CPU, i_size_write()'s
    // preempt_disable() keeps the two sections apart).
    set_nr_cpus(2);
    spawn("write", [&fi] {
        op write("write");
        inode_lock(&fi.inode); // generic_file_write()
        fuse_commit_write(&fi, kWritePos);
        inode_unlock(&fi.inode);
    });
    spawn_on(1, "getattr", [&fi] {
        op getattr("getattr");
        fuse_change_attributes(&fi, kAttrSize);
    });
    for (int i = 0; i < values[0]; ++i)
        spawn("stat" + std::to_string(i), [&fi] {
            op stat("stat");
            const long long size = i_size_read(&fi.inode);
            check(size == 0 || size == kWritePos || size == kAttrSize,
                  "i_size_read() returns a size some i_size_write() wrote");
        });
    // Whatever the writers left, the next i_size_read() must not spin for ever.
    final_check("i_size_seqcount is even once every i_size_write() is done",
                [&fi] { return (fi.inode.i_size_seqcount.sequence.peek() & 1) == 0; });
}

} // namespace

Protocol fuse_i_size() {
    return Protocol{
        .name = "fuse-i-size",
        .summary = "fuse's i_size_write() from a server's reply, serialized with a write's by "
                   "fc->lock for 32-bit i_size_read()",
        .variants = variants_of(variants()),
        .default_variant = 0, // fc-lock: the fix
        // The writers read i_size too; each stat() more multiplies the executions by some
        // thousand (--readers 1: millions), as it retries while either writes.
        .parameters = {{"readers", "tasks calling i_size_read() (stat)", 0, 0, 2}},
        .comparison = Comparison{.before = "unlocked", .after = "fc-lock"},
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(fuse_i_size);

} // namespace lockcheck::protocols
