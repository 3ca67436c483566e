// `lockcheck list`: every model and variant with its expected verdict, one line each.
#pragma once

#include <iosfwd>

namespace lockcheck::cli {

void print_list(std::ostream& out);

} // namespace lockcheck::cli
