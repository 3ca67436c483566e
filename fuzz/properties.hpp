// What every fuzz target requires of what a parser made of its input, beyond not crashing:
// a requirement that fails prints why and aborts, which libFuzzer reports as a crash and saves
// the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace lockcheck::detail::fuzz {

inline void require(bool holds, const char* what, std::string_view detail = {}) {
    if (holds) return;
    std::fprintf(stderr, "fuzz: %s\n%.*s\n", what, static_cast<int>(detail.size()), detail.data());
    std::abort();
}

// An input error is one line (printed after "lockcheck: ", for people and for scripts): not
// empty, and with no control character in it, which would break the line or drive the
// terminal (what the user gave is quoted with its control characters escaped, one_line()).
inline void require_one_line(std::string_view error) {
    require(!error.empty(), "an input was refused without a reason");
    for (const char c : error)
        require(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f,
                "an input error has a control character in it", error);
}

} // namespace lockcheck::detail::fuzz
