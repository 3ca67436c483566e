// The whole lockcheck command line (`lockcheck list`, `lockcheck MODEL [options]`, `replay`,
// `check-all`, `help`) as one function, so that a fuzz target can parse and validate argv
// exactly as the binary does without running anything (fuzz/fuzz_command_line.cpp).
#pragma once

namespace lockcheck::detail::cli {

// How far lockcheck_command goes. `validate` stops once the command line is known to be
// valid, before anything reads or writes a file, installs a signal handler or runs a model;
// `list`, `help`, `--help` and `--version` still print, as they run nothing.
enum class Stage { validate, run };

// Parses argv as the lockcheck binary does and, at Stage::run, does what it asks. Input errors
// are one line on std::cerr; returns the process exit code (0 for a valid command line at
// Stage::validate).
int lockcheck_command(int argc, char** argv, Stage stage);

} // namespace lockcheck::detail::cli
