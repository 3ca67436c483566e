// The plan every shard makes of the search, the run of its own parts, and the merge.
//
// The plan: the search starts as one part; until there are 16 parts per shard, the part with
// the largest share of the search (as Strategy::split measures it) runs one execution more and
// hands over what it has left at its shallowest branch point. Every shard makes the same plan,
// running the same few executions (a few hundred to a few thousand, next to searches of
// millions), and keeps the results of those of its own parts. Parts go to shards in order, a
// run of consecutive parts with about a 1/N share each, so that the shards merged in order
// are the parts merged in order: the whole search.
#include "shard.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <list>
#include <memory>

#include "explore_loop.hpp"

namespace lockcheck::detail {

namespace {

struct PlannedPart {
    std::unique_ptr<Strategy> owned; // none: the caller's strategy, the first part
    Strategy* strategy;
    double share;
    SearchResult result; // of the executions the plan ran
    bool over = false;   // ran to its end, or to a violation that ends the search
    bool violated = false;
};

// Parts per shard: enough for shards within twice the mean on the shipped models.
constexpr unsigned kPartsPerShard = 16;
// The plan stops early rather than run more executions than this per part planned.
constexpr std::uint64_t kPlanExecutionsPerPart = 64;

class OneExecution final : public BetweenExecutions {
  public:
    bool go_on(const SearchResult&, Strategy&) override { return false; }
};

void run_one(const Setup& setup, PlannedPart& part, const CheckOptions& options,
             StackPool& stacks) {
    OneExecution once;
    SearchResult result;
    const LoopEnd end = run_executions(setup, *part.strategy, options, stacks, result, once);
    part.result.merge(std::move(result));
    // A part run to its end leaves nothing to share out: it weighs nothing in the plan.
    if (end != LoopEnd::stopped) {
        part.over = true;
        part.share = 0;
    }
    part.violated = end == LoopEnd::violation;
}

std::list<PlannedPart> plan(const Setup& setup, Strategy& root, const CheckOptions& options,
                            StackPool& stacks, unsigned shards) {
    std::list<PlannedPart> parts;
    parts.push_back(PlannedPart{nullptr, &root, 1.0, {}});
    const std::size_t target = std::size_t{kPartsPerShard} * shards;
    std::uint64_t budget = kPlanExecutionsPerPart * target;
    while (parts.size() < target && budget-- > 0) {
        auto largest = parts.end();
        for (auto it = parts.begin(); it != parts.end(); ++it)
            if (!it->over && (largest == parts.end() || it->share > largest->share)) largest = it;
        if (largest == parts.end()) break;
        run_one(setup, *largest, options, stacks);
        if (largest->over) continue;
        Handoff handoff = largest->strategy->split();
        if (!handoff.part) continue;
        assert(!handoff.resumes && "a shard cannot wait for another's results");
        const double share = largest->share * handoff.share;
        largest->share -= share;
        Strategy* s = handoff.part.get();
        parts.insert(std::next(largest), PlannedPart{std::move(handoff.part), s, share, {}});
    }
    return parts;
}

// Shows the shard's progress and stops it at a signal or its time limit.
class ShardBetween final : public BetweenExecutions {
  public:
    ShardBetween(const CheckOptions& options, double shard_share)
        : options_(options), shard_share_(shard_share) {}
    bool go_on(const SearchResult& so_far, Strategy& strategy) override {
        if (options_.progress && pacer_.tick()) {
            ProgressReport report;
            report.executions = executions_before + so_far.stats.executions;
            report.seconds = pacer_.seconds();
            report.deepest = so_far.stats.deepest;
            report.violations = so_far.findings.size();
            report.explored = shard_share_ > 0
                                  ? (share_before + part_share * strategy.explored()) / shard_share_
                                  : -1;
            options_.progress->show(report);
        }
        // No --max-executions: its count means nothing once the shards are merged.
        stopped_by = stop_reason(options_, 0, [this] { return pacer_.seconds(); });
        return stopped_by.empty();
    }
    std::uint64_t executions_before = 0;
    double share_before = 0;
    double part_share = 0;
    std::string stopped_by;

  private:
    const CheckOptions& options_;
    double shard_share_;
    ProgressPacer pacer_;
};

} // namespace

SearchResult explore_shard(const Setup& setup, Strategy& strategy, const CheckOptions& options,
                           Shard shard) {
    const auto start = std::chrono::steady_clock::now();
    StackPool stacks(options.stack_size);
    std::list<PlannedPart> parts = plan(setup, strategy, options, stacks, shard.count);
    double total = 0;
    for (const PlannedPart& p : parts)
        total += p.share;
    // Each part goes to the shard its middle falls in: consecutive parts, about 1/N each.
    std::vector<PlannedPart*> mine;
    double before = 0, shard_share = 0;
    for (PlannedPart& p : parts) {
        const double middle = total > 0 ? (before + p.share / 2) / total : 0;
        const auto owner = std::min(shard.count - 1, static_cast<unsigned>(middle * shard.count));
        before += p.share;
        if (owner + 1 != shard.index) continue;
        mine.push_back(&p);
        shard_share += p.share;
    }
    if (options.jobs > 1) {
        // Its parts shared among the threads like a search's (parallel_explore.cpp); the
        // bounds of --max-wait-ratio are for the merge of every shard to check.
        std::vector<StartingPart> run;
        for (PlannedPart* p : mine)
            run.push_back(StartingPart{p->strategy, shard_share > 0 ? p->share / shard_share : 0,
                                       std::move(p->result), p->over, p->violated});
        CheckOptions shard_options = options;
        shard_options.wait_ratios.clear();
        SearchResult result = explore_parallel(setup, std::move(run), shard_options);
        result.stats.elapsed_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return result;
    }
    SearchResult result;
    ShardBetween between(options, shard_share);
    for (PlannedPart* p : mine) {
        if (!p->over) {
            between.part_share = p->share;
            between.executions_before = result.stats.executions;
            const LoopEnd end =
                run_executions(setup, *p->strategy, options, stacks, p->result, between);
            p->violated = end == LoopEnd::violation;
            between.share_before += p->share;
            if (end == LoopEnd::stopped) {
                result.merge(std::move(p->result));
                result.stats.stopped_by = between.stopped_by;
                break;
            }
        }
        result.merge(std::move(p->result));
        // The search stops at its first violation: the parts after it are never run.
        if (p->violated && !options.keep_going) break;
    }
    result.stats.elapsed_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

SearchResult merge_shards(std::vector<SearchResult> shards, const CheckOptions& options) {
    SearchResult result;
    bool complete = true;
    for (SearchResult& shard : shards) {
        const bool violated = !shard.findings.empty();
        const std::string stopped_by = shard.stats.stopped_by;
        const double elapsed = shard.stats.elapsed_seconds;
        const std::uint32_t threads = shard.stats.threads;
        result.merge(std::move(shard));
        // Shards run side by side: the merged run took as long as the longest, on as many
        // threads as the widest.
        result.stats.elapsed_seconds = std::max(result.stats.elapsed_seconds, elapsed);
        result.stats.threads = std::max(result.stats.threads, threads);
        if (!stopped_by.empty()) {
            complete = false;
            if (result.stats.stopped_by.empty()) result.stats.stopped_by = stopped_by;
        }
        if (violated && !options.keep_going) return result;
    }
    if (complete) check_wait_ratios(options.wait_ratios, result);
    return result;
}

} // namespace lockcheck::detail
