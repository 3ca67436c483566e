// Temporary directories and whole-file reads for the tests.
#include "temp_files.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

#include <CppUTest/TestHarness.h>

namespace lockcheck::detail::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
    char path[] = "/tmp/lockcheck-test-dir-XXXXXX";
    CHECK_TEXT(mkdtemp(path) != nullptr, "cannot create a temporary directory");
    path_ = path;
}

TempDir::~TempDir() {
    fs::remove_all(path_);
}

std::string TempDir::operator/(const std::string& name) const {
    return (fs::path(path_) / name).string();
}

std::string TempDir::listing(const std::string& name) const {
    std::vector<std::string> names;
    for (const fs::directory_entry& e : fs::directory_iterator(fs::path(path_) / name))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    std::string text;
    for (const std::string& n : names)
        text += n + " ";
    return text;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace lockcheck::detail::testing
