// CONFIG_DEBUG_OBJECTS (lib/debugobjects.c) for the objects whose life the kernel tracks: a
// work_struct is active while queued, a timer_list while armed. kfree() of memory that holds an
// active one is reported at the kfree, as "ODEBUG: free active object type: work_struct".
#pragma once

#include <cstddef>
#include <source_location>

#include "task.hpp"

namespace lockcheck::detail {

// `obj` (a work_struct, a timer_list: `type`) became active, or stopped being, at the running
// task's step.
void debug_object_activate(const Object* obj, const char* type);
void debug_object_deactivate(const Object* obj);
// kfree() of `allocation` (its memory: `size` bytes at `begin`) by the running task, at its
// step: a use-after-free finding, named after the allocation as KASAN's are, if an active
// object lies inside.
void debug_check_no_obj_freed(const Object& allocation, const void* begin, std::size_t size,
                              std::source_location loc);

} // namespace lockcheck::detail
