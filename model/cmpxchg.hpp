// xchg() and cmpxchg() on a shared variable, as the kernel applies them to any word, with the
// _relaxed, _acquire and _release variants of linux-kernel.def: fully ordered without a
// suffix, and a cmpxchg that fails is an unordered read whatever its suffix.
#pragma once

#include <source_location>

#include "shared.hpp"

namespace lockcheck::detail {

#define LOCKCHECK_XCHG(suffix, order)                                                              \
    template <class T, class V>                                                                    \
    T xchg##suffix(shared<T>* p, V new_,                                                           \
                   std::source_location loc = std::source_location::current()) {                   \
        return p->update("xchg" #suffix,                                                           \
                         Update{Update::exchange, shared<T>::to_word(static_cast<T>(new_))},       \
                         order, loc);                                                              \
    }                                                                                              \
    template <class T, class O, class V>                                                           \
    T cmpxchg##suffix(shared<T>* p, O old, V new_,                                                 \
                      std::source_location loc = std::source_location::current()) {                \
        return p->update("cmpxchg" #suffix,                                                        \
                         Update{Update::cmpxchg, shared<T>::to_word(static_cast<T>(old)),          \
                                shared<T>::to_word(static_cast<T>(new_))},                         \
                         order, loc);                                                              \
    }                                                                                              \
    /* Whether it stored; if not, *old is the value found. */                                      \
    template <class T, class V>                                                                    \
    bool try_cmpxchg##suffix(shared<T>* p, T* old, V new_,                                         \
                             std::source_location loc = std::source_location::current()) {         \
        const T found = p->update("try_cmpxchg" #suffix,                                           \
                                  Update{Update::cmpxchg, shared<T>::to_word(*old),                \
                                         shared<T>::to_word(static_cast<T>(new_))},                \
                                  order, loc);                                                     \
        const bool stored = found == *old;                                                         \
        *old = found;                                                                              \
        return stored;                                                                             \
    }
LOCKCHECK_XCHG(, Ordering::full)
LOCKCHECK_XCHG(_relaxed, Ordering::relaxed)
LOCKCHECK_XCHG(_acquire, Ordering::acquire)
LOCKCHECK_XCHG(_release, Ordering::release)
#undef LOCKCHECK_XCHG

} // namespace lockcheck::detail
