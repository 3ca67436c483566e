// The table of shipped protocols.
#include "registry.hpp"

namespace lockcheck::protocols {

const std::vector<Protocol>& all() {
    static const std::vector<Protocol> table = {rename_pin(), buffered_write(), tree_lock(),
                                                cil_push()};
    return table;
}

const Protocol* find(const std::string& name) {
    for (const Protocol& p : all())
        if (p.name == name) return &p;
    return nullptr;
}

} // namespace lockcheck::protocols
