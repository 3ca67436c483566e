// `lockcheck compare MODEL [--variant A --variant B]`: both variants at the same sizes and
// bounds, one table side by side (reports/comparison.hpp), and an exit code CI can use: 1 when
// B is unsafe, or with --fail-if-worse OP when OP's worst wait grew; 3 when a limit stopped a
// search before it was done.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "check_command.hpp"

namespace lockcheck::detail::cli {

// The executions each side's dfs may take when compare chose dfs itself: past it, the pair is
// beyond dfs at these sizes, and compare samples both sides instead (CompareRequest::sample).
// Every shipped model's declared dfs pair ends within it (the most: cil-push's percpu, 109,856
// executions), and the costliest executions take it in some 16 CPU-seconds (cil-push under
// --memory-model lkmm; docs/PERFORMANCE.md, "compare").
inline constexpr std::uint64_t kCompareDfsBudget = 150'000;

struct CompareRequest {
    // The model, sizes, search and options both runs share; its variant is not read. Its
    // worst_wait names the operation whose worst wait --report draws (default: the first).
    CheckRequest run;
    std::size_t before = 0;
    std::size_t after = 0;
    // Set where compare chose dfs itself (no --strategy, no --max-executions): the executions
    // each side's dfs may take, and the search both sides run instead when one takes them all.
    std::uint64_t dfs_budget = 0;
    SearchOptions sample;
    // How compare chose a search it did not run as dfs, for the table ("": --strategy chose).
    std::string chosen;
    std::vector<std::string> fail_if_worse;
    std::string json;   // --json FILE: the compare document
    std::string report; // --report DIR: index.html, and each side's report in DIR/VARIANT/
};

// What `lockcheck compare` takes out of its arguments before the model's own options are
// parsed: the variants named, the operations --fail-if-worse names, and its own files.
struct CompareArguments {
    std::vector<std::string> variants;
    std::vector<std::string> fail_if_worse;
    std::string json;
    std::string report;
    std::vector<std::string> rest; // the model's options, as given
};
// Splits `args` (what follows `compare MODEL`); false with a one-line reason in `error` for an
// option compare does not take (--replay, --trace, --junit) or one missing its value.
bool split_compare_arguments(const std::vector<std::string>& args, CompareArguments& split,
                             std::string& error);

// The variants and search of a compare of request.run.protocol: the named ones, else the
// before/after pair the model declares; the given strategy, else the model's declared one,
// else dfs within kCompareDfsBudget executions a side and a random sample past it, so that
// compare always ends. False with a one-line reason in `error`.
bool choose_comparison(CompareRequest& request, const std::vector<std::string>& variants,
                       bool strategy_given, bool depth_given, bool iterations_given,
                       std::string& error);

// Runs the before side, then the after side (unless a signal stopped the first), and both
// again with request.sample if either's dfs took its whole budget; prints the table and
// writes the files. Returns the exit code.
int run_compare(const CompareRequest& request, std::ostream& out, std::ostream& err);

} // namespace lockcheck::detail::cli
