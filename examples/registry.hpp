// The classic DPOR benchmarks lockcheck ships as examples, in the order `lockcheck list`
// shows them. They are models like protocols/ (model/ and checker/protocol.hpp only), kept
// apart because they measure the search, not a kernel protocol.
#pragma once

#include <string>
#include <vector>

#include "checker/protocol.hpp"

namespace lockcheck::examples {

Protocol indexer();
Protocol filesystem();
Protocol lastzero();

const std::vector<Protocol>& all();
// nullptr if no example has that name.
const Protocol* find(const std::string& name);

} // namespace lockcheck::examples
