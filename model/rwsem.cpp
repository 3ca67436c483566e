// down_read/down_write and friends; readers are a task bit set, so nothing allocates.
#include "rwsem.hpp"

#include "lock_misuse.hpp"
#include "sched.hpp"

namespace lockcheck {

namespace {

const rw_semaphore* sem_of(const Object* obj) {
    return static_cast<const rw_semaphore*>(obj);
}
bool no_writer(const Object* obj, const Task&) {
    return !sem_of(obj)->writer;
}
bool free_sem(const Object* obj, const Task&) {
    return !sem_of(obj)->writer && sem_of(obj)->readers == 0;
}

void take_read(rw_semaphore* sem, task_struct* me) {
    sem->readers |= task_bit(me->id());
    lock_acquired(me, sem, "rwsem-read");
}

void take_write(rw_semaphore* sem, task_struct* me) {
    sem->writer = me;
    lock_acquired(me, sem, "rwsem-write");
}

} // namespace

const Task* rw_semaphore::holder() const {
    if (writer) return writer;
    if (readers) return Execution::current().tasks()[lowest(readers)].get();
    return nullptr;
}

void rw_semaphore::describe(std::string& out) const {
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

void down_read(struct rw_semaphore* sem) {
    might_sleep("down_read", sem);
    task_struct* me = current();
    if (sem->writer == me || contains(sem->readers, me->id()))
        report_recursive_locking("down_read", sem);
    this_execution().visible("down_read", sem, &no_writer);
    count_sleep_if_blocked();
    take_read(sem, me);
}

void down_write(struct rw_semaphore* sem) {
    might_sleep("down_write", sem);
    task_struct* me = current();
    if (sem->writer == me || contains(sem->readers, me->id()))
        report_recursive_locking("down_write", sem);
    this_execution().visible("down_write", sem, &free_sem);
    count_sleep_if_blocked();
    take_write(sem, me);
}

int down_read_trylock(struct rw_semaphore* sem) {
    this_execution().visible("down_read_trylock", sem);
    int taken = sem->writer == nullptr;
    if (taken) take_read(sem, current());
    if (!taken) this_execution().nothing_written();
    this_execution().note(taken);
    return taken;
}

int down_write_trylock(struct rw_semaphore* sem) {
    this_execution().visible("down_write_trylock", sem);
    int taken = !sem->writer && sem->readers == 0;
    if (taken) take_write(sem, current());
    if (!taken) this_execution().nothing_written();
    this_execution().note(taken);
    return taken;
}

void up_read(struct rw_semaphore* sem) {
    this_execution().visible("up_read", sem);
    task_struct* me = current();
    if (!contains(sem->readers, me->id())) report_bad_unlock("up_read", sem, sem->holder());
    sem->readers &= ~task_bit(me->id());
    lock_released(me, sem);
}

void up_write(struct rw_semaphore* sem) {
    this_execution().visible("up_write", sem);
    task_struct* me = current();
    if (sem->writer != me) report_bad_unlock("up_write", sem, sem->holder());
    sem->writer = nullptr;
    lock_released(me, sem);
}

void downgrade_write(struct rw_semaphore* sem) {
    this_execution().visible("downgrade_write", sem);
    task_struct* me = current();
    if (sem->writer != me) report_bad_unlock("downgrade_write", sem, sem->holder());
    sem->writer = nullptr;
    lock_released(me, sem);
    take_read(sem, me);
}

} // namespace lockcheck
