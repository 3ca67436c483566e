// `lockcheck list`: every model and variant with its expected verdicts (under sc and under
// lkmm), one line each; the examples (classic DPOR benchmarks) and the litmus tests in sections
// of their own. `list --json` gives the same for tools (schema "lockcheck-list",
// docs/lockcheck-list.schema.json), and `help MODEL` one model's variants.
#pragma once

#include <iosfwd>

#include "checker/protocol.hpp"

namespace lockcheck::detail::cli {

// The minor additions to `list --json` since version 1.0: 1 added each variant's
// expected_lkmm, 2 each model's check_all_search.
inline constexpr int kListMinorVersion = 2;

void print_list(std::ostream& out);
void print_list_json(std::ostream& out);
// "variants:", the header and one line per variant of `model`, as `list` prints them.
void print_variants(std::ostream& out, const Protocol& model);

} // namespace lockcheck::detail::cli
