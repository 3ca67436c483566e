// Search names and their strategies.
#include "search.hpp"

#include "dfs.hpp"
#include "dpor.hpp"

namespace lockcheck {

const char* search_name(Search search) {
    return search == Search::dpor ? "dpor" : "dfs";
}

std::unique_ptr<Strategy> make_search(Search search, std::uint32_t depth) {
    if (search == Search::dpor) return std::make_unique<Dpor>(depth);
    return std::make_unique<Dfs>(depth);
}

} // namespace lockcheck
