// lockcheck's whole user API, in one include: the kernel-named primitives a model is written
// with (model/kernel.hpp), the properties it states, and how it declares its variants, sizes
// and expected verdicts and registers itself (LOCKCHECK_MODEL). A model includes nothing else
// of lockcheck: the rest is the checker's, and may change. Installed, the headers this one
// includes sit under lockcheck/detail/, which is not API and not on a user's include path.
#pragma once

#include "checker/model_registry.hpp"
#include "checker/protocol.hpp"
#include "model/kernel.hpp"
