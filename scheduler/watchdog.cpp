// The watchdog thread and its signal: SIGUSR2, sent only to a thread running executions whose
// task ran too long.
#include "watchdog.hpp"

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <link.h>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

namespace lockcheck::detail::watchdog {

thread_local constinit std::atomic<std::uint64_t> heartbeat{0};

namespace {

std::atomic<unsigned> g_timeout{10};
void (*g_on_timeout)(bool) = nullptr;
void (*g_on_stuck)(const void*) = nullptr;

// A thread that runs executions, from its first arm() to its exit.
struct Runner {
    pthread_t thread;
    const std::atomic<std::uint64_t>* heartbeat;
    std::atomic<const void*> running{nullptr};
    std::uint64_t last = 0; // the heartbeat as the watchdog last saw it
    std::chrono::steady_clock::time_point since{};
    Runner();
    ~Runner();
};

std::mutex g_runners_mutex;
std::vector<Runner*> g_runners;

Runner::Runner() : thread(pthread_self()), heartbeat(&watchdog::heartbeat) {
    std::lock_guard lock(g_runners_mutex);
    last = heartbeat->load(std::memory_order_relaxed);
    since = std::chrono::steady_clock::now();
    g_runners.push_back(this);
}

Runner::~Runner() {
    std::lock_guard lock(g_runners_mutex);
    std::erase(g_runners, this);
}

Runner& this_runner() {
    thread_local Runner runner;
    return runner;
}

// The thread, stopped and joined at exit: a thread still running then leaves its storage
// behind, which valgrind reports as possibly lost. Its ticks wait on `g_stop` so that the stop
// does not wait for one to end.
std::thread g_thread;
std::mutex g_stop_mutex;
std::condition_variable g_stop;
bool g_stopping = false;
// Whether the thread runs: arm() starts it, pause() and the exit stop it (under g_start_mutex).
std::atomic<bool> g_watching{false};
std::mutex g_start_mutex;
pid_t g_process = 0; // a child forked by a library has no watchdog thread to join

// Text ranges of the runtime libraries: jumping out of them (out of malloc holding its lock)
// would wedge the checker, so an interrupt landing there waits for the next tick.
struct Range {
    std::uintptr_t begin, end;
};
std::vector<Range> g_runtime;

int collect_runtime(dl_phdr_info* info, std::size_t, void*) {
    const char* name = info->dlpi_name;
    if (!name || !*name) return 0; // the executable itself: model code lives there
    if (!std::strstr(name, "libc.so") && !std::strstr(name, "libstdc++") &&
        !std::strstr(name, "libgcc_s") && !std::strstr(name, "ld-linux") &&
        !std::strstr(name, "libm.so") && !std::strstr(name, "libjemalloc"))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
            g_runtime.push_back(
                {info->dlpi_addr + ph.p_vaddr, info->dlpi_addr + ph.p_vaddr + ph.p_memsz});
    }
    return 0;
}

bool in_runtime(std::uintptr_t pc) {
    for (const Range& r : g_runtime)
        if (pc >= r.begin && pc < r.end) return true;
    return false;
}

// Whether the interrupted code waits in a system call: the kernel rewound it to its syscall
// instruction to restart the call after the handler, or the call just failed with EINTR. A
// task blocked inside the C library (a sleep, a pthread mutex another task holds) sits there.
// Blocking calls hold none of the library's own locks while they wait, except a stdio stream's
// (recursive, and owned by this thread, so lockcheck can still print): jumping out is safe.
bool in_system_call(const mcontext_t& mc) {
    const auto pc = static_cast<std::uintptr_t>(mc.gregs[REG_RIP]);
    auto syscall_at = [](std::uintptr_t at) {
        const auto* code = reinterpret_cast<const unsigned char*>(at);
        return code[0] == 0x0f && code[1] == 0x05; // x86-64 `syscall`
    };
    return syscall_at(pc) ||
           (mc.gregs[REG_RAX] == -EINTR && in_runtime(pc - 2) && syscall_at(pc - 2));
}

void on_signal(int, siginfo_t*, void* context) {
    const mcontext_t& mc = static_cast<ucontext_t*>(context)->uc_mcontext;
    const auto pc = static_cast<std::uintptr_t>(mc.gregs[REG_RIP]);
    if (!g_on_timeout) return;
    if (!in_runtime(pc))
        g_on_timeout(false);
    else if (in_system_call(mc))
        g_on_timeout(true);
}

// One tick for one thread: a task that has run since the last switch for a timeout is
// interrupted.
void check(Runner& r) {
    using namespace std::chrono;
    const std::uint64_t now = r.heartbeat->load(std::memory_order_relaxed);
    if (now != r.last || (now & 1) == 0) {
        r.last = now;
        r.since = steady_clock::now();
        return;
    }
    const auto stuck = steady_clock::now() - r.since;
    const seconds timeout(g_timeout.load());
    // Every signal came at a bad time.
    if (stuck >= 2 * timeout && g_on_stuck) g_on_stuck(r.running.load());
    if (stuck >= timeout) pthread_kill(r.thread, SIGUSR2);
}

void watch() {
    for (;;) {
        {
            std::unique_lock lock(g_stop_mutex);
            if (g_stop.wait_for(lock, std::chrono::milliseconds(100), [] { return g_stopping; }))
                return;
        }
        // A thread deregisters under the lock before it exits: never signalled after.
        std::lock_guard lock(g_runners_mutex);
        for (Runner* r : g_runners)
            check(*r);
    }
}

// Stops and joins the thread, if this process runs it; under g_start_mutex.
void stop_thread() {
    if (getpid() != g_process || !g_watching.load()) return;
    {
        std::lock_guard lock(g_stop_mutex);
        g_stopping = true;
    }
    g_stop.notify_one();
    g_thread.join();
    g_stopping = false;
    g_watching.store(false);
}

void stop_at_exit() {
    std::lock_guard lock(g_start_mutex);
    stop_thread();
}

void start(void (*on_timeout)(bool), void (*on_stuck)(const void*)) {
    g_on_timeout = on_timeout;
    g_on_stuck = on_stuck;
    dl_iterate_phdr(&collect_runtime, nullptr);
    struct sigaction sa {};
    sa.sa_sigaction = &on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, nullptr);
    g_process = getpid();
    std::atexit(&stop_at_exit);
}

} // namespace

void pause() {
    std::lock_guard lock(g_start_mutex);
    stop_thread();
}

void arm(unsigned timeout_seconds, void (*on_timeout)(bool), void (*on_stuck)(const void*)) {
    // Stored only when it changes: every thread arms before each execution.
    if (g_timeout.load(std::memory_order_relaxed) != timeout_seconds)
        g_timeout.store(timeout_seconds);
    (void)this_runner();
    static std::once_flag started;
    std::call_once(started, [on_timeout, on_stuck] { start(on_timeout, on_stuck); });
    // Started again after a pause(): one load of a flag that stays set.
    if (!g_watching.load(std::memory_order_acquire)) [[unlikely]] {
        std::lock_guard lock(g_start_mutex);
        if (!g_watching.load()) {
            g_thread = std::thread(&watch);
            g_watching.store(true, std::memory_order_release);
        }
    }
}

const void* running(const void* what) {
    return this_runner().running.exchange(what);
}

} // namespace lockcheck::detail::watchdog
