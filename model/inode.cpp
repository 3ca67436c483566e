// The inode helpers as the compositions the kernel makes of them.
#include "inode.hpp"

#include "percpu.hpp"

namespace lockcheck::detail {

void inode_lock(inode* inode, std::source_location loc) {
    down_write(&inode->i_rwsem, loc);
}
void inode_unlock(inode* inode, std::source_location loc) {
    up_write(&inode->i_rwsem, loc);
}
void inode_lock_shared(inode* inode, std::source_location loc) {
    down_read(&inode->i_rwsem, loc);
}
void inode_unlock_shared(inode* inode, std::source_location loc) {
    up_read(&inode->i_rwsem, loc);
}

// Never a data race: i_size_read() is the kernel's accessor for readers without the inode
// lock ("unlike i_size_write(), i_size_read() doesn't need locking"). On 64-bit both are
// smp_load_acquire()/smp_store_release() since 2024 (Baokun Li, "fs: make the i_size_read/write
// helpers be smp_load_acquire/store_release()"); on 32-bit SMP the words are plain C
// accesses inside the seqcount's sections, which KCSAN takes as atomic. Writers still need
// the inode lock against each other; the models check that with lockdep_assert_held-style
// checks.
long long i_size_read(const inode* inode, std::source_location loc) {
    if (inode->bits_per_long != 32) return inode->i_size.load_acquire("i_size_read", loc);
    long long i_size = 0;
    unsigned seq = 0;
    do {
        seq = read_seqcount_begin(&inode->i_size_seqcount, loc);
        i_size = inode->i_size.read("i_size_read", loc) |
                 static_cast<long long>(inode->i_size_high.read("i_size_read", loc)) << 32;
    } while (read_seqcount_retry(&inode->i_size_seqcount, seq, loc));
    return i_size;
}
void i_size_write(inode* inode, long long i_size, std::source_location loc) {
    if (inode->bits_per_long != 32) {
        inode->i_size.store_release(i_size, "i_size_write", loc);
        return;
    }
    preempt_disable(loc);
    write_seqcount_begin(&inode->i_size_seqcount, loc);
    inode->i_size.write(i_size & 0xffffffffLL, "i_size_write", loc);
    inode->i_size_high.write(static_cast<unsigned>(i_size >> 32), "i_size_write", loc);
    write_seqcount_end(&inode->i_size_seqcount, loc);
    preempt_enable(loc);
}

void inode_dio_begin(inode* inode, std::source_location loc) {
    atomic_inc(&inode->i_dio_count, loc);
    // inode_dio_wait() sleepers now wait for this task: a wait-for edge for deadlock reports.
    inode->i_dio_wait.waited_for |= task_bit(current()->id());
}

void inode_dio_end(inode* inode, std::source_location loc) {
    const bool last = atomic_dec_and_test(&inode->i_dio_count, loc);
    inode_dio_ended(inode);
    if (last) inode_dio_wake_up_bit(inode, loc);
}

void inode_dio_ended(inode* inode) {
    inode->i_dio_wait.waited_for &= ~task_bit(current()->id());
}

void inode_dio_wake_up_bit(inode* inode, std::source_location loc) {
    // __wake_up_bit(): wakes only if someone waits, seen with no barrier of its own.
    if (waitqueue_active(&inode->i_dio_wait, loc)) wake_up(&inode->i_dio_wait, loc);
}

void inode_dio_wait(inode* inode, std::source_location loc) {
    if (!atomic_read(&inode->i_dio_count, loc)) return;
    // __inode_dio_wait()
    DEFINE_WAIT(q);
    do {
        prepare_to_wait(&inode->i_dio_wait, &q, TASK_UNINTERRUPTIBLE, loc);
        if (atomic_read(&inode->i_dio_count, loc)) schedule(loc);
    } while (atomic_read(&inode->i_dio_count, loc));
    finish_wait(&inode->i_dio_wait, &q, loc);
}

} // namespace lockcheck::detail
