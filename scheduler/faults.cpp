// The crash signals' handler, and lockcheck's own definitions of the C library's exit functions:
// model code is linked into the lockcheck executable, so its calls of exit() bind to these,
// which end the running task instead of the process (and forward every other call).
#include "faults.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>
#include <dlfcn.h>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <sys/syscall.h>
#include <typeinfo>
#include <unistd.h>

#include "execution.hpp"

namespace lockcheck::detail::faults {

namespace {

bool raised_by_this_process(const siginfo_t& info) {
    // A fault (si_code > 0 is the kernel's), or abort() and raise(), which send it from here.
    return info.si_code > 0 || info.si_pid == getpid();
}

void on_crash_signal(int sig, siginfo_t* info, void*) {
    if (raised_by_this_process(*info)) {
        // Only a memory fault's address can lie on a fiber's guard page.
        const bool memory = sig == SIGSEGV || sig == SIGBUS;
        Execution::escape(Fault{.kind = Fault::Kind::crash, .code = sig},
                          memory ? info->si_addr : nullptr); // returns if no task raised it
    }
    // lockcheck's own bug, or a signal sent from outside: the default action, as if no handler
    // were installed. A fault returns to its instruction, which faults again and dumps its
    // core there; a sent signal is sent again, or returning would swallow it.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, nullptr);
    if (info->si_code <= 0) raise(sig);
}

// An exit function was called: from the running task's model code, its task ends here with a
// finding (escape does not return). From model code outside any task (its set-up, a property)
// no execution can go on, but the run must not read as a pass: the status becomes a failure.
int exit_status(const char* call, int status) {
    Execution::escape(Fault{.kind = Fault::Kind::exit, .code = status, .call = call}, nullptr);
    if (!Execution::active()) return status; // lockcheck itself exits
    const std::string text = "lockcheck: model code called " + std::string(call) + "(" +
                             std::to_string(status) +
                             ") outside any task (in its set-up or a property): the search "
                             "ends here, with exit code " +
                             std::to_string(kExitModelFault) + "\n";
    if (::write(STDERR_FILENO, text.data(), text.size()) < 0) {
        // Nothing more can be said if stderr is gone; the exit code still says it.
    }
    return kExitModelFault;
}

using ExitFunction = void (*)(int);

// The C library's definition of `name`: the next one after this executable's.
ExitFunction library_function(const char* name) {
    return reinterpret_cast<ExitFunction>(dlsym(RTLD_NEXT, name));
}

// _exit() and _Exit() are the exit_group system call; made directly, so that a child process
// forked by a library can call them without dlsym (which is not async-signal-safe).
[[noreturn]] void exit_group(int status) {
    for (;;)
        syscall(SYS_exit_group, status);
}

// An overflowed fiber's stack is unusable: the handler needs a stack of its own, one for each
// thread that runs executions (--jobs), given back when the thread ends.
struct AltStack {
    std::unique_ptr<char[]> memory{new char[kSize]};
    static constexpr std::size_t kSize = 64 * 1024;
    AltStack() {
        stack_t ss{};
        ss.ss_sp = memory.get();
        ss.ss_size = kSize;
        sigaltstack(&ss, nullptr);
    }
    ~AltStack() {
        stack_t ss{};
        ss.ss_flags = SS_DISABLE;
        sigaltstack(&ss, nullptr);
    }
};

std::terminate_handler g_previous_terminate = nullptr;

// The runtime calls it with the exception that found no handler taken as caught: ended here
// (and freed) before the jump out of the fiber, or the runtime would keep it for good.
[[noreturn]] void on_terminate() {
    const std::type_info* type = abi::__cxa_current_exception_type();
    if (type && *type == typeid(std::bad_alloc)) {
        abi::__cxa_end_catch();
        Execution::escape(Fault{.kind = Fault::Kind::out_of_memory}, nullptr);
        // Returned: no task's fiber to leave (a teardown, or no execution runs on this thread).
        // The process ends, as it would have, with what it printed so far.
        std::fflush(stdout);
        std::fputs("lockcheck: out of memory where the run cannot go on: it ends here, "
                   "incomplete\n",
                   stderr);
        exit_group(kExitOutOfMemory);
    }
    if (g_previous_terminate) g_previous_terminate();
    std::abort();
}

void install_handlers() {
    g_previous_terminate = std::set_terminate(&on_terminate);
    struct sigaction sa {};
    sa.sa_sigaction = &on_crash_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
        sigaction(sig, &sa, nullptr);
}

} // namespace

void install() {
    thread_local AltStack altstack;
    static std::once_flag installed;
    std::call_once(installed, &install_handlers);
}

} // namespace lockcheck::detail::faults

namespace faults = lockcheck::detail::faults;

extern "C" {

void exit(int status) noexcept {
    status = faults::exit_status("exit", status);
    faults::library_function("exit")(status);
    __builtin_unreachable();
}

void quick_exit(int status) noexcept {
    status = faults::exit_status("quick_exit", status);
    faults::library_function("quick_exit")(status);
    __builtin_unreachable();
}

void _exit(int status) {
    faults::exit_group(faults::exit_status("_exit", status));
}

void _Exit(int status) noexcept {
    faults::exit_group(faults::exit_status("_Exit", status));
}

} // extern "C"
