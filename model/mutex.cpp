// mutex_lock and friends: one scheduling point each; mutex_lock blocks while owned.
#include "mutex.hpp"

#include "lock_misuse.hpp"
#include "sched.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

bool unowned(const Object* obj, const Task&) {
    return !static_cast<const mutex*>(obj)->owner;
}

void lock(const char* op, struct mutex* lock, int subclass, std::source_location loc) {
    might_sleep(op, lock, loc);
    task_struct* me = current();
    if (lock->owner == me) report_recursive_locking(op, lock, loc);
    lock_acquire(op, lock, &lock->dep_map, subclass, false, loc);
    this_execution().visible(op, lock, loc, &unowned);
    count_sleep_if_blocked(lock);
    lock->owner = me;
    if (weak_memory::on()) [[unlikely]]
        weak_memory::lock_acquired(*lock);
    lock_acquired(me, lock, "mutex", &lock->dep_map, loc, subclass);
}

} // namespace

void mutex::describe(std::string& out) const {
    out += owner ? "held by " + owner->name() : std::string("unlocked");
}

void mutex_lock(struct mutex* l, std::source_location loc) {
    lock("mutex_lock", l, 0, loc);
}

void mutex_lock_nested(struct mutex* l, int subclass, std::source_location loc) {
    lock("mutex_lock_nested", l, subclass, loc);
}

int mutex_trylock(struct mutex* lock, std::source_location loc) {
    this_execution().visible("mutex_trylock", lock, loc);
    int taken = lock->owner == nullptr;
    if (taken) {
        lock->owner = current();
        if (weak_memory::on()) [[unlikely]]
            weak_memory::lock_acquired(*lock);
        lock_acquire("mutex_trylock", lock, &lock->dep_map, 0, true, loc);
        lock_acquired(lock->owner, lock, "mutex", &lock->dep_map, loc, 0, true);
    } else {
        if (weak_memory::on()) [[unlikely]]
            weak_memory::lock_attempt_failed(*lock);
        this_execution().attempt_failed();
    }
    this_execution().note(taken);
    return observed(taken);
}

void mutex_unlock(struct mutex* lock, std::source_location loc) {
    this_execution().visible("mutex_unlock", lock, loc);
    task_struct* me = current();
    if (lock->owner != me) report_bad_unlock("mutex_unlock", lock, lock->owner, loc);
    lock->owner = nullptr;
    if (weak_memory::on()) [[unlikely]]
        weak_memory::lock_released(*lock);
    lock_released(me, lock);
}

bool mutex_is_locked(struct mutex* lock, std::source_location loc) {
    this_execution().visible_read("mutex_is_locked", lock, loc);
    bool held = lock->owner != nullptr;
    if (weak_memory::on()) [[unlikely]]
        held = weak_memory::lock_is_locked(*lock, held);
    this_execution().note(held);
    return observed(held);
}

} // namespace lockcheck::detail
