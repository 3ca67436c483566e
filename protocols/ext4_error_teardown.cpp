// ext4-error-teardown: a failed mount tears down the error-reporting work item and timer
// (commit 2a4ae3bcdf05 "ext4: fix timer use-after-free on failed mount", Jan Kara, March 2021,
// reported by syzbot; fixing 2d01ddc86606 "ext4: save error info to sb through journal if
// available").
//
// What the kernel does (fs/ext4/super.c, v5.11 with the fix):
// - An error found while mounting (ext4_handle_error() on a corrupted filesystem) stashes the
//   error in the sb_info (s_add_error_count) and, as the journal may not be safe to use from
//   where the error is found, schedule_work(&sbi->s_error_work).
// - flush_stashed_error_work() -> ext4_update_super(): on the filesystem's first error
//   (es->s_error_count was 0) it arms the daily reminder, mod_timer(&sbi->s_err_report, jiffies
//   + 24*60*60*HZ), then adds the stashed count to the super block.
// - print_daily_error_info(), the timer's callback (softirq), reads the error count and re-arms
//   itself for the next day.
// - The failed mount's unwinding (failed_mount3) stopped the timer, del_timer_sync(), and then
//   flushed the work, flush_work(): a work that ran in between armed the timer again, and the
//   sb_info was freed with it armed: the timer's callback ran on freed memory. The fix flushes
//   the work first and only then deletes the timer.
// The variants a reviewer would try: only deleting the timer, and cancel_work() (which does not
// wait for a work that already runs) before the timer's deletion.
//
// Abstracted away: the super block's buffer and journal (the error count is a field), the
// failing mount's other steps (the error is found at once), the mmp thread, ratelimits. The
// error count's accesses are marked: the kernel's daily report reads it plainly while the work
// may update it, a data race KCSAN would report that is not this patch's subject.
#include <array>
#include <string>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::protocols {

namespace {

struct TeardownPolicy {
    enum class Stop { flush_then_del, del_then_flush, del_only, cancel_then_del };
    Stop stop = Stop::flush_then_del;
};

struct TeardownVariant {
    Variant variant;
    TeardownPolicy policy;
};

const std::array<TeardownVariant, 4>& variants() {
    using S = TeardownPolicy::Stop;
    static const std::array<TeardownVariant, 4> table = {{
        {{"flush-then-del",
          "the fix: flush_work(&s_error_work), then del_timer_sync(&s_err_report)",
          Expectation::verified()},
         {S::flush_then_del}},
        {{"del-then-flush", "before the fix: the timer is deleted first, and the work re-arms it",
          Expectation::violation(ViolationKind::use_after_free, "use-after-free of sbi")},
         {S::del_then_flush}},
        {{"del-only", "the work is not waited for at all",
          Expectation::violation(ViolationKind::use_after_free, "use-after-free of sbi")},
         {S::del_only}},
        {{"cancel-then-del", "cancel_work(), which does not wait for a running work, first",
          Expectation::violation(ViolationKind::use_after_free, "use-after-free of sbi")},
         {S::cancel_then_del}},
    }};
    return table;
}

// fs/ext4/ext4.h: what of struct ext4_sb_info and the super block this needs.
struct ext4_sb_info {
    work_struct s_error_work{"sbi->s_error_work"};
    timer_list s_err_report{"sbi->s_err_report"};
    shared<int> s_add_error_count{"sbi->s_add_error_count"};
    shared<int> s_error_count{"es->s_error_count"}; // in the on-disk super block
};

constexpr unsigned long kDay = 24 * 60 * 60 * HZ;

// --- fs/ext4/super.c ---

void print_daily_error_info(timer_list* t) {
    ext4_sb_info* sbi = nullptr;
    sbi = from_timer(sbi, t, &ext4_sb_info::s_err_report);
    if (READ_ONCE(sbi->s_error_count)) {
        // ext4_msg(sb, KERN_NOTICE, "error count since last fsck: %u", ...)
    }
    mod_timer(&sbi->s_err_report, jiffies + kDay);
}

void ext4_update_super(ext4_sb_info* sbi) {
    const int add = sbi->s_add_error_count.read();
    if (add > 0) {
        // First time an error happened? Report it daily.
        const int count = READ_ONCE(sbi->s_error_count);
        if (!count) mod_timer(&sbi->s_err_report, jiffies + kDay);
        WRITE_ONCE(sbi->s_error_count, count + add);
        sbi->s_add_error_count.write(0);
    }
}

void flush_stashed_error_work(work_struct* work) {
    ext4_sb_info* sbi = container_of(work, &ext4_sb_info::s_error_work);
    ext4_update_super(sbi);
}

void ext4_handle_error(ext4_sb_info* sbi) {
    sbi->s_add_error_count.write(sbi->s_add_error_count.read() + 1); // save_error_info()
    schedule_work(&sbi->s_error_work);
}

// ext4_fill_super() finds the filesystem corrupted and unwinds (failed_mount3).
void ext4_fill_super(const TeardownPolicy& p) {
    using S = TeardownPolicy::Stop;
    ext4_sb_info* sbi = kzalloc<ext4_sb_info>("sbi");
    INIT_WORK(&sbi->s_error_work, flush_stashed_error_work);
    timer_setup(&sbi->s_err_report, print_daily_error_info, 0);
    ext4_handle_error(sbi);
    switch (p.stop) {
    case S::flush_then_del:
        flush_work(&sbi->s_error_work);
        del_timer_sync(&sbi->s_err_report);
        break;
    case S::del_then_flush:
        del_timer_sync(&sbi->s_err_report);
        flush_work(&sbi->s_error_work);
        break;
    case S::del_only:
        del_timer_sync(&sbi->s_err_report);
        break;
    case S::cancel_then_del:
        cancel_work(&sbi->s_error_work);
        del_timer_sync(&sbi->s_err_report);
        break;
    }
    kfree(sbi);
}

void setup(std::size_t variant, const ParameterValues&) {
    const TeardownPolicy& p = variants()[variant].policy;
    spawn("mount", [&p] {
        op mount("mount"); // how long the failed mount waits for its work and timer
        ext4_fill_super(p);
    });
}

} // namespace

Protocol ext4_error_teardown() {
    return Protocol{
        .name = "ext4-error-teardown",
        .summary = "a failed ext4 mount stops its error work item and daily error timer, then "
                   "frees sbi",
        .variants = variants_of(variants()),
        .default_variant = 0, // flush-then-del: the fix
        .comparison = Comparison{.before = "del-then-flush", .after = "flush-then-del"},
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(ext4_error_teardown);

} // namespace lockcheck::protocols
