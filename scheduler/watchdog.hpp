// Watchdog: catches model code that loops for ever without reaching a scheduling point.
// The scheduler bumps a heartbeat whenever a task starts or stops running (two plain stores, no
// syscall); a background thread that sees a task run past the timeout interrupts it with a signal,
// and the execution reports a no-progress violation instead of the checker hanging.
#pragma once

#include <atomic>
#include <cstdint>

namespace lockcheck::watchdog {

// Odd while a task runs, even while the scheduler does; changed at every switch. Each call
// sets the parity rather than flipping it, so that an escape out of a task (a stack overflow
// caught while another task started it) cannot leave it inverted.
extern std::atomic<std::uint64_t> heartbeat;

inline void enter_task() {
    heartbeat.store((heartbeat.load(std::memory_order_relaxed) | 1) + 2, std::memory_order_relaxed);
}
inline void leave_task() {
    heartbeat.store((heartbeat.load(std::memory_order_relaxed) & ~std::uint64_t{1}) + 2,
                    std::memory_order_relaxed);
}

// Starts the watchdog thread once (later calls only change the timeout) for the calling
// thread, which runs executions. `on_timeout` runs in a signal handler on that thread, only
// when the interrupted code is not inside the C or C++ runtime (never in malloc).
void arm(unsigned timeout_seconds, void (*on_timeout)());

} // namespace lockcheck::watchdog
