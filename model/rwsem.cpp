// down_read/down_write and friends; readers are a task bit set, so nothing allocates.
#include "rwsem.hpp"

#include "lock_misuse.hpp"
#include "sched.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

void take_read(rw_semaphore* sem, task_struct* me, int subclass, bool trylock,
               std::source_location loc) {
    sem->readers |= task_bit(me->id());
    // Under lkmm an acquisition either way is an ACQUIRE (memory-barriers.txt, "LOCK
    // ACQUISITION FUNCTIONS"), a release a RELEASE: lock.cat's lock and unlock.
    if (weak_memory::on()) [[unlikely]]
        weak_memory::lock_acquired(*sem);
    lock_acquired(me, sem, "rwsem-read", &sem->dep_map, loc, subclass, trylock);
}

void take_write(rw_semaphore* sem, task_struct* me, int subclass, bool trylock,
                std::source_location loc) {
    sem->writer = me;
    if (weak_memory::on()) [[unlikely]]
        weak_memory::lock_acquired(*sem);
    lock_acquired(me, sem, "rwsem-write", &sem->dep_map, loc, subclass, trylock);
}

// down_read and down_write differ in what they wait for and how they hold.
void down(const char* op, rw_semaphore* sem, int subclass, bool write, std::source_location loc) {
    might_sleep(op, sem, loc);
    task_struct* me = current();
    if (sem->held_by(me)) report_recursive_locking(op, sem, loc);
    lock_acquire(op, sem, &sem->dep_map, subclass, false, loc);
    this_execution().visible(op, sem, loc, write ? &rw_holders::unheld : &rw_holders::no_writer);
    count_sleep_if_blocked(sem);
    if (write)
        take_write(sem, me, subclass, false, loc);
    else
        take_read(sem, me, subclass, false, loc);
}

int down_trylock(const char* op, rw_semaphore* sem, bool write, std::source_location loc) {
    this_execution().visible(op, sem, loc);
    const Task& me = *current();
    const int taken = write ? rw_holders::unheld(sem, me) : rw_holders::no_writer(sem, me);
    if (taken) {
        lock_acquire(op, sem, &sem->dep_map, 0, true, loc);
        if (write)
            take_write(sem, current(), 0, true, loc);
        else
            take_read(sem, current(), 0, true, loc);
    } else {
        if (weak_memory::on()) [[unlikely]]
            weak_memory::lock_attempt_failed(*sem);
        this_execution().attempt_failed();
    }
    this_execution().note(taken);
    return observed(taken);
}

} // namespace

const Task* rw_holders::holder() const {
    if (writer) return writer;
    if (readers) return Execution::current().tasks()[lowest(readers)].get();
    return nullptr;
}

void rw_holders::describe(std::string& out) const {
    if (writer) {
        out += "held for write by " + writer->name();
    } else if (readers) {
        out += "held for read by";
        for (TaskSet r = readers; r; r &= r - 1)
            out += " " + Execution::current().tasks()[lowest(r)]->name();
    } else {
        out += "unlocked";
    }
}

void down_read(struct rw_semaphore* sem, std::source_location loc) {
    down("down_read", sem, 0, false, loc);
}
void down_write(struct rw_semaphore* sem, std::source_location loc) {
    down("down_write", sem, 0, true, loc);
}
void down_read_nested(struct rw_semaphore* sem, int subclass, std::source_location loc) {
    down("down_read_nested", sem, subclass, false, loc);
}
void down_write_nested(struct rw_semaphore* sem, int subclass, std::source_location loc) {
    down("down_write_nested", sem, subclass, true, loc);
}
int down_read_trylock(struct rw_semaphore* sem, std::source_location loc) {
    return down_trylock("down_read_trylock", sem, false, loc);
}
int down_write_trylock(struct rw_semaphore* sem, std::source_location loc) {
    return down_trylock("down_write_trylock", sem, true, loc);
}

void up_read(struct rw_semaphore* sem, std::source_location loc) {
    this_execution().visible("up_read", sem, loc);
    task_struct* me = current();
    if (!contains(sem->readers, me->id())) report_bad_unlock("up_read", sem, sem->holder(), loc);
    sem->readers &= ~task_bit(me->id());
    if (weak_memory::on()) [[unlikely]]
        weak_memory::rwsem_released(*sem);
    lock_released(me, sem);
}

void up_write(struct rw_semaphore* sem, std::source_location loc) {
    this_execution().visible("up_write", sem, loc);
    task_struct* me = current();
    if (sem->writer != me) report_bad_unlock("up_write", sem, sem->holder(), loc);
    sem->writer = nullptr;
    if (weak_memory::on()) [[unlikely]]
        weak_memory::rwsem_released(*sem);
    lock_released(me, sem);
}

void downgrade_write(struct rw_semaphore* sem, std::source_location loc) {
    this_execution().visible("downgrade_write", sem, loc);
    task_struct* me = current();
    if (sem->writer != me) report_bad_unlock("downgrade_write", sem, sem->holder(), loc);
    sem->writer = nullptr;
    // A release, then the read side taken: more order than the kernel's one atomic
    // operation, never less.
    if (weak_memory::on()) [[unlikely]]
        weak_memory::rwsem_released(*sem);
    lock_released(me, sem);
    take_read(sem, me, 0, false, loc);
}

} // namespace lockcheck::detail
