// Tearing a task down: unwinds its fiber's stack back to where its body was entered, running the
// destructors on the way, the way pthread_cancel() unwinds a thread. The unwinder's cleanup phase
// alone (a forced unwind) walks the frames once; a thrown C++ exception walks them twice, first
// to find its handler, and stateful searches, which end nearly every execution with its tasks
// mid-code, spent half their time there (docs/PERFORMANCE.md, "Tearing tasks down").
#pragma once

#include <csetjmp>
#include <unwind.h>

namespace lockcheck::detail {

class FiberUnwind {
  public:
    FiberUnwind() = default;
    FiberUnwind(const FiberUnwind&) = delete;
    FiberUnwind& operator=(const FiberUnwind&) = delete;

    // Calls body(arg) on the calling fiber; false when unwind() ended it. An exception the
    // body throws passes through.
    //
    // A frame the unwinding may not pass, a noexcept function's (a destructor that reached a
    // scheduling point when its scope ended normally, as a guard that unlocks does), would
    // terminate the process: there the unwinding is given up instead, and the frames from it
    // up to run() are left without their destructors run.
    bool run(void (*body)(void*), void* arg);
    // Whether the stack is being unwound now: a destructor on the way is running, and must not
    // start a second unwinding (a destructor is noexcept: unwinding through it terminates).
    bool unwinding() const { return unwinding_; }
    // Unwinds the stack to run(), which returns false. Called below run() on the same fiber,
    // outside a destructor run by an unwinding. Inline, so that the unwinding starts in the
    // caller's frame: every frame it walks costs as much as a step of the search.
    [[noreturn, gnu::always_inline]] void unwind() {
        unwinding_ = true;
        exception_ = {};
        exception_.exception_class = kExceptionClass;
        exception_.exception_cleanup = caught;
        _Unwind_ForcedUnwind(&exception_, stop, this);
        cannot_unwind();
    }

  private:
    // "LCK\0UNWD": tells the unwinder and any catch (...) it is not a C++ exception of theirs.
    static constexpr _Unwind_Exception_Class kExceptionClass = 0x4c434b00554e5744ULL;

    // _Unwind_ForcedUnwind() returns only when it cannot unwind at all: no unwind tables, or no
    // run() below.
    [[noreturn, gnu::cold]] static void cannot_unwind();
    static _Unwind_Reason_Code stop(int version, _Unwind_Action actions,
                                    _Unwind_Exception_Class exception_class,
                                    _Unwind_Exception* exception, _Unwind_Context* context,
                                    void* self);
    static void caught(_Unwind_Reason_Code reason, _Unwind_Exception* exception);
    // std::terminate()'s handler while a task is unwound: gives the unwinding up.
    [[noreturn]] static void on_terminate();

    _Unwind_Exception exception_{};
    std::jmp_buf landing_{};
    // run()'s frame: the unwinding stops at the first frame whose canonical frame address lies
    // above it, before that frame's handlers run.
    const void* frame_ = nullptr;
    bool unwinding_ = false;
};

} // namespace lockcheck::detail
