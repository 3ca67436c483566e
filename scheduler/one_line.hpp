// Quoting what a user gave (an argument, a saved report's string) inside an error message: the
// message stays one line, as scripts read it and as it is documented, and cannot move a
// terminal's cursor or change its colours.
#pragma once

#include <string>
#include <string_view>

namespace lockcheck::detail {

// `text` with each control character written as an escape: "\n", "\r", "\t", or "\x1b".
// Everything else, backslashes and bytes that are not ASCII included, is kept as it is, so a
// message without control characters is unchanged.
std::string one_line(std::string_view text);

} // namespace lockcheck::detail
