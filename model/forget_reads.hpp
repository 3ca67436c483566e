// forget_reads: where a model's code keeps nothing of what it read, for a stateful search
// (--state-cache). Such a search takes a task's local variables to be everything its
// primitives returned to it and the number of steps it took, since its code cannot be looked
// into. A wait loop that re-reads a counter until it is zero then keeps every value it read and
// every round it went: each makes a state of its own, where the code holds only "not zero yet".
// Declaring where those values die merges them, as SPIN's dead-variable reduction does for a
// Promela process. No scheduling point; under every other search it does nothing.
#pragma once

#include <cstdint>
#include <exception>
#include <source_location>

#include "task.hpp"

namespace lockcheck::detail {

// From its declaration to the end of its scope, what the task reads stays inside the scope.
// Two promises by the model, which the search takes on trust (as it does plain_state()):
// - when the scope ends, the code after it uses no value read inside it (a void function whose
//   reads only decide what it does, a wait that returns nothing);
// - where forget() is called, the code holds no value read since the declaration: its local
//   variables are what they were there (the head of a loop that only waits).
// Each time the code passes one forget() from one declaration, the task's part of the state is
// the same, however many rounds it went and whatever it read in them.
//
//     forget_reads reads;
//     while (atomic_read(&root->log_writers)) {
//         reads.forget();
//         ...
//     }
class forget_reads {
  public:
    explicit forget_reads(std::source_location where = std::source_location::current())
        : execution_(this_execution()), mark_(execution_.history_mark()), point_(point(where)),
          exceptions_(std::uncaught_exceptions()) {}
    ~forget_reads() {
        if (forgot_) execution_.forgot(false);
        // Left by an unwinding execution: nothing runs after it.
        if (std::uncaught_exceptions() == exceptions_) execution_.forget_since(mark_, ~point_);
    }
    forget_reads(const forget_reads&) = delete;
    forget_reads& operator=(const forget_reads&) = delete;

    void forget(std::source_location where = std::source_location::current()) {
        if (!forgot_) execution_.forgot(true);
        forgot_ = true;
        execution_.forget_since(mark_, point_ ^ point(where) << 1);
    }

  private:
    static std::uint64_t point(const std::source_location& where) {
        return reinterpret_cast<std::uintptr_t>(where.file_name()) << 20 ^ where.line();
    }

    Execution& execution_;
    Execution::HistoryMark mark_;
    std::uint64_t point_; // the declaration's
    int exceptions_;
    bool forgot_ = false; // forget() was called: the task may come back to a state
};

} // namespace lockcheck::detail
