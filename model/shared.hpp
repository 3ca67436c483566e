// shared<T>: a plain shared variable (an i_size, a log_transid, a flags word). Every read
// and write is a scheduling point; peek() reads without one, for invariants only.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "task.hpp"

namespace lockcheck {

template <class T> class shared final : public Object {
    static_assert(std::is_integral_v<T> || std::is_enum_v<T>,
                  "shared<T> holds integers, bools and enums: values a trace can print");

  public:
    explicit shared(std::string name, T init = T{}) : Object(std::move(name)), value_(init) {}

    T read(const char* op = "read") const {
        this_execution().visible_read(op, this);
        this_execution().note(static_cast<std::int64_t>(value_));
        return value_;
    }
    void write(T v, const char* op = "write") {
        this_execution().visible(op, this);
        value_ = v;
        this_execution().note(static_cast<std::int64_t>(v));
    }
    T peek() const { return value_; }
    // For read-modify-write primitives built on a word (bit operations): call only right
    // after their own scheduling point.
    T& word() { return value_; }

    void describe(std::string& out) const override {
        out += "= " + std::to_string(static_cast<std::int64_t>(value_));
    }

  private:
    T value_;
};

// Marked accesses, as the kernel writes them where a plain access could tear or be fused.
template <class T> T READ_ONCE(const shared<T>& x) {
    return x.read("READ_ONCE");
}
template <class T, class V> void WRITE_ONCE(shared<T>& x, V v) {
    x.write(static_cast<T>(v), "WRITE_ONCE");
}

} // namespace lockcheck
