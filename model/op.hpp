// Named operations: what a benchmark would time (dbench's fsync, rename, WriteX), marked in a
// model's task code so that lockcheck measures how long each waited in every interleaving it
// explores. Marking an operation is not a scheduling point: it changes no interleaving.
#pragma once

namespace lockcheck::detail {

// A scoped operation: from here to the end of the scope, the task's waits count towards
// `name`, a string literal ("fsync"): `lockcheck::op fsync("fsync");`. Operations nest.
// An operation left by an exception is not recorded: it did not finish.
class op {
  public:
    explicit op(const char* name);
    ~op() noexcept(false);
    op(const op&) = delete;
    op& operator=(const op&) = delete;

  private:
    const char* name_;
    int exceptions_; // in flight when it began
};

// The same as a pair, for an operation that does not fit a scope: op_end() names the
// operation it ends, which must be the innermost one open.
void op_begin(const char* name);
void op_end(const char* name);

// A latency bound, declared at set-up next to the invariants: no instance of the operation
// `name` may wait more than `steps` steps in any interleaving explored (a wait-bound
// violation, with the trace of that wait). `--max-wait NAME=K` on the command line replaces
// it. Waits depend on the order of independent steps, so a model that declares one is
// checked with dfs (or sampled with random or pct), never with dpor.
void max_wait(const char* name, unsigned steps);

} // namespace lockcheck::detail
