// Arena: the memory of one execution's model (make<>(), model_state(), kmalloc(), and `new` in
// model code where model_new.cpp routes it), a range each thread reserves once and hands out
// by bumping a pointer. An execution begins at the arena's mark and gives everything back at
// its end in one step: its objects come at the same addresses in every execution of a search
// (what restoring a checkpoint in place will need), and nothing it made is freed one by one.
#pragma once

#include <cstddef>
#include <cstdint>

#ifdef LOCKCHECK_SANITIZE
#include <sanitizer/asan_interface.h>
#endif

namespace lockcheck::detail {

class Arena {
  public:
    // Each thread's arena: room for any execution the shipped models make (tens of KiB), and
    // for a model that allocates in a loop up to a bound far below the machine's memory.
    static constexpr std::size_t kSize = std::size_t{64} << 20;
    // Threads that may hold an arena at once; a thread past them has none (nullptr below).
    static constexpr std::size_t kThreads = 16;

    // The calling thread's arena, taken at its first call and given back when the thread ends;
    // null when there is none to take (kThreads threads hold one, or the address space is too
    // small to reserve them): then everything comes from malloc(), as before arenas.
    static Arena* of_thread();
    // Whether `p` lies in any thread's arena: operator delete frees nothing there.
    static bool holds(const void* p) {
        return reinterpret_cast<std::uintptr_t>(p) - space_begin_ < space_size_;
    }
    // Whether `new` in model code comes from the arena: model_new.cpp, linked into the lockcheck
    // command and a user's model binary, says so (a test binary whose framework replaces
    // operator new itself does not link it).
    static bool routes_new() { return routes_new_; }

    // `size` bytes aligned to `align` (a power of two), or null when the arena is full.
    void* allocate(std::size_t size, std::size_t align) {
        const auto at = (reinterpret_cast<std::uintptr_t>(next_) + align - 1) & ~(align - 1);
        if (at > end_ || size > end_ - at) return nullptr;
        next_ = reinterpret_cast<char*>(at + size);
#ifdef LOCKCHECK_SANITIZE
        ASAN_UNPOISON_MEMORY_REGION(reinterpret_cast<char*>(at), size);
#endif
        return reinterpret_cast<char*>(at);
    }
    // Where the next allocation starts: what release() goes back to.
    char* mark() const {
        return next_;
    }
    // Where its first allocation starts.
    char* begin() const {
        return reinterpret_cast<char*>(end_ - kSize);
    }
    // Gives back everything allocated since `mark`; under ASan any later use of it is reported.
    void release(char* mark);
    // Makes `mark`, above or below the next allocation's start, that start again: an arena
    // restored in place from a checkpoint's copy (checkpoint.hpp), which checkpoints are off
    // under ASan for.
    void restore(char* mark) {
        next_ = mark;
    }

  private:
    explicit Arena(char* begin)
        : next_(begin), end_(reinterpret_cast<std::uintptr_t>(begin) + kSize) {}
    friend struct ArenaSlot;

    char* next_;
    std::uintptr_t end_;
    // Every thread's arena is a slot of one reservation, so that holds() is one comparison.
    static inline std::uintptr_t space_begin_ = 0;
    static inline std::uintptr_t space_size_ = 0;
    static inline bool routes_new_ = false;
    friend struct RoutesNew;
};

} // namespace lockcheck::detail
