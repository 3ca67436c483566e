// main() of the lockcheck binary (and of a user's model binary, lockcheck_add_model): the
// command line itself is lockcheck_command (main.cpp), which the fuzz target links without it.
#include <cstdio>
#include <new>

#include "check_command.hpp"
#include "lockcheck_command.hpp"

int main(int argc, char** argv) {
    try {
        return lockcheck::detail::cli::lockcheck_command(argc, argv,
                                                         lockcheck::detail::cli::Stage::run);
    } catch (const std::bad_alloc&) {
        // A search that runs out of memory stops and prints what it found (kOutOfMemory); this
        // is what is left when even that could not be printed. fputs to unbuffered stderr
        // allocates nothing.
        std::fputs("lockcheck: out of memory: the run ends here, incomplete\n", stderr);
        return lockcheck::detail::cli::kExitIncomplete;
    }
}
