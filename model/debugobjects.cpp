// The active objects of an execution and ODEBUG's check at kfree() (debugobjects.hpp).
#include "debugobjects.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace lockcheck::detail {

namespace {

struct active_object {
    const Object* obj;
    const char* type;
    const Task* by; // who made it active, and at which step
    std::uint32_t step;
};

// In the order made active; few at a time.
struct debug_objects {
    std::vector<active_object> active;
};

} // namespace

void debug_object_activate(const Object* obj, const char* type) {
    auto& active = this_execution().local<debug_objects>().active;
    debug_object_deactivate(obj);
    active.push_back({obj, type, current(), this_execution().step()});
}

void debug_object_deactivate(const Object* obj) {
    auto& active = this_execution().local<debug_objects>().active;
    std::erase_if(active, [obj](const active_object& a) { return a.obj == obj; });
}

void debug_check_no_obj_freed(const Object& allocation, const void* begin, std::size_t size,
                              std::source_location loc) {
    debug_objects* d = this_execution().find_local<debug_objects>();
    if (!d) return;
    const auto first = reinterpret_cast<std::uintptr_t>(begin);
    for (const active_object& a : d->active) {
        const auto at = reinterpret_cast<std::uintptr_t>(a.obj);
        if (at < first || at - first >= size) continue;
        // The kernel's debugobjects name the object's type; the state it is in and who put it
        // there are what a reader needs to see the bug.
        const bool work = std::string_view(a.type) == "work_struct";
        Execution& ex = this_execution();
        ex.fail_with_details(
            ViolationKind::use_after_free, "use-after-free of " + allocation.name(),
            std::string("ODEBUG: free active object type: ") + a.type + ": kfree(" +
                allocation.name() + ") by " + current()->name() + " at step " +
                std::to_string(ex.step()) + " frees " + a.obj->name() + ", " +
                (work ? "queued" : "armed") + " by " + a.by->name() + " at step " +
                std::to_string(a.step) + (work ? " and not yet run" : " and not yet expired"),
            {"its " + std::string(work ? "worker" : "callback") + " would run on freed memory: " +
             (work ? "cancel_work_sync()" : "timer_delete_sync()") +
             " before the kfree() stops it"},
            loc, {a.step});
        return;
    }
}

} // namespace lockcheck::detail
