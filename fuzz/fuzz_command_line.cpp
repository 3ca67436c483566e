// libFuzzer target: the lockcheck command line, parsed and validated exactly as the binary does
// (lockcheck_command at Stage::validate: no search, no file read or written). The input is one
// argument per line after argv[0] "lockcheck" (a last line break ends the last argument). A
// command line is valid (exit 0, nothing on stderr) or an input error: exit 2 and one line.
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/check_command.hpp"
#include "cli/lockcheck_command.hpp"
#include "properties.hpp"

using lockcheck::detail::fuzz::require;

namespace {

std::vector<std::string> arguments(const std::string& text) {
    std::vector<std::string> words{"lockcheck"};
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        words.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return words;
}

// Where std::cout and std::cerr go during one run: `help` and `list` print, and the error
// line is what is checked.
struct CapturedOutput {
    std::ostringstream out, err;
    std::streambuf* const cout = std::cout.rdbuf(out.rdbuf());
    std::streambuf* const cerr = std::cerr.rdbuf(err.rdbuf());
    ~CapturedOutput() {
        std::cout.rdbuf(cout);
        std::cerr.rdbuf(cerr);
    }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> words =
        arguments(std::string(reinterpret_cast<const char*>(data), size));
    std::vector<char*> argv;
    for (std::string& word : words)
        argv.push_back(word.data());
    argv.push_back(nullptr);
    CapturedOutput output;
    const int code = lockcheck::detail::cli::lockcheck_command(
        static_cast<int>(words.size()), argv.data(), lockcheck::detail::cli::Stage::validate);
    const std::string err = output.err.str();
    if (code == lockcheck::detail::cli::kExitOk) {
        require(err.empty(), "a valid command line printed on stderr", err);
        return 0;
    }
    require(code == lockcheck::detail::cli::kExitUsage, "a command line exited neither 0 nor 2",
            err);
    require(err.size() > 1 && err.back() == '\n', "an input error is not one line", err);
    lockcheck::detail::fuzz::require_one_line(std::string_view(err).substr(0, err.size() - 1));
    return 0;
}
