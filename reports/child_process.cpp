// Forking a child for work that may abort, and reading back why it failed.
#include "child_process.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scheduler/watchdog.hpp"

namespace lockcheck::detail {

namespace {

void write_all(int fd, const std::string& text) {
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

std::string read_all(int fd) {
    std::string text;
    char buffer[4096];
    for (;;) {
        const ssize_t n = read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return text;
        text.append(buffer, static_cast<std::size_t>(n));
    }
}

// The last non-empty line of what the child wrote: glib prints "**" and the assertion on two.
std::string last_line(const std::string& text) {
    std::size_t end = text.find_last_not_of(" \r\n");
    if (end == std::string::npos) return "";
    const std::size_t begin = text.rfind('\n', end);
    return text.substr(begin == std::string::npos ? 0 : begin + 1,
                       end + 1 - (begin == std::string::npos ? 0 : begin + 1));
}

// In the child: runs the work and exits without returning to the parent's code.
[[noreturn]] void child(const std::function<void()>& work, int out) {
    // Both streams: glib says "Bail out!" on stdout before it aborts, which is not the run's.
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
    // A library's abort() is expected here and reported: no core file beside the user's.
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    int code = 0;
    try {
        work();
    } catch (const std::exception& e) {
        write_all(STDERR_FILENO, std::string("\n") + e.what() + "\n");
        code = 1;
    } catch (...) {
        write_all(STDERR_FILENO, "\nan exception that is not a std::exception\n");
        code = 1;
    }
    _exit(code);
}

} // namespace

ChildOutcome run_in_child(const std::function<void()>& work) {
    ChildOutcome outcome;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        outcome.message = std::string("cannot make a pipe: ") + std::strerror(errno);
        return outcome;
    }
    // Forked with one thread only: another's lock held at the fork (the allocator's, under a
    // sanitizer runtime that takes none around fork()) would never be released in the child.
    watchdog::pause();
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child(work, fds[1]);
    }
    close(fds[1]);
    if (pid < 0) {
        outcome.message = std::string("cannot fork: ") + std::strerror(errno);
        close(fds[0]);
        return outcome;
    }
    // Read to the end before waiting: a child that fills the pipe would wait for us.
    const std::string said = read_all(fds[0]);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            outcome.message = std::string("cannot wait for the child: ") + std::strerror(errno);
            return outcome;
        }
    outcome.message = last_line(said);
    if (WIFSIGNALED(status)) {
        outcome.signal = WTERMSIG(status);
        const char* name = sigabbrev_np(outcome.signal);
        outcome.message = "died of SIG" +
                          std::string(name ? name : std::to_string(outcome.signal)) +
                          (outcome.message.empty() ? "" : ": " + outcome.message);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        outcome.ok = true;
        outcome.message.clear();
    } else if (outcome.message.empty()) {
        outcome.message = "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return outcome;
}

} // namespace lockcheck::detail
