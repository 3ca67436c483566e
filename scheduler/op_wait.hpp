// Named operations of a model's tasks (lockcheck::op) and how long each waited: the steps
// other tasks ran while it could not go on (blocked on a lock, a wait queue, a completion; in a
// spin loop; retrying after a failed trylock). The engine's analogue of a benchmark's latency
// per operation, counted in steps so that it is the same on every machine.
#pragma once

#include <cstdint>
#include <string>

namespace lockcheck::detail {

// The waits of one named operation, over the instances that finished in an execution.
struct OpWait {
    const char* name = nullptr; // static storage: the model's string literal
    std::uint64_t count = 0;    // instances that finished
    std::uint64_t total = 0;    // steps waited, summed over them
    std::uint32_t worst = 0;    // the longest wait of one instance
    void record(std::uint32_t waited) {
        ++count;
        total += waited;
        if (waited > worst) worst = waited;
    }
};

// An operation a task has begun and not yet ended.
struct OpenOp {
    const char* name = nullptr;
    std::uint64_t waited_before = 0; // the task's steps waited when it began
};

// A latency bound: no instance of the operation `op` may wait more than `steps` steps
// (--max-wait OP=K, or the model's own max_wait()). Checked when an instance ends.
struct WaitBound {
    std::string op;
    std::uint32_t steps = 0;
    bool declared = false; // by the model (max_wait()), not on the command line
};

} // namespace lockcheck::detail
