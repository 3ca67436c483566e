// struct inode, reduced to what lock protocols touch: i_rwsem (inode_lock), i_size (and on a
// 32-bit SMP kernel its i_size_seqcount), and the direct-I/O count that inode_dio_wait() waits
// on (include/linux/fs.h, fs/inode.c).
#pragma once

#include "atomic.hpp"
#include "rwsem.hpp"
#include "seqlock.hpp"
#include "shared.hpp"
#include "wait.hpp"

namespace lockcheck::detail {

struct inode {
    // `bits_per_long`: the kernel's BITS_PER_LONG, on an SMP kernel (CONFIG_SMP): 64, or 32,
    // where a loff_t is two words that i_size_seqcount keeps together.
    explicit inode(const std::string& name, long long size = 0, int bits_per_long = 64)
        : i_rwsem(name + ".i_rwsem"), i_dio_count(name + ".i_dio_count"),
          i_dio_wait(name + ".i_state:__I_DIO_WAKEUP"),
          i_size(name + ".i_size", bits_per_long == 32 ? size & 0xffffffffLL : size),
          i_size_high(name + ".i_size.high", static_cast<unsigned>(size >> 32)),
          i_size_seqcount(name + ".i_size_seqcount"), bits_per_long(bits_per_long) {}

    rw_semaphore i_rwsem;
    atomic_t i_dio_count;
    wait_queue_head_t i_dio_wait; // the bit wait queue of __I_DIO_WAKEUP
    // The size; with BITS_PER_LONG 32 its low word, and i_size_high the high one.
    shared<long long> i_size;
    shared<unsigned> i_size_high;
    seqcount_t i_size_seqcount; // BITS_PER_LONG 32 only
    const int bits_per_long;
};

void inode_lock(inode* inode, std::source_location loc = std::source_location::current());
void inode_unlock(inode* inode, std::source_location loc = std::source_location::current());
void inode_lock_shared(inode* inode, std::source_location loc = std::source_location::current());
void inode_unlock_shared(inode* inode, std::source_location loc = std::source_location::current());
// i_size_read() and i_size_write() as include/linux/fs.h writes them: with BITS_PER_LONG 64,
// smp_load_acquire() and smp_store_release(); with 32, a read_seqcount_begin()/retry loop
// around the two words, and a write section of i_size_seqcount with preemption off.
// i_size_write() asserts no lock: its callers must serialize it (normally with i_rwsem),
// "otherwise on 32bit/SMP an update of i_size_seqcount can be lost, resulting in subsequent
// i_size_read() calls spinning forever".
long long i_size_read(const inode* inode,
                      std::source_location loc = std::source_location::current());
void i_size_write(inode* inode, long long i_size,
                  std::source_location loc = std::source_location::current());
void inode_dio_begin(inode* inode, std::source_location loc = std::source_location::current());
// Wakes inode_dio_wait() when the last direct I/O ends: atomic_dec_and_test(), then
// inode_dio_wake_up_bit().
void inode_dio_end(inode* inode, std::source_location loc = std::source_location::current());
// inode_dio_end()'s parts, for a model that spells out its own (a barrier-bug variant): the
// running task's direct I/O is over, as inode_dio_wait()'s deadlock reports know it (no
// access, no step); and wake_up_bit(&inode->i_state, __I_DIO_WAKEUP), whose waitqueue_active()
// has no barrier of its own: the caller's atomic_dec_and_test() is it.
void inode_dio_ended(inode* inode);
void inode_dio_wake_up_bit(inode* inode,
                           std::source_location loc = std::source_location::current());
// Sleeps until no direct I/O (nor a buffered write bracketed like one) is in flight.
void inode_dio_wait(inode* inode, std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
