// The whole model API in one include: what a protocol model writes against.
#pragma once

#include "atomic.hpp"
#include "bitops.hpp"
#include "check.hpp"
#include "completion.hpp"
#include "lockdep.hpp"
#include "mutex.hpp"
#include "rwsem.hpp"
#include "sched.hpp"
#include "shared.hpp"
#include "spinlock.hpp"
#include "task.hpp"
#include "wait.hpp"
