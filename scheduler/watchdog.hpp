// Watchdog: catches model code that runs for ever without reaching a scheduling point, in a
// loop of its own or waiting inside the C library. The scheduler bumps its thread's heartbeat
// whenever a task starts or stops running (two plain stores, no syscall); a background thread
// that sees a task run past the timeout interrupts that thread with a signal, and the
// execution reports a no-progress violation instead of the checker hanging. A task that
// cannot be interrupted ends the run from the watchdog's thread. Every thread that runs
// executions (--jobs) is watched on its own.
#pragma once

#include <atomic>
#include <cstdint>

namespace lockcheck::detail::watchdog {

// The calling thread's: odd while a task runs, even while the scheduler does; changed at every
// switch. Each call sets the parity rather than flipping it, so that an escape out of a task (a
// stack overflow caught while another task started it) cannot leave it inverted.
extern thread_local constinit std::atomic<std::uint64_t> heartbeat;

inline void enter_task() {
    heartbeat.store((heartbeat.load(std::memory_order_relaxed) | 1) + 2, std::memory_order_relaxed);
}
inline void leave_task() {
    heartbeat.store((heartbeat.load(std::memory_order_relaxed) & ~std::uint64_t{1}) + 2,
                    std::memory_order_relaxed);
}

// Starts the watchdog thread once (later calls only change the timeout) and watches the
// calling thread, which runs executions, until it exits. `on_timeout` runs in a signal handler
// on that thread, only where a jump out of the interrupted code is safe: in model code
// (`blocked` false), or where the C or C++ runtime waits in a system call (`blocked` true),
// never elsewhere inside it (never in malloc). If the task still runs a second timeout later,
// `on_stuck` runs on the watchdog's thread with what the thread last said it runs (see
// running()); it ends the process.
void arm(unsigned timeout_seconds, void (*on_timeout)(bool blocked),
         void (*on_stuck)(const void* running));

// Stops and joins the watchdog's thread until the next arm(): before a fork, so that the
// process has one thread and the child finds every lock (the allocator's among them) as that
// thread left it. Call only while no thread runs executions.
void pause();

// Tells the watchdog what the calling thread (armed) runs now; returns what it ran before.
const void* running(const void* what);

} // namespace lockcheck::detail::watchdog
