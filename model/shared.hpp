// shared<T>: a plain shared variable (an i_size, a log_transid, a flags word). Every read
// and write is a scheduling point; peek() reads without one, for invariants only. read() and
// write() are plain accesses, read_once() and write_once() marked ones (READ_ONCE, WRITE_ONCE):
// two accesses of different tasks, at least one a write and one plain, not ordered by locks,
// atomics, wake-ups or completions, are a data race (scheduler/race_detector.hpp).
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
    explicit shared(std::string name, T init = T{})
        : Object(std::move(name), ObjectKind::variable), value_(init) {}

    // A plain load (`x`), named `op` in traces.
    T read(const char* op = "read",
           std::source_location loc = std::source_location::current()) const {
        return load(op, DataAccess::plain, loc);
    }
    // A plain store (`x = v`).
    void write(T v, const char* op = "write",
               std::source_location loc = std::source_location::current()) {
        store(v, op, DataAccess::plain, loc);
    }
    // A marked load or store: races only with a plain access.
    T read_once(const char* op = "READ_ONCE",
                std::source_location loc = std::source_location::current()) const {
        return load(op, DataAccess::marked, loc);
    }
    void write_once(T v, const char* op = "WRITE_ONCE",
                    std::source_location loc = std::source_location::current()) {
        store(v, op, DataAccess::marked, loc);
    }
    T peek() const {
        Execution::peeked(*this);
        return value_;
    }
    // For atomic read-modify-write primitives built on a word (bit operations): call only
    // right after their own scheduling point, declared with DataAccess::atomic.
    T& word() { return value_; }

    void fingerprint(StateHasher& h) const override { h.add(static_cast<std::uint64_t>(value_)); }
    void describe(std::string& out) const override {
        out += "= " + std::to_string(static_cast<std::int64_t>(value_));
    }

  private:
    T load(const char* op, DataAccess access, std::source_location loc) const {
        this_execution().visible_data(op, this, loc, false, access);
        this_execution().note(static_cast<std::int64_t>(value_));
        return observed(value_);
    }
    void store(T v, const char* op, DataAccess access, std::source_location loc) {
        this_execution().visible_data(op, this, loc, true, access);
        value_ = v;
        this_execution().note(static_cast<std::int64_t>(v));
    }

    T value_;
};

// Marked accesses, as the kernel writes them where a plain access could tear or be fused, or
// would race.
template <class T>
T READ_ONCE(const shared<T>& x, std::source_location loc = std::source_location::current()) {
    return x.read_once("READ_ONCE", loc);
}
template <class T, class V>
void WRITE_ONCE(shared<T>& x, V v, std::source_location loc = std::source_location::current()) {
    x.write_once(static_cast<T>(v), "WRITE_ONCE", loc);
}

} // namespace lockcheck
