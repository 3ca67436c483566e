// Running work that a library may abort in a child process: Graphviz and the GTS library under
// it end the process with g_assert() on geometry they cannot handle, and a drawing must never
// take a run's verdict down with it. Not for anything whose effects the parent needs in memory.
#pragma once

#include <functional>
#include <string>

namespace lockcheck::detail {

// What became of work run in a child process.
struct ChildOutcome {
    bool ok = false; // it returned
    int signal = 0;  // the signal that killed it; 0 if it returned or threw
    // Why not, on one line: the message of what it threw, or the last line it wrote before the
    // signal ("Gts:ERROR:cdt.c:887:remove_intersected_edge: assertion failed: ...").
    std::string message;
};

// Runs `work` in a forked child and waits for it. What the child writes to stdout or stderr is
// kept for the outcome's message, not shown; its exit runs no destructor and flushes no stream of
// the parent's. The watchdog's thread is stopped first (watchdog::pause()), so that the process
// forks with one thread: call it while no thread runs executions.
ChildOutcome run_in_child(const std::function<void()>& work);

} // namespace lockcheck::detail
