// `lockcheck list`: every model and variant with its expected verdict, one line each; the
// examples (classic DPOR benchmarks) in a section of their own. `list --json` gives the same
// for tools (schema "lockcheck-list"), and `help MODEL` one model's variants.
#pragma once

#include <iosfwd>

#include "checker/protocol.hpp"

namespace lockcheck::cli {

void print_list(std::ostream& out);
void print_list_json(std::ostream& out);
// "variants:" and one line per variant of `model`, as `list` prints them.
void print_variants(std::ostream& out, const Protocol& model);

} // namespace lockcheck::cli
