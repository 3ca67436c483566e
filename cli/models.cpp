// The command's table of models: protocols and examples in one list.
#include "models.hpp"

#include "examples/registry.hpp"
#include "protocols/registry.hpp"

namespace lockcheck::cli {

const std::vector<Protocol>& all_models() {
    static const std::vector<Protocol> table = [] {
        std::vector<Protocol> t = protocols::all();
        t.insert(t.end(), examples::all().begin(), examples::all().end());
        return t;
    }();
    return table;
}

const Protocol* find_model(const std::string& name) {
    for (const Protocol& p : all_models())
        if (p.name == name) return &p;
    return nullptr;
}

} // namespace lockcheck::cli
