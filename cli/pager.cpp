// Runs the pager with popen(), as a shell would run $PAGER, and writes the kept output to it.
#include "pager.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace lockcheck::detail::cli {

std::string pager_command() {
    for (const char* name : {"LOCKCHECK_PAGER", "PAGER"})
        if (const char* value = std::getenv(name)) {
            const std::string command = value;
            return command == "cat" ? "" : command;
        }
    return "less";
}

std::size_t output_columns() {
    if (!isatty(STDOUT_FILENO)) return 0;
    if (const char* columns = std::getenv("COLUMNS")) {
        char* end = nullptr;
        const unsigned long n = std::strtoul(columns, &end, 10);
        if (end != columns && *end == '\0' && n > 0 && n < 100000) return n;
    }
    winsize size{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0) return 0;
    return size.ws_col;
}

Pager::Pager(bool on) {
    if (on) command_ = pager_command();
}

Pager::~Pager() {
    show();
}

void Pager::show() {
    const std::string text = kept_.str();
    kept_.str("");
    if (text.empty()) return;
    std::cout.flush();
    setenv("LESS", "FRX", /*overwrite=*/0);
    // A user who quits the pager before the end closes the pipe: that is not an error.
    const auto old_handler = std::signal(SIGPIPE, SIG_IGN);
    FILE* pager = popen(command_.c_str(), "w");
    if (!pager) {
        std::signal(SIGPIPE, old_handler);
        std::cout << text << std::flush;
        return;
    }
    std::fwrite(text.data(), 1, text.size(), pager);
    // A pager that cannot run (not installed: the shell exits 127 before reading anything)
    // must not swallow the output.
    const int status = pclose(pager);
    std::signal(SIGPIPE, old_handler);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) std::cout << text << std::flush;
}

} // namespace lockcheck::detail::cli
