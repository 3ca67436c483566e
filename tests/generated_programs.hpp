// Small random programs for the tests that hold one search to another (DPOR, the state cache,
// --jobs and checkpoints against DFS or against replay): 2-4 tasks; shared variables whose writes
// depend on what the task read, atomics, mutex-protected sections, a completion one task may wait
// for and another may signal. A program is its seed's: a failure names the seed to rerun it.
// Used by tests/test_dpor_generated.cpp in the test binary and by tests/generated_model.cpp, a
// lockcheck command whose model runs them.
#pragma once

#include <cstdint>
#include <vector>

namespace lockcheck::generated {

enum class Kind {
    read,
    write,
    plain_read,
    plain_write,
    atomic_inc,
    atomic_read,
    lock,
    unlock,
    wait,
    complete
};

struct Op {
    Kind kind;
    int target; // which variable, atomic, mutex
    int value;  // a write stores what the task last read plus this
};

using Program = std::vector<std::vector<Op>>; // one list of operations per task

// The program of `seed`. `racy`: some accesses are plain, and a critical section may nest the
// other lock (with keep_going, the searches must find the same data races and lockdep reports).
Program generate(std::uint64_t seed, bool racy = false);

// Makes the program's objects in the execution being set up, and a task per list of operations;
// `program` must outlive the execution.
void spawn_program(const Program& program);

} // namespace lockcheck::generated
