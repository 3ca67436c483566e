// Forced unwinding of a task's fiber (fiber_unwind.hpp), as glibc's pthread_cancel() does it: a
// stop function watches each frame the cleanup phase reaches and jumps back into run() once the
// unwinding has left the frames below it.
#include "fiber_unwind.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>
#include <exception>

namespace lockcheck::detail {

namespace {

// The unwinding in progress on this thread, for on_terminate(); and the handler it replaced,
// for any other termination.
thread_local FiberUnwind* t_unwinding = nullptr;
std::terminate_handler g_previous_terminate = nullptr;

} // namespace

// Not inlined, so that its frame is its own: the unwinding stops there.
[[gnu::noinline]] bool FiberUnwind::run(void (*body)(void*), void* arg) {
    [[maybe_unused]] static const bool installed = [] {
        g_previous_terminate = std::set_terminate(on_terminate);
        return true;
    }();
    frame_ = __builtin_frame_address(0);
    if (const int how = _setjmp(landing_); how != 0) {
        t_unwinding = nullptr;
        // Given up at a noexcept frame (on_terminate()): the runtime took the unwinding for an
        // exception caught there before it called the handler, and keeps it until ended.
        if (how == 2) __cxxabiv1::__cxa_end_catch();
        unwinding_ = false;
        return false;
    }
    body(arg);
    return true;
}

void FiberUnwind::on_terminate() {
    if (FiberUnwind* unwind = t_unwinding) _longjmp(unwind->landing_, 2);
    if (g_previous_terminate) g_previous_terminate();
    std::abort();
}

void FiberUnwind::cannot_unwind() {
    std::fputs("lockcheck: internal error: cannot unwind a task's stack\n", stderr);
    std::abort();
}

_Unwind_Reason_Code FiberUnwind::stop(int, _Unwind_Action actions, _Unwind_Exception_Class,
                                      _Unwind_Exception*, _Unwind_Context* context, void* self) {
    auto& unwind = *static_cast<FiberUnwind*>(self);
    t_unwinding = &unwind;
    if (actions & _UA_END_OF_STACK) return _URC_FATAL_PHASE2_ERROR; // run() was not below
    // The stack grows down: the frames below run() have their canonical frame address at or
    // below run()'s frame, run()'s own above it.
    if (_Unwind_GetCFA(context) > reinterpret_cast<std::uintptr_t>(unwind.frame_))
        _longjmp(unwind.landing_, 1);
    return _URC_NO_REASON;
}

void FiberUnwind::caught(_Unwind_Reason_Code, _Unwind_Exception* exception) {
    // A catch (...) in the model ended without rethrowing: the task runs on, and its next
    // scheduling point unwinds it again.
    auto* self = reinterpret_cast<FiberUnwind*>(reinterpret_cast<char*>(exception) -
                                                offsetof(FiberUnwind, exception_));
    self->unwinding_ = false;
    t_unwinding = nullptr;
}

} // namespace lockcheck::detail
