// struct mutex: a sleeping lock with an owner, checked as CONFIG_DEBUG_MUTEXES and lockdep
// check it (unlock by a non-owner, unlock of an unlocked mutex, recursive locking, lock
// order).
#pragma once

#include "lockdep.hpp"

namespace lockcheck::detail {

struct mutex final : Object {
    explicit mutex(std::string name) : Object(name), dep_map(name) { unwatched(); }
    const Task* holder() const override { return owner; }
    const Task* exclusive_holder() const override { return owner; }
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override { h.add(owner ? owner->id() : kNoTask); }

    task_struct* owner = nullptr;
    lockdep_map dep_map;
};

void mutex_lock(struct mutex* lock, std::source_location loc = std::source_location::current());
// mutex_lock() as lock class subclass `subclass` (lockdep nesting annotation).
void mutex_lock_nested(struct mutex* lock, int subclass,
                       std::source_location loc = std::source_location::current());
// 1 if the lock was taken, 0 if it is held; never blocks.
int mutex_trylock(struct mutex* lock, std::source_location loc = std::source_location::current());
void mutex_unlock(struct mutex* lock, std::source_location loc = std::source_location::current());
bool mutex_is_locked(struct mutex* lock,
                     std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
