// Shards: a search cut into N pieces that run apart, on as many machines, without talking to
// each other, and whose results merge into the result of the whole search. Every shard cuts
// the search into the same parts (a plan made by running the search's first executions and
// splitting it, Strategy::split, the same way each time); shard I runs a run of consecutive
// parts, so that the shards' results, merged in shard order, are those of one search.
#pragma once

#include <vector>

#include "explorer.hpp"
#include "search.hpp"

namespace lockcheck::detail {

// The parts of the search that shard `shard` runs, and what they found: on `options.jobs`
// threads, with the same result as on one; no --max-executions. `strategy` must split
// (Strategy::splits()) into parts that need nothing from each other (Handoff::resumes is
// false): shards do not talk.
SearchResult explore_shard(const Setup& setup, Strategy& strategy, const CheckOptions& options,
                           Shard shard);

// The shards' results (shard 1 first) as one search's: merged in order, up to the first
// violation unless `options.keep_going`, the bounds of --max-wait-ratio checked if every shard
// ran all of its parts.
SearchResult merge_shards(std::vector<SearchResult> shards, const CheckOptions& options);

} // namespace lockcheck::detail
