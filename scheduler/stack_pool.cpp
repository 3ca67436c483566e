// Guard-paged stacks from Boost.Context's protected_fixedsize_stack, kept for reuse, and known
// to valgrind and AddressSanitizer as stacks for as long as they exist.
#include "stack_pool.hpp"

#include <cstdint>

#include <boost/context/protected_fixedsize_stack.hpp>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "fiber_sanitizer.hpp"

namespace lockcheck::detail {

namespace ctx = boost::context;

namespace {
std::size_t page_size() {
    return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}
} // namespace

bool Stack::guard_contains(const void* addr) const {
    auto a = reinterpret_cast<std::uintptr_t>(addr);
    auto bottom = reinterpret_cast<std::uintptr_t>(top) - size;
    // A frame larger than the guard page can jump past it: count faults just below as well.
    constexpr std::uintptr_t kSlack = 64 * 1024;
    return a + kSlack >= bottom && a < bottom + page_size();
}

StackPool::StackPool(std::size_t stack_size) : stack_size_(stack_size) {}

StackPool::~StackPool() {
    ctx::protected_fixedsize_stack alloc(stack_size_);
    for (Stack& s : free_) {
        ctx::stack_context sc;
        sc.sp = s.top;
        sc.size = s.size;
        VALGRIND_STACK_DEREGISTER(s.valgrind_id);
        alloc.deallocate(sc);
    }
}

Stack StackPool::acquire() {
    if (!free_.empty()) {
        Stack s = free_.back();
        free_.pop_back();
        return s;
    }
    free_.reserve(made_ + 1);
    ctx::protected_fixedsize_stack alloc(stack_size_);
    ctx::stack_context sc = alloc.allocate();
    ++made_;
    Stack s{sc.sp, sc.size};
    // A no-op (a few instructions) outside valgrind; once per stack, never per switch.
    s.valgrind_id = VALGRIND_STACK_REGISTER(s.bottom(), s.top);
    return s;
}

void StackPool::release(Stack stack) {
    // Its last fiber may have ended by a jump (a fault, the end of a task) with frames left.
    fiber_sanitizer::forget_frames(stack);
    free_.push_back(stack);
}

} // namespace lockcheck::detail
