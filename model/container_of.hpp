// container_of(ptr, &type::member): from a pointer to a member to the object that contains it,
// as include/linux/container_of.h does (a kref's release() gets the kref, and frees the object
// around it).
#pragma once

#include <cstddef>

namespace lockcheck::detail {

// The member's offset, measured on storage no object is ever constructed in (the offsetof()
// the kernel uses is not allowed for the non-standard-layout structs that hold objects).
template <class Type, class Member> std::ptrdiff_t member_offset(Member Type::*member) {
    union probe {
        probe() {}
        ~probe() {}
        Type object;
    };
    static probe p;
    return reinterpret_cast<const std::byte*>(&(p.object.*member)) -
           reinterpret_cast<const std::byte*>(&p.object);
}

template <class Type, class Member> Type* container_of(Member* ptr, Member Type::*member) {
    return reinterpret_cast<Type*>(reinterpret_cast<std::byte*>(ptr) - member_offset(member));
}

} // namespace lockcheck::detail
