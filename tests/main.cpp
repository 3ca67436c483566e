// The test runner: CppUTest's command line (`-sg GROUP` runs one group, as CTest does).
// CppUTest's leak detector is off: the engine keeps fiber stacks and interned names for the
// life of the process by design, which its per-test new/delete accounting calls leaks.
#include <CppUTest/CommandLineTestRunner.h>
#include <CppUTest/MemoryLeakWarningPlugin.h>

int main(int argc, char** argv) {
    MemoryLeakWarningPlugin::turnOffNewDeleteOverloads();
    return CommandLineTestRunner::RunAllTests(argc, argv);
}
