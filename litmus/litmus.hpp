// Litmus tests as lockcheck models: the kernel's own (tools/memory-model/litmus-tests,
// Documentation/litmus-tests) and the classic shapes, each written with the model API and
// carrying LKMM's verdict from the test's header. A test's `exists` clause becomes a final
// check that the clause does not hold, so "Sometimes" is a violation of it and "Never" a
// verified run. A family of tests is one model, each test a variant.
#pragma once

#include <functional>
#include <string>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::litmus {

// What a test's initial state block sets beyond zeros: x and z, and what the pointer p points
// to ('x', 'z'; 0: NULL).
struct Initial {
    int x = 0;
    int z = 0;
    char p = 0;
};

// The locations a litmus test uses, all zero at the start unless the test says otherwise, and
// the registers its threads leave results in.
struct Memory {
    explicit Memory(const Initial& init = {})
        : x("x", init.x), z("z", init.z), p("p", init.p == 'x'   ? &x
                                                 : init.p == 'z' ? &z
                                                                 : nullptr) {}
    shared<int> x, y{"y"}, z;
    // The RCU tests' pointer (their `int **y`, named p here beside the int y).
    shared<shared<int>*> p;
    shared<int> z1{"z1"}, z2{"z2"}; // dep+plain's scratch locations
    atomic_t v{"v"};
    refcount_t ref{"ref", 2}; // two references
    struct completion done {
        "done"
    };
    spinlock_t s{"s"}, t{"t"};
    wait_queue_head_t wq{"wq"};
    // r[P][i]: register ri of thread Pi, as the exists clause names it (1:r0 is r[1][0]).
    int r[4][5] = {};
};

using Thread = std::function<void(Memory& m, int* r)>;

enum class Result : std::uint8_t { never, sometimes };

struct Test {
    std::string name;    // the kernel's file name without .litmus, or the shape's
    const char* summary; // one line
    Result lkmm;         // the header's "Result:" (LKMM's verdict, herd7's)
    std::vector<Thread> threads;
    const char* exists;             // the clause, as the test writes it
    bool (*holds)(const Memory& m); // whether it holds at the end
    Result sc = Result::never;      // under sequential consistency
    void (*init)(Memory& m) = nullptr;
    // What "Sometimes" is when it is no outcome of the exists clause but what a task does with
    // it (a sleeper never woken): that violation's kind and property.
    ViolationKind kind = ViolationKind::final_check;
    const char* property = nullptr;
    Initial initial{};
};

// `test`, with the initial state `init` (a test written as an aggregate cannot mix in a
// designated field).
inline Test with_initial(Test test, Initial init) {
    test.initial = init;
    return test;
}

// A register holding a pointer, as the exists clause compares it: 'x' or 'z' for &x or &z.
int pointer_register(const Memory& m, const shared<int>* p);

// The model of a family of tests, one variant each, with its verdicts under sc and lkmm.
Protocol family(std::string name, std::string summary, const std::vector<Test>& tests);

} // namespace lockcheck::litmus
