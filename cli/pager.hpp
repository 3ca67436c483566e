// Long output on a terminal goes through a pager, as git's does: what a run prints is kept
// until it ends (the progress line has stderr to itself meanwhile), then shown through
// $LOCKCHECK_PAGER, else $PAGER, else `less`, with LESS=FRX unless LESS is set (-F: quit at
// once if it fits on one screen, -R: keep the colours, -X: leave it on the screen).
#pragma once

#include <iostream>
#include <sstream>
#include <string>

namespace lockcheck::detail::cli {

// The pager command the environment asks for; empty for none (PAGER set empty, or `cat`).
std::string pager_command();

// The columns of the terminal stdout is (0: stdout is not a terminal): $COLUMNS if it is a
// number, else what the terminal says.
std::size_t output_columns();

class Pager {
  public:
    // `on`: stdout is a terminal and --no-pager was not given.
    explicit Pager(bool on);
    ~Pager();
    Pager(const Pager&) = delete;
    Pager& operator=(const Pager&) = delete;

    // Where the output goes: kept for the pager, or straight to stdout.
    std::ostream& out() { return command_.empty() ? std::cout : kept_; }
    // Shows what was kept through the pager (on stdout if it cannot start). Once; the
    // destructor shows what is left.
    void show();

  private:
    std::string command_; // empty: no pager
    std::ostringstream kept_;
};

} // namespace lockcheck::detail::cli
