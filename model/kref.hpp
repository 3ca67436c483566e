// struct kref: a refcount_t with the kernel's get/put idiom around it (include/linux/kref.h).
// kref_put() calls `release` when it dropped the last reference; release gets the kref, and
// reaches the object around it with container_of(k, &type::member) (container_of.hpp). As in
// the kernel, release is a plain function (a lambda without captures converts to one).
#pragma once

#include "container_of.hpp"
#include "refcount.hpp"

namespace lockcheck::detail {

struct kref {
    // KREF_INIT(n): the count the object starts with (0, as kzalloc() leaves it, until
    // kref_init()).
    explicit kref(std::string name, unsigned int n = 0)
        : refcount(std::move(name), static_cast<int>(n)) {}

    refcount_t refcount;
};

// Each is one scheduling point on the kref's refcount_t, traced under its own name.
void kref_init(struct kref* k, std::source_location loc = std::source_location::current());
unsigned int kref_read(const struct kref* k,
                       std::source_location loc = std::source_location::current());
// Takes a reference; the caller must hold one already (refcount_inc).
void kref_get(struct kref* k, std::source_location loc = std::source_location::current());
// Takes a reference unless the count is 0: the get of a lookup that found the object in a
// structure its last put has not removed it from yet. Nonzero if it took one.
int kref_get_unless_zero(struct kref* k,
                         std::source_location loc = std::source_location::current());
// Drops a reference; if it was the last, calls release(k) and returns 1.
int kref_put(struct kref* k, void (*release)(struct kref* k),
             std::source_location loc = std::source_location::current());
// kref_put() that takes `lock` when the reference may be the last (refcount_dec_and_lock), so
// that lookups under that lock never see the count reach 0: release(k) runs with the lock held
// and must unlock it.
int kref_put_lock(struct kref* k, void (*release)(struct kref* k), spinlock_t* lock,
                  std::source_location loc = std::source_location::current());
int kref_put_mutex(struct kref* k, void (*release)(struct kref* k), struct mutex* lock,
                   std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
