// posix_spawn with stdout and stderr sent to temporary files, read back after the exit.
#include "lockcheck_binary.hpp"

#include <fstream>
#include <sstream>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CppUTest/TestHarness.h>

extern char** environ;

namespace lockcheck::testing {

namespace {

// A file that exists for the life of the object (CTest may run groups in parallel, so every
// run gets its own).
class TempFile {
  public:
    TempFile() {
        fd_ = mkstemp(path_);
        CHECK_TEXT(fd_ >= 0, "cannot create a temporary file");
    }
    ~TempFile() {
        close(fd_);
        unlink(path_);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    int fd() const { return fd_; }
    std::string contents() const {
        std::ifstream in(path_, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

  private:
    char path_[32] = "/tmp/lockcheck-test-XXXXXX";
    int fd_;
};

// Runs the program at `path` with `argv0` as its name and `args` after it.
Run spawn(const char* path, const std::string& argv0, const std::vector<std::string>& args) {
    TempFile out, err;
    std::vector<char*> argv{const_cast<char*>(argv0.c_str())};
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out.fd(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err.fd(), STDERR_FILENO);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, path, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    CHECK_TEXT(spawned == 0, (std::string("cannot start ") + path).c_str());

    int status = 0;
    CHECK_TEXT(waitpid(pid, &status, 0) == pid, "waitpid failed");
    Run run;
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.out = out.contents();
    run.err = err.contents();
    return run;
}

} // namespace

Run run_lockcheck(const std::vector<std::string>& args) {
    return run_lockcheck_as("lockcheck", args);
}

Run run_lockcheck_as(const std::string& argv0, const std::vector<std::string>& args) {
    return spawn(LOCKCHECK_BINARY, argv0, args);
}

Run run_binary(const char* binary, const std::vector<std::string>& args) {
    return spawn(binary, binary, args);
}

std::string text_before(const std::string& text, const std::string& marker) {
    return text.substr(0, text.find(marker));
}

std::vector<std::string> replay_arguments(const std::string& out) {
    const std::string prefix = "replay: lockcheck ";
    std::vector<std::string> words;
    const std::size_t at = out.find(prefix);
    if (at == std::string::npos) return words;
    const std::size_t begin = at + prefix.size();
    std::istringstream line(out.substr(begin, out.find('\n', begin) - begin));
    for (std::string w; line >> w;)
        words.push_back(w);
    return words;
}

bool is_one_line(const std::string& text) {
    return text.size() > 1 && text.find('\n') == text.size() - 1;
}

} // namespace lockcheck::testing
