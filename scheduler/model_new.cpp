// The global operator new and delete of the lockcheck command (and of a user's model binary):
// `new` in model code (a std::string, a std::vector, a unique_ptr among a task's locals or a
// model's objects) takes its memory from the running execution's arena (arena.hpp), and throws
// std::bad_alloc once that is full; everything else comes from malloc(). delete frees only
// malloc()'s.
// Not linked into the test binary, whose framework replaces operator new with its leak checker.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "arena.hpp"
#include "execution.hpp"

namespace lockcheck::detail {

// Tells Execution::drops_tasks() that model code's locals own nothing outside the arena.
struct RoutesNew {
    RoutesNew() { Arena::routes_new_ = true; }
};

namespace {

const RoutesNew g_routes_new;

// Memory for lockcheck's own allocations once one failed (a model took all that malloc() had,
// with malloc() itself), so that the search, stopped by that failure, can still print its
// summary: the objects of the execution that ran out lie in its arena, and ending it frees
// none of them to malloc(). Handed out by bumping, never freed; untouched (and so never
// resident) until then.
constexpr std::size_t kReserve = std::size_t{1} << 20;
alignas(64) char g_reserve[kReserve];
std::atomic<std::size_t> g_reserve_used{0};
std::atomic<bool> g_ran_out{false};

bool in_reserve(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(g_reserve) <
           kReserve;
}

void* from_reserve(std::size_t size, std::size_t align) {
    const std::size_t rounded = (size + 63) / 64 * 64 + (align > 64 ? align : 0);
    const std::size_t at = g_reserve_used.fetch_add(rounded);
    if (at + rounded > kReserve) return nullptr;
    const auto p = reinterpret_cast<std::uintptr_t>(g_reserve + at);
    return reinterpret_cast<void*>((p + align - 1) & ~(std::uintptr_t{align} - 1));
}

void* heap(std::size_t size, std::size_t align) {
    for (;;) {
        void* p = align <= __STDCPP_DEFAULT_NEW_ALIGNMENT__
                      ? std::malloc(size ? size : 1)
                      : std::aligned_alloc(align, (size + align - 1) / align * align);
        if (p) return p;
        if (g_ran_out.exchange(true))
            if (void* r = from_reserve(size, align)) return r;
        std::new_handler handler = std::get_new_handler();
        if (!handler) throw std::bad_alloc();
        handler();
    }
}

// Model code past its arena's kSize is out of memory, as it would be in a kernel: a model that
// allocates without end cannot take the memory the search itself needs.
[[gnu::always_inline]] inline void* allocate(std::size_t size, std::size_t align) {
    if (Arena* arena = Execution::model_arena()) {
        if (void* p = arena->allocate(size, align)) return p;
        throw std::bad_alloc();
    }
    return heap(size, align);
}

[[gnu::always_inline]] inline void release(void* p) noexcept {
    if (!Arena::holds(p) && !in_reserve(p)) std::free(p);
}

constexpr std::size_t kDefault = __STDCPP_DEFAULT_NEW_ALIGNMENT__;

} // namespace

} // namespace lockcheck::detail

using lockcheck::detail::allocate;
using lockcheck::detail::kDefault;
using lockcheck::detail::release;

void* operator new(std::size_t size) {
    return allocate(size, kDefault);
}
void* operator new[](std::size_t size) {
    return allocate(size, kDefault);
}
void* operator new(std::size_t size, std::align_val_t align) {
    return allocate(size, static_cast<std::size_t>(align));
}
void* operator new[](std::size_t size, std::align_val_t align) {
    return allocate(size, static_cast<std::size_t>(align));
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    try {
        return allocate(size, kDefault);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    try {
        return allocate(size, kDefault);
    } catch (...) {
        return nullptr;
    }
}
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
    try {
        return allocate(size, static_cast<std::size_t>(align));
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
    try {
        return allocate(size, static_cast<std::size_t>(align));
    } catch (...) {
        return nullptr;
    }
}

void operator delete(void* p) noexcept {
    release(p);
}
void operator delete[](void* p) noexcept {
    release(p);
}
void operator delete(void* p, std::size_t) noexcept {
    release(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    release(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
    release(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
    release(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
    release(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
    release(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
    release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
    release(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
    release(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
    release(p);
}
