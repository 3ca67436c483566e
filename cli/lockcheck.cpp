// main() of the lockcheck binary (and of a user's model binary, lockcheck_add_model): the
// command line itself is lockcheck_command (main.cpp), which the fuzz target links without it.
#include "lockcheck_command.hpp"

int main(int argc, char** argv) {
    return lockcheck::cli::lockcheck_command(argc, argv, lockcheck::cli::Stage::run);
}
