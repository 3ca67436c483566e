// Named operations: the model's side of Execution::begin_op/end_op.
#include "op.hpp"

#include <exception>

#include "task.hpp"

namespace lockcheck::detail {

op::op(const char* name) : name_(name), exceptions_(std::uncaught_exceptions()) {
    op_begin(name);
}

op::~op() noexcept(false) {
    if (std::uncaught_exceptions() == exceptions_) op_end(name_);
}

void op_begin(const char* name) {
    this_execution().begin_op(name);
}

void op_end(const char* name) {
    this_execution().end_op(name);
}

void max_wait(const char* name, unsigned steps) {
    this_execution().add_wait_bound(name, steps);
}

} // namespace lockcheck::detail
