// Model code that leaves its task without returning: a crash signal, a stack overflow, a call
// that ends the process (exit, quick_exit, _exit), or no scheduling point for too long. The
// crash signals' set-up lives here and nowhere else; each such end becomes a finding of the
// execution (Execution::escape), never the end of lockcheck.
#pragma once

#include <cstdint>

namespace lockcheck::detail {

// How the running task's model code left it: run() abandons that task and reports this.
struct Fault {
    enum class Kind : std::uint8_t {
        stack_overflow, // a fault on the guard page of the task's stack
        crash,          // SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT raised by model code
        exit,           // model code called exit, quick_exit, _exit or _Exit
        endless_loop,   // the watchdog: running model code, past the step timeout
        blocked,        // the watchdog: waiting inside the C library, past the step timeout
        // std::bad_alloc where nothing on the fiber catches it (the scheduling step, or model
        // code in a noexcept function): no finding, the search stops (kOutOfMemory)
        out_of_memory,
    };
    Kind kind = Kind::crash;
    int code = 0;               // crash: the signal; exit: the status
    const char* call = nullptr; // exit: the function called
};

namespace faults {

// The exit code of a run that a model's fault ends outside any task (its set-up called exit, or
// a task is stuck where nothing can interrupt it): that of a run that found a violation.
inline constexpr int kExitModelFault = 1;
// The exit code of a run that runs out of memory where nothing can end it cleanly: that of an
// incomplete run.
inline constexpr int kExitOutOfMemory = 3;

// Installs, once per process, the handlers of SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT on an
// alternate signal stack of the calling thread (the thread that runs executions), so that a
// fiber whose stack overflowed can still be reported. A signal that the running task's model
// code did not raise keeps its default action: lockcheck's own crash is never swallowed.
// And std::terminate()'s handler: a std::bad_alloc that nothing on a running task's fiber
// catches ends that execution (Fault::Kind::out_of_memory), every other termination is left
// to the handler before.
void install();

} // namespace faults
} // namespace lockcheck::detail
