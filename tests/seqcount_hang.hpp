// A test model of a hang whose trace is long and repetitive: a seqcount reader spinning on an
// odd count after two unlocked writers lost an update, as lockcheck's users first met it
// (include/linux/fs.h's 32-bit i_size_read() and i_size_write()). Its drawing aborted
// lockcheck inside Graphviz; its 33 identical spin turns are what folding folds.
#pragma once

#include "checker/protocol.hpp"

namespace lockcheck::detail::testing {

// "isize-seqcount", one variant, "unlocked-extend", declared a hang: truncate writes i_size
// under i_rwsem, extend writes it without, stat0 reads it. The default search finds an 81-step
// counterexample whose last 67 steps are the reader's turns of READ_ONCE() and cpu_relax().
Protocol seqcount_hang_model();

} // namespace lockcheck::detail::testing
