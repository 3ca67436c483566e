// faulty: a model that misbehaves on purpose, one way per variant, in a lockcheck binary of its
// own (lockcheck_faulty): a crash signal, an exit of the process, a task blocked inside the C
// library. The tests of tests/test_model_faults.cpp run that binary, as only a process that
// survives its model (or ends it with the right report) shows that lockcheck does.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <string>
#include <unistd.h>
#include <vector>

#include <lockcheck/lockcheck.hpp>

namespace faulty {

using namespace lockcheck;
using namespace lockcheck::detail;

enum Fault : std::size_t {
    null_deref,
    divide_by_zero,
    abort_call,
    exit_call,
    quick_exit_call,
    underscore_exit_call,
    sleep_loop,
    std_mutex,
    libc_spin,
    set_up_crash, // outside any task: lockcheck cannot tell it from a bug of its own
    set_up_exit,
    allocate_forever,
    leak_forever,
    too_many_tasks,       // spawns one task more than lockcheck runs, at set-up
    too_many_tasks_later, // the same, from a running task
    loud_locals, // a task's local tells stderr when it is destroyed (not a fault: a witness)
};

struct Vars {
    shared<int> x{"x"};
    shared<int> y{"y"};
    shared<int> missed{"missed"};
};

// Volatile, so that the compiler cannot see the fault coming and make it something else.
int* volatile g_null = nullptr;
volatile int g_one = 1;
volatile int g_zero = 0;

// What an allocation that never ends takes at a time: untouched, so that it costs address space
// (the tests lower RLIMIT_AS), not memory.
constexpr std::size_t kChunk = std::size_t{1} << 20;
char* volatile g_leaked = nullptr;

// The faults are this model's on purpose: in a build with UBSan (the asan preset) they must
// reach the processor as a user's would, not be stopped by the sanitizer before lockcheck
// sees them.
__attribute__((no_sanitize("undefined"))) void misbehave(Fault fault) {
    switch (fault) {
    case null_deref:
        *g_null = 1;
        break;
    case divide_by_zero:
        g_zero = g_one / g_zero;
        break;
    case abort_call:
        std::abort();
    case exit_call:
        std::exit(0);
    case quick_exit_call:
        std::quick_exit(0);
    case underscore_exit_call:
        _exit(0);
    case sleep_loop:
        for (;;)
            usleep(1000);
    case allocate_forever: // until operator new throws; the unwinding frees it all
        for (std::vector<std::unique_ptr<char[]>> chunks;;)
            chunks.emplace_back(new char[kChunk]);
    case leak_forever: // every byte malloc() has, kept: what lockcheck allocates next fails
        // (model code's `new` has the execution's arena only, which ends with it)
        for (std::size_t size = kChunk; size > 0;) {
            char* p = static_cast<char*>(std::malloc(size));
            g_leaked = p;
            if (!p) size /= 2;
        }
        break;
    case std_mutex:
    case libc_spin:
    case set_up_crash:
    case set_up_exit:
    case too_many_tasks:
    case too_many_tasks_later:
    case loud_locals:
        break; // these misbehave elsewhere
    }
}

// A lock of the C++ or C library held across a scheduling point: where b takes its step 2
// while a holds it, b blocks in it (on the thread a waits on to be scheduled again).
template <class Lock> void lock_across_a_step(Vars& v) {
    Lock& lock = this_execution().make<Lock>();
    for (const char* name : {"a", "b"})
        spawn(name, [&v, &lock] {
            WRITE_ONCE(v.y, 1);
            lock.lock();
            WRITE_ONCE(v.x, 1);
            lock.unlock();
        });
}

struct SpinLock {
    SpinLock() { pthread_spin_init(&word, PTHREAD_PROCESS_PRIVATE); }
    void lock() { pthread_spin_lock(&word); }
    void unlock() { pthread_spin_unlock(&word); }
    pthread_spinlock_t word;
};

// A local whose destruction shows on stderr: where an execution ends with its task mid-code,
// whether the teardown unwound the task (the destructor runs) or dropped it (it does not).
struct Loud {
    Loud() = default;
    Loud(const Loud&) = delete;
    Loud& operator=(const Loud&) = delete;
    ~Loud() { std::fputs("destroyed\n", stderr); }
};

// `count` tasks that each store to y.
void spawn_tasks(Vars& v, int count) {
    for (int i = 0; i < count; ++i)
        spawn("task" + std::to_string(i), [&v] { WRITE_ONCE(v.y, 1); });
}

void setup(std::size_t variant, const ParameterValues&) {
    auto& v = this_execution().make<Vars>();
    const auto fault = static_cast<Fault>(variant);
    if (fault == too_many_tasks) return spawn_tasks(v, kMaxTasks + 1);
    if (fault == too_many_tasks_later)
        return spawn("spawner", [&v] {
            WRITE_ONCE(v.x, 1);
            spawn_tasks(v, kMaxTasks);
        });
    if (fault == loud_locals) {
        for (const char* name : {"a", "b"})
            spawn(name, [&v] {
                const Loud local;
                WRITE_ONCE(v.x, 1);
                WRITE_ONCE(v.y, 1);
            });
        return;
    }
    if (fault == std_mutex) return lock_across_a_step<std::mutex>(v);
    if (fault == libc_spin) return lock_across_a_step<SpinLock>(v);
    if (fault == set_up_crash) misbehave(null_deref);
    if (fault == set_up_exit) std::exit(0);
    // The reader misbehaves only where it sees the writer's first store, and the final check
    // fails only where it does not: two findings, the second only if the search goes on.
    spawn("writer", [&v] {
        WRITE_ONCE(v.x, 1);
        WRITE_ONCE(v.y, 1);
    });
    spawn("reader", [&v, fault] {
        if (READ_ONCE(v.x)) misbehave(fault);
        WRITE_ONCE(v.missed, 1);
    });
    final_check("the reader saw the store", [&v] { return v.missed.peek() == 0; });
}

Protocol model() {
    auto fault = [](const char* name, const char* summary, ViolationKind kind,
                    const char* property) {
        return Variant{name, summary, Expectation::violation(kind, property)};
    };
    return Protocol{
        .name = "faulty",
        .summary = "model code that crashes, exits or blocks inside the C library",
        .variants =
            {
                fault("null-deref", "a store through a null pointer", ViolationKind::crash,
                      "crash"),
                fault("divide-by-zero", "an integer division by zero", ViolationKind::crash,
                      "crash"),
                fault("abort", "abort()", ViolationKind::crash, "crash"),
                fault("exit", "exit(0)", ViolationKind::exit, "exit"),
                fault("quick-exit", "quick_exit(0)", ViolationKind::exit, "exit"),
                fault("_exit", "_exit(0)", ViolationKind::exit, "exit"),
                fault("sleep-loop", "usleep() in an endless loop", ViolationKind::no_progress,
                      "no-progress"),
                fault("std-mutex", "a std::mutex held across a scheduling point",
                      ViolationKind::no_progress, "no-progress"),
                fault("libc-spin", "a pthread spinlock held across a scheduling point",
                      ViolationKind::no_progress, "no-progress"),
                fault("set-up-crash", "a store through a null pointer in the set-up",
                      ViolationKind::crash, "crash"),
                fault("set-up-exit", "exit(0) in the set-up", ViolationKind::exit, "exit"),
                fault("allocate-forever", "operator new in an endless loop, freed by unwinding",
                      ViolationKind::exception, "exception"),
                fault("leak-forever", "takes every byte of memory there is and goes on",
                      ViolationKind::final_check, "the reader saw the store"),
                Variant{"too-many-tasks", "65 tasks spawned at set-up", Expectation::verified()},
                Variant{"too-many-tasks-later", "a task that spawns 64 more",
                        Expectation::verified()},
                Variant{"loud-locals", "tasks whose local prints when it is destroyed",
                        Expectation::verified()},
            },
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(model);

} // namespace faulty
