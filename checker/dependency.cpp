// An operation's access: its object's conflict id, unless it has no object or reaches beyond
// it (a spin turn, set_current_state, wake_up_process, hotplug): those are global.
#include "dependency.hpp"

#include "scheduler/object.hpp"

namespace lockcheck {

Access access_of(const Operation& op, const Task* task) {
    const bool blocking = op.enabled != nullptr;
    if (!op.obj || op.global || op.fallback) return Access{-1, true, true, blocking, false};
    const bool held = task && op.obj->exclusive_holder() == task;
    return Access{op.obj->conflict_id(), !op.read_only, false, blocking, held};
}

} // namespace lockcheck
