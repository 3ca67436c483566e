// kref operations on the kref's refcount_t, as include/linux/kref.h writes them.
#include "kref.hpp"

#include "refcount_ops.hpp"

namespace lockcheck::detail {

void kref_init(struct kref* k, std::source_location loc) {
    refcount_set_as("kref_init", &k->refcount, 1, loc);
}

unsigned int kref_read(const struct kref* k, std::source_location loc) {
    return refcount_read_as("kref_read", &k->refcount, loc);
}

void kref_get(struct kref* k, std::source_location loc) {
    refcount_add_as("kref_get", 1, &k->refcount, loc);
}

int kref_get_unless_zero(struct kref* k, std::source_location loc) {
    return refcount_add_not_zero_as("kref_get_unless_zero", 1, &k->refcount, loc);
}

int kref_put(struct kref* k, void (*release)(struct kref* k), std::source_location loc) {
    if (!refcount_sub_and_test_as("kref_put", 1, &k->refcount, loc)) return 0;
    release(k);
    return 1;
}

int kref_put_lock(struct kref* k, void (*release)(struct kref* k), spinlock_t* lock,
                  std::source_location loc) {
    if (!refcount_dec_and_lock(&k->refcount, lock, loc)) return 0;
    release(k);
    return 1;
}

int kref_put_mutex(struct kref* k, void (*release)(struct kref* k), struct mutex* lock,
                   std::source_location loc) {
    if (!refcount_dec_and_mutex_lock(&k->refcount, lock, loc)) return 0;
    release(k);
    return 1;
}

} // namespace lockcheck::detail
