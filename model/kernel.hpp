// The whole model API in one include: what a protocol model writes against. Every primitive
// takes, last, the location of the model's call that makes it: a default argument, evaluated
// at that call, so that traces and reports name the model's line and models write nothing.
#pragma once

#include "atomic.hpp"
#include "bitops.hpp"
#include "check.hpp"
#include "completion.hpp"
#include "container_of.hpp"
#include "extent_lock.hpp"
#include "forget_reads.hpp"
#include "inode.hpp"
#include "kref.hpp"
#include "list.hpp"
#include "lockdep.hpp"
#include "mutex.hpp"
#include "op.hpp"
#include "percpu.hpp"
#include "percpu_counter.hpp"
#include "plain_state.hpp"
#include "refcount.hpp"
#include "rwsem.hpp"
#include "sched.hpp"
#include "shared.hpp"
#include "slab.hpp"
#include "spinlock.hpp"
#include "task.hpp"
#include "wait.hpp"
