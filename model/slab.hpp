// kmalloc(), kzalloc() and kfree() with KASAN's checks (include/linux/slab.h, mm/kasan/).
// kmalloc<T>(name, args...) constructs a T in memory the execution owns; kfree(p) frees it,
// one scheduling point after which the scheduling point of any operation on an object inside
// that memory (its lock, its refcount, a shared<T> field) is a use-after-free. The memory, in
// the execution's arena, stays, as in KASAN's quarantine, until the execution ends: neither the
// checker nor model code that goes on after a use-after-free touches memory really freed, and a
// peek() of a freed object in an invariant() or final_check() reads what it held (the model's own
// business).
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include "task.hpp"

namespace lockcheck::detail {

// One allocation kmalloc() returned. It stands for the memory in traces ("kfree(item)") and
// reports, and lives outside it.
class slab_object final : public Object {
  public:
    // Zeroed memory of `size` bytes aligned to `align`.
    slab_object(std::string name, std::size_t size, std::size_t align);
    ~slab_object() override;
    void describe(std::string& out) const override;
    // With the RCU read-side section of `user` the free did not wait for, if there is one.
    void describe_use(std::string& out, const Task& user,
                      std::vector<std::uint32_t>& cited) const override;
    void fingerprint(StateHasher& h) const override {
        h.add(freed_at != 0);
        h.add(freed_by ? freed_by->id() : kNoTask);
    }

    void* memory() const { return memory_; }
    std::size_t size() const { return size_; }
    bool contains(const void* p) const;

    // Destroys what was constructed in the memory, when the execution ends.
    void (*destroy)(void*) = nullptr;
    // Set by kfree().
    const Task* freed_by = nullptr;
    std::uint32_t freed_at = 0; // its step; 0 while the memory is in use

  private:
    void* memory_; // the execution's (Execution::allocate())
    std::size_t size_;
};

// What a pointer a model shares (shared<T*>) is to traces, fingerprints and a task's history:
// never its address, which differs from one execution (and run) to the next, but the
// allocation it points into (by that slab's object id and the offset), or else the object at
// that address. 0 is NULL; kPointerElsewhere any other address, which a fingerprint then tells
// apart by the address itself. No scheduling point; nothing allocated.
inline constexpr std::int64_t kPointerElsewhere = 1;
std::int64_t pointer_token(const void* p);
// The token as a trace shows it: "NULL", "item", "item+8" (bytes into it), "&log_mutex",
// "(memory of no allocation or object)". For traces and reports only: it formats a string.
std::string pointer_text(std::int64_t token);

// What `p` points into, for LKMM's address dependencies: the memory of the allocation it lies
// in, or else `p` itself (an object's address stands for the object). No scheduling point.
const void* allocation_of(const void* p);

// kmalloc()'s scheduling point (from task code; none at set-up) and its memory.
slab_object& slab_alloc(std::string name, std::size_t size, std::size_t align,
                        std::source_location loc);

// kmalloc()'s name argument, carrying the model's line of the call: a defaulted
// source_location cannot follow kmalloc's parameter pack, but it can default in the
// conversion of the name, which happens at the caller's line.
struct kmalloc_name {
    kmalloc_name(std::string n, std::source_location at = std::source_location::current())
        : name(std::move(n)), loc(at) {}
    kmalloc_name(const char* n, std::source_location at = std::source_location::current())
        : name(n), loc(at) {}
    std::string name;
    std::source_location loc;
};

// new T(args...) in memory named `name` (in traces and reports). The memory is zeroed first,
// so that nothing a model reads depends on what the heap held, and T() with no arguments
// value-initializes: a plain struct starts all zero. The allocation is a scheduling point on
// the execution's allocator, so that allocations, and the ids of the objects they hold, come
// in one order in all the executions partial-order reduction counts as equivalent.
template <class T, class... Args> T* kmalloc(kmalloc_name name, Args&&... args) {
    slab_object& slab = slab_alloc(std::move(name.name), sizeof(T), alignof(T), name.loc);
    T* obj = new (slab.memory()) T(std::forward<Args>(args)...);
    slab.destroy = [](void* p) { static_cast<T*>(p)->~T(); };
    return obj;
}

// The kernel's zeroing kmalloc(): the same here, where kmalloc() zeroes too.
template <class T, class... Args> T* kzalloc(kmalloc_name name, Args&&... args) {
    return kmalloc<T>(std::move(name), std::forward<Args>(args)...);
}

// Frees what kmalloc() returned, from task code: one scheduling point that conflicts with
// every other step. kfree(nullptr) does nothing (and is no scheduling point). Freeing it again is a
// double-free (a `use-after-free` violation: the second free uses freed memory); freeing a pointer
// kmalloc() did not return (one inside an allocation, or to memory it did not allocate) is
// an `invalid-free` violation.
void kfree(const void* objp, std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
