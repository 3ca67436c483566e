// `lockcheck merge FILE.json...`: the JSON reports of the shards of one search (--shard I/N,
// every I from 1 to N) merged into the search's: its figures, counterexamples and verdict, as
// one run of the search would have them. Returns the process exit code.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace lockcheck::detail::cli {

struct MergeRequest {
    std::vector<std::string> files; // the shards' --json reports, in any order
    std::string json;               // --json FILE: the merged report
    bool timing = true;             // false: --no-timing
    bool colour = false;
    std::string command; // the merge's own command line, for its report
};

int run_merge(const MergeRequest& request, std::ostream& out, std::ostream& err);

} // namespace lockcheck::detail::cli
