// StackPool: guard-paged fiber stacks, allocated once and reused by every execution, so that
// starting an execution maps no memory. A stack overflow hits the guard page (see
// faults.hpp) instead of corrupting memory.
#pragma once

#include <cstddef>
#include <vector>

#include "malloc_allocator.hpp"

namespace lockcheck::detail {

struct Stack {
    void* top = nullptr; // highest address; stacks grow down
    std::size_t size = 0;
    // Valgrind's id of the stack (VALGRIND_STACK_REGISTER), so that it sees a switch to it as
    // a switch and not as one frame of millions of bytes; 0 outside valgrind.
    unsigned valgrind_id = 0;
    char* bottom() const { return static_cast<char*>(top) - size; }
    // The lowest page of the mapping is PROT_NONE.
    bool guard_contains(const void* addr) const;
};

class StackPool {
  public:
    explicit StackPool(std::size_t stack_size);
    ~StackPool();
    StackPool(const StackPool&) = delete;
    StackPool& operator=(const StackPool&) = delete;

    Stack acquire();
    // Allocates nothing: an execution's teardown gives its stacks back even when the memory is
    // used up.
    void release(Stack stack);
    std::size_t stack_size() const { return stack_size_; }

  private:
    std::size_t stack_size_;
    // With room for every stack made; grown as an execution starts a task, from malloc().
    std::vector<Stack, MallocAllocator<Stack>> free_;
    std::size_t made_ = 0;
};

} // namespace lockcheck::detail
