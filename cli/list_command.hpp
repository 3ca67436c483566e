// `lockcheck list`: every model and variant with its expected verdict, one line each; the
// examples (classic DPOR benchmarks) in a section of their own.
#pragma once

#include <iosfwd>

namespace lockcheck::cli {

void print_list(std::ostream& out);

} // namespace lockcheck::cli
