// iomap-uptodate: bio completions of one page's blocks, in hard and soft interrupt context on
// two CPUs, mark the page uptodate (commit 1cea335d1db1 "iomap: fix sub-page uptodate
// handling", Christoph Hellwig, December 2019, fixing 9dc55f1389f9 "iomap: add support for
// sub-pagesize buffered I/O without buffer heads"; reported by Jan Stancek on XFS with blocks
// smaller than the page).
//
// What the kernel does (fs/iomap/buffered-io.c and block/blk-softirq.c, v5.4 with the fix):
// - A page read by iomap with blocks smaller than the page carries an iomap_page: a per-block
//   uptodate bitmap, a read_count of the blocks in flight, and since the fix uptodate_lock.
//   Each block's bio completes on its own (blocks that are not contiguous on disk go in
//   different bios, which different hardware queues complete on different CPUs).
// - iomap_read_end_io() -> iomap_read_page_end_io(): iomap_set_range_uptodate() sets the
//   block's bit and, walking the whole bitmap, SetPageUptodate() if every bit is set; then
//   iomap_read_finish(): atomic_dec_and_test(&iop->read_count) and the last one
//   unlock_page()s.
// - Before the fix the walk ran with no lock: two completions that each set their bit and test
//   the other's can both see the other's clear, and nobody marks the page uptodate. The
//   reader, woken by unlock_page(), finds it not uptodate, reads it again (every block is
//   uptodate in the bitmap, so no I/O is issued) and returns -EIO. The fix takes
//   uptodate_lock around the walk with spin_lock_irqsave(): completions run in hard or soft
//   interrupt context, and iomap_set_range_uptodate() is called from process context too.
// - blk-mq completes a request in the queue's hardirq handler, or hands it to BLOCK_SOFTIRQ:
//   blk_mq_complete_request() queues it on the CPU's blk_cpu_done list and raises the softirq;
//   blk_done_softirq() splices the list with interrupts off and completes each request.
// The variants a reviewer would try instead of irqsave: a plain spin_lock() and
// spin_lock_bh(): a completion in BLOCK_SOFTIRQ that holds the lock is interrupted, on the
// same CPU, by another queue's hardirq completion of the same page, which spins for ever.
//
// Abstracted away: the bio's bvec walk (one block per bio), errors (PageError), the page
// cache lookup and readahead (the bios are in flight when the model starts, the page locked
// by the read), write_count and the write path, the retry readpage's own walk (its -EIO is
// what the reader's check stands for), NVMe's own locks.
#include <array>
#include <memory>
#include <string>

#include <lockcheck/lockcheck.hpp>

#include "blk_mq.hpp"

namespace lockcheck::protocols {

namespace {

struct UptodatePolicy {
    enum class Lock { irqsave, none, plain, bh };
    Lock lock = Lock::irqsave;
};

struct UptodateVariant {
    Variant variant;
    UptodatePolicy policy;
};

const std::string kReadSucceeds = "a read whose blocks all completed finds its page uptodate "
                                  "(else read() returns -EIO)";

const std::array<UptodateVariant, 4>& variants() {
    using L = UptodatePolicy::Lock;
    static const std::array<UptodateVariant, 4> table = {{
        {{"irqsave", "the fix: the bitmap walk under spin_lock_irqsave(&iop->uptodate_lock)",
          Expectation::verified()},
         {L::irqsave}},
        {{"unlocked", "before the fix: completions walk the bitmap with no lock",
          Expectation::violation(ViolationKind::check_failed, kReadSucceeds)},
         {L::none}},
        {{"spin-lock", "uptodate_lock taken with a plain spin_lock() in interrupt context",
          Expectation::violation(ViolationKind::lock_order, "inconsistent-lock-state")},
         {L::plain}},
        {{"spin-lock-bh", "uptodate_lock taken with spin_lock_bh(): hardirqs still come in",
          Expectation::violation(ViolationKind::lock_order, "inconsistent-lock-state")},
         {L::bh}},
    }};
    return table;
}

constexpr int PG_locked = 0;
constexpr int PG_uptodate = 3;
constexpr int kMaxBlocks = 4;

struct page {
    bitmap_word flags{"page->flags", 1UL << PG_locked}; // locked by the read
    wait_queue_head_t wait{"page_waitqueue"};
};

// include/linux/iomap.h
struct iomap_page {
    explicit iomap_page(int blocks) : read_count("iop->read_count", blocks) {}
    atomic_t read_count;
    spinlock_t uptodate_lock{"iop->uptodate_lock"};
    bitmap_word uptodate{"iop->uptodate"};
};

// A block's request.
struct block_request {
    explicit block_request(int block) : rq("rq" + std::to_string(block)), block(block) {}
    request rq;
    int block;
};

struct readpage {
    readpage(int blocks, const UptodatePolicy& p) : iop(blocks), blocks(blocks), policy(p) {
        for (int b = 0; b < blocks; ++b)
            rq[b] = std::make_unique<block_request>(b);
    }
    page pg;
    iomap_page iop;
    std::array<std::unique_ptr<block_request>, kMaxBlocks> rq;
    int blocks;
    const UptodatePolicy& policy;
};

thread_local readpage* the_read = nullptr; // for bi_end_io, which has only its request

// Where block b's hardware queue interrupts and how it completes: block 0 in BLOCK_SOFTIRQ on
// CPU 0, block 1 in the hardirq on CPU 1, block 2 in the hardirq on CPU 0, block 3 in
// BLOCK_SOFTIRQ on CPU 1.
int queue_cpu(int block) {
    return block % 2;
}
bool completes_in_softirq(int block) {
    return block == 0 || block == 3;
}

// --- fs/iomap/buffered-io.c ---

void lock_uptodate(iomap_page* iop, const UptodatePolicy& p, unsigned long& flags) {
    using L = UptodatePolicy::Lock;
    if (p.lock == L::irqsave) spin_lock_irqsave(&iop->uptodate_lock, flags);
    if (p.lock == L::plain) spin_lock(&iop->uptodate_lock);
    if (p.lock == L::bh) spin_lock_bh(&iop->uptodate_lock);
}

void unlock_uptodate(iomap_page* iop, const UptodatePolicy& p, unsigned long flags) {
    using L = UptodatePolicy::Lock;
    if (p.lock == L::irqsave) spin_unlock_irqrestore(&iop->uptodate_lock, flags);
    if (p.lock == L::plain) spin_unlock(&iop->uptodate_lock);
    if (p.lock == L::bh) spin_unlock_bh(&iop->uptodate_lock);
}

void iomap_iop_set_range_uptodate(readpage* r, int first, int last) {
    iomap_page* iop = &r->iop;
    bool uptodate = true;
    unsigned long flags = 0;
    lock_uptodate(iop, r->policy, flags);
    for (int i = 0; i < r->blocks; i++) {
        if (i >= first && i <= last)
            set_bit(i, &iop->uptodate);
        else if (!test_bit(i, &iop->uptodate))
            uptodate = false;
    }
    if (uptodate) set_bit(PG_uptodate, &r->pg.flags); // SetPageUptodate()
    unlock_uptodate(iop, r->policy, flags);
}

void unlock_page(page* page) {
    clear_bit(PG_locked, &page->flags);
    wake_up_all(&page->wait);
}

void iomap_read_finish(readpage* r) {
    if (atomic_dec_and_test(&r->iop.read_count)) unlock_page(&r->pg);
}

// iomap_read_end_io() of the bio that read one block.
void iomap_read_end_io(readpage* r, int block) {
    op end_io("end_io"); // what a completion waits for, for `lockcheck compare`
    iomap_iop_set_range_uptodate(r, block, block);
    iomap_read_finish(r);
}

// bi_end_io of the bio that read one block.
void iomap_read_bio_end_io(request* rq) {
    iomap_read_end_io(the_read, container_of(rq, &block_request::rq)->block);
}

// --- mm/filemap.c: generic_file_buffered_read() waits for the read it started ---

void reader(readpage* r) {
    op read("read");
    wait_event(r->pg.wait, !test_bit(PG_locked, &r->pg.flags));
    const bool uptodate = test_bit(PG_uptodate, &r->pg.flags);
    check(uptodate, kReadSucceeds.c_str());
}

void setup(std::size_t variant, const ParameterValues& values) {
    set_nr_cpus(2);
    readpage& r = model_state<readpage>(values[0], variants()[variant].policy);
    the_read = &r;
    blk_mq_init();
    static const std::array<const char*, kMaxBlocks> kQueues = {"nvme0q1", "nvme0q2", "nvme0q3",
                                                                "nvme0q4"};
    for (int b = 0; b < r.blocks; ++b) {
        request* rq = &r.rq[static_cast<std::size_t>(b)]->rq;
        rq->in_softirq = completes_in_softirq(b);
        rq->end_io = iomap_read_bio_end_io;
        const unsigned irq = 40 + static_cast<unsigned>(b);
        request_irq(irq, blk_mq_queue_irq, 0, kQueues[static_cast<std::size_t>(b)], rq);
        irq_fires(irq, queue_cpu(b));
    }
    spawn("reader", [&r] { reader(&r); });
}

} // namespace

Protocol iomap_uptodate() {
    return Protocol{
        .name = "iomap-uptodate",
        .summary = "iomap read completions in hard and soft interrupt context mark a page uptodate",
        .variants = variants_of(variants()),
        .default_variant = 0, // irqsave: the fix
        .parameters = {{"blocks", "blocks of the page, each read by its own bio", 3, 2,
                        kMaxBlocks}},
        // How long completions wait for uptodate_lock: dfs cannot run every interleaving of
        // three interrupt contexts on two CPUs, so a sample of random schedules weighs them.
        .comparison = Comparison{.before = "unlocked", .after = "irqsave", .strategy = "random"},
        // Every completion takes the same page's state lock: irqsave's 5,851 DPOR executions are
        // 1,286 storing the states.
        .check_stores_states = true,
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(iomap_uptodate);

} // namespace lockcheck::protocols
