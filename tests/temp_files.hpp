// Files for the tests that run the binary: a directory of their own, removed after (CTest runs
// groups in parallel), and a file's whole contents.
#pragma once

#include <string>

namespace lockcheck::detail::testing {

class TempDir {
  public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    // The path of `name` inside it.
    std::string operator/(const std::string& name) const;
    // The names in the directory `name` (this one if empty), sorted, each followed by a space.
    std::string listing(const std::string& name = "") const;

  private:
    std::string path_;
};

// The bytes of the file at `path` (empty if it cannot be read).
std::string read_file(const std::string& path);

} // namespace lockcheck::detail::testing
