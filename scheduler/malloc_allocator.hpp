// MallocAllocator: for the containers the checker keeps beyond one execution (the race
// detector's thread-wide tables, the stack pool's list), which may grow while an execution
// runs: from malloc() whatever `new` is routed to then (Execution::model_arena()), so that
// they never lie in an arena an execution gives back or a checkpoint restores.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace lockcheck::detail {

template <class T> struct MallocAllocator {
    using value_type = T;
    MallocAllocator() = default;
    template <class U> MallocAllocator(const MallocAllocator<U>&) {}
    T* allocate(std::size_t n) {
        if (void* p = std::malloc(n * sizeof(T))) return static_cast<T*>(p);
        throw std::bad_alloc();
    }
    void deallocate(T* p, std::size_t) { std::free(p); }
    template <class U> bool operator==(const MallocAllocator<U>&) const { return true; }
};

} // namespace lockcheck::detail
