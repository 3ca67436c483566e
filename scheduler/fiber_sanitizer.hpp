// Tells AddressSanitizer about fiber switches, in a build that has it (the `asan` preset). ASan
// knows one stack per thread: a switch it was not told of looks like a wild jump inside that
// stack, and stale redzones of a fiber that ended by a jump look like overflows. In any other
// build every function here is empty and inline: the scheduling step is unchanged.
//
// LOCKCHECK_SANITIZE comes from the build (a usage requirement of lockcheck_scheduler), not
// from the flags of the file being compiled: switch_to() is inline, and a user's model built
// without ASan against a sanitizer build of lockcheck must still announce every switch it makes.
#pragma once

#include <cstddef>

#include "stack_pool.hpp"

#ifdef LOCKCHECK_SANITIZE
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace lockcheck::detail::fiber_sanitizer {

// Right before a switch to the stack `to`. `fake_stack_save` keeps the leaving fiber's
// use-after-return frames until it is resumed (end_switch() gets them back); null when it is
// never resumed, so that ASan frees them.
inline void begin_switch([[maybe_unused]] void** fake_stack_save,
                         [[maybe_unused]] const Stack& to) {
#ifdef LOCKCHECK_SANITIZE
    __sanitizer_start_switch_fiber(fake_stack_save, to.bottom(), to.size);
#endif
}

// Right after a switch, on the new stack: `fake_stack` is what begin_switch() saved when this
// fiber left (null for a fiber's first run). `from`, if given, receives the stack switched from.
inline void end_switch([[maybe_unused]] void* fake_stack, [[maybe_unused]] Stack* from = nullptr) {
#ifdef LOCKCHECK_SANITIZE
    const void* bottom = nullptr;
    std::size_t size = 0;
    __sanitizer_finish_switch_fiber(fake_stack, &bottom, &size);
    if (from) *from = Stack{static_cast<char*>(const_cast<void*>(bottom)) + size, size};
#endif
}

// The frames left on `stack` are gone (their fiber ended or was abandoned by a jump): clears
// their redzones, which the next code to run there would otherwise hit.
inline void forget_frames([[maybe_unused]] const Stack& stack) {
#ifdef LOCKCHECK_SANITIZE
    ASAN_UNPOISON_MEMORY_REGION(stack.bottom(), stack.size);
#endif
}

} // namespace lockcheck::detail::fiber_sanitizer
