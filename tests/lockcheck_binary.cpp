// posix_spawn with stdout and stderr sent to temporary files, read back after the exit (or
// stderr to a pseudo-terminal, read as it comes, and a signal sent once it shows a given text);
// the JSON Schema check runs
// tests/validate_json.py the same way, or keeps the documents for the suite's last test to
// check together.
#include "lockcheck_binary.hpp"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <pty.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CppUTest/TestHarness.h>

extern char** environ;

namespace lockcheck::detail::testing {

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

// Starts the program at `path`, named `argv0`, with `args`, its stdout and stderr on those
// descriptors.
pid_t spawn(const char* path, const std::string& argv0, const std::vector<std::string>& args,
            int out, int err) {
    std::vector<char*> argv{const_cast<char*>(argv0.c_str())};
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err, STDERR_FILENO);
    pid_t pid = 0;
    const int spawned = posix_spawnp(&pid, path, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    CHECK_TEXT(spawned == 0, (std::string("cannot start ") + path).c_str());
    return pid;
}

// Its exit code once it is over; 128 + the signal that killed it.
int exit_code(pid_t pid) {
    int status = 0;
    CHECK_TEXT(waitpid(pid, &status, 0) == pid, "waitpid failed");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs the program at `path`, named `argv0`.
Run run_process(const char* path, const std::string& argv0, const std::vector<std::string>& args) {
    TempFile out, err;
    const pid_t pid = spawn(path, argv0, args, out.fd(), err.fd());
    Run run;
    run.exit_code = exit_code(pid);
    run.out = out.contents();
    run.err = err.contents();
    return run;
}

} // namespace

Run run_lockcheck(const std::vector<std::string>& args) {
    const Run run = run_process(LOCKCHECK_BINARY, "lockcheck", args);
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--json") keep_for_schema_check(args[i + 1]);
    return run;
}

Run run_program(const std::vector<std::string>& argv) {
    return run_process(argv[0].c_str(), argv[0], {argv.begin() + 1, argv.end()});
}

void keep_for_schema_check(const std::string& path) {
    namespace fs = std::filesystem;
    if (!fs::is_regular_file(path)) return;
    // Groups run in parallel, each in a process of its own: the pid and a count make the name.
    static unsigned kept = 0;
    const fs::path dir = LOCKCHECK_JSON_OUTPUTS;
    fs::create_directories(dir);
    fs::copy_file(path,
                  dir / (std::to_string(::getpid()) + "-" + std::to_string(++kept) + "-" +
                         fs::path(path).filename().string()),
                  fs::copy_options::overwrite_existing);
}

std::string schema_errors(const std::vector<std::string>& json_files) {
    std::vector<std::string> argv{"python3", LOCKCHECK_SOURCE_DIR "/tests/validate_json.py",
                                  LOCKCHECK_SOURCE_DIR "/docs"};
    argv.insert(argv.end(), json_files.begin(), json_files.end());
    const Run run = run_program(argv);
    if (run.exit_code == 0) return "";
    return "validate_json.py exited " + std::to_string(run.exit_code) + " (is python3-jsonschema " +
           "installed? tools/setup.sh installs it):\n" + run.out + run.err;
}

Run run_lockcheck_as(const std::string& argv0, const std::vector<std::string>& args) {
    return run_process(LOCKCHECK_BINARY, argv0, args);
}

Run run_binary(const char* binary, const std::vector<std::string>& args) {
    return run_process(binary, binary, args);
}

namespace {

// run_lockcheck_on_terminal, sending `signal` (if any) once the terminal has shown `ready`.
Run run_on_terminal(const std::vector<std::string>& args, unsigned short columns, bool stdout_too,
                    int signal, const std::string& ready) {
    TempFile out;
    int terminal = -1, device = -1;
    winsize size{};
    size.ws_row = 24;
    size.ws_col = columns;
    CHECK_TEXT(openpty(&terminal, &device, nullptr, nullptr, &size) == 0, "openpty failed");
    const pid_t pid =
        spawn(LOCKCHECK_BINARY, "lockcheck", args, stdout_too ? device : out.fd(), device);
    close(device);
    Run run;
    // Read as it comes (a full terminal would stall the process); EIO once it has closed it.
    char buffer[4096];
    bool sent = signal == 0;
    for (ssize_t n; (n = read(terminal, buffer, sizeof buffer)) > 0;) {
        run.err.append(buffer, static_cast<std::size_t>(n));
        if (!sent && run.err.find(ready) != std::string::npos) sent = kill(pid, signal) == 0;
    }
    close(terminal);
    run.exit_code = exit_code(pid);
    run.out = out.contents();
    return run;
}

} // namespace

Run run_lockcheck_on_terminal(const std::vector<std::string>& args, unsigned short columns,
                              bool stdout_too) {
    return run_on_terminal(args, columns, stdout_too, 0, "");
}

Run run_lockcheck_interrupted(const std::vector<std::string>& args, int signal,
                              const std::string& ready) {
    return run_on_terminal(args, 100, false, signal, ready);
}

std::string summary_row(const std::string& out, const std::string& key) {
    const std::string start = key + std::string(14 - key.size(), ' ');
    const std::size_t at = out.find("\n" + start);
    if (at == std::string::npos) return "";
    const std::size_t from = at + 1 + start.size();
    return out.substr(from, out.find('\n', from) - from);
}

std::string before_timing(const std::string& out) {
    return text_before(out, "\ncheckpoints   ");
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

Run expect_same_output_on_one_and_two_threads(const std::vector<std::string>& args) {
    std::vector<std::string> one = args, two = args;
    one.insert(one.end(), {"--jobs", "1"});
    two.insert(two.end(), {"-j", "2"});
    const Run a = run_lockcheck(one);
    const Run b = run_lockcheck(two);
    CHECK_EQUAL(a.exit_code, b.exit_code);
    STRCMP_EQUAL(a.out.c_str(), b.out.c_str());
    return a;
}

} // namespace lockcheck::detail::testing
