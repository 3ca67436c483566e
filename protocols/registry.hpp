// The protocols lockcheck ships, in the order `lockcheck list` shows them.
#pragma once

#include <vector>

#include "checker/protocol.hpp"

namespace lockcheck::protocols {

Protocol rename_pin();
Protocol cil_push();
Protocol buffered_write();
Protocol tree_lock();

const std::vector<Protocol>& all();
// nullptr if no protocol has that name.
const Protocol* find(const std::string& name);

} // namespace lockcheck::protocols
