// spinlock_t: a lock that makes its holder atomic (preemption off): sleeping while holding
// one is reported. Spinning on a held lock is modelled as blocking until it is released, so
// a spin never loops in the search; checked as CONFIG_DEBUG_SPINLOCK checks it.
#pragma once

#include "task.hpp"

namespace lockcheck {

struct spinlock_t final : Object {
    explicit spinlock_t(std::string name) : Object(std::move(name)) {}
    const Task* holder() const override { return owner; }
    void describe(std::string& out) const override;

    task_struct* owner = nullptr;
};

void spin_lock(spinlock_t* lock);
// 1 if the lock was taken, 0 if it is held.
int spin_trylock(spinlock_t* lock);
void spin_unlock(spinlock_t* lock);

} // namespace lockcheck
