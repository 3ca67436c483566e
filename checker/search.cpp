// Search names and their strategies.
#include "search.hpp"

#include "bfs.hpp"
#include "bounded_dfs.hpp"
#include "dfs.hpp"
#include "dpor.hpp"
#include "pct.hpp"
#include "random_walk.hpp"
#include "stateful_dfs.hpp"

namespace lockcheck::detail {

const char* search_name(Search search) {
    switch (search) {
    case Search::dpor:
        return "dpor";
    case Search::optimal_dpor:
        return "optimal-dpor";
    case Search::random:
        return "random";
    case Search::pct:
        return "pct";
    case Search::bfs:
        return "bfs";
    case Search::dfs:
        break;
    }
    return "dfs";
}

namespace {
constexpr Search kSearches[] = {Search::dfs,          Search::bfs,    Search::dpor,
                                Search::optimal_dpor, Search::random, Search::pct};
} // namespace

std::vector<std::string> search_names() {
    std::vector<std::string> names;
    for (Search s : kSearches)
        names.emplace_back(search_name(s));
    return names;
}

std::optional<Search> find_search(std::string_view name) {
    for (Search s : kSearches)
        if (name == search_name(s)) return s;
    return std::nullopt;
}

bool exhaustive(Search search) {
    return search == Search::dfs || search == Search::bfs || search == Search::dpor ||
           search == Search::optimal_dpor;
}

bool stores_states(const SearchOptions& o) {
    return o.search == Search::bfs || (o.search == Search::dfs && o.state_cache);
}

std::string describe(const SearchOptions& o) {
    std::string text = search_name(o.search);
    if ((o.search == Search::dfs || o.search == Search::dpor) && o.preemptions)
        text += ", at most " + std::to_string(*o.preemptions) +
                (*o.preemptions == 1 ? " preemption" : " preemptions");
    if (o.search == Search::pct) text += ", depth " + std::to_string(o.pct_depth);
    if (o.search == Search::dfs && o.state_cache) text += ", state cache";
    if (!exhaustive(o.search)) text += ", seed " + std::to_string(o.seed);
    if (o.shard)
        text +=
            ", shard " + std::to_string(o.shard->index) + " of " + std::to_string(o.shard->count);
    return text;
}

std::unique_ptr<Strategy> make_search(const SearchOptions& o) {
    switch (o.search) {
    case Search::dpor:
        return std::make_unique<Dpor>(o.depth, Dpor::Mode::source, o.preemptions);
    case Search::optimal_dpor:
        return std::make_unique<Dpor>(o.depth, Dpor::Mode::optimal);
    case Search::random:
        return std::make_unique<RandomWalk>(o.seed, o.iterations);
    case Search::pct:
        return std::make_unique<Pct>(o.seed, o.iterations, o.pct_depth, o.depth);
    case Search::bfs:
        return std::make_unique<Bfs>();
    case Search::dfs:
        break;
    }
    if (o.preemptions) return std::make_unique<BoundedDfs>(*o.preemptions);
    if (o.state_cache) return std::make_unique<StatefulDfs>(o.depth);
    return std::make_unique<Dfs>(o.depth);
}

std::unique_ptr<Strategy> make_search(Search search, std::uint32_t depth) {
    SearchOptions o;
    o.search = search;
    o.depth = depth;
    return make_search(o);
}

} // namespace lockcheck::detail
