// The table of shipped examples.
#include "registry.hpp"

namespace lockcheck::examples {

const std::vector<Protocol>& all() {
    static const std::vector<Protocol> table = {indexer(), filesystem(), lastzero()};
    return table;
}

const Protocol* find(const std::string& name) {
    for (const Protocol& p : all())
        if (p.name == name) return &p;
    return nullptr;
}

} // namespace lockcheck::examples
