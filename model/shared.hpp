// shared<T>: a plain shared variable (an i_size, a log_transid, a flags word, a pointer
// published to other tasks). Every read and write is a scheduling point; peek() reads without
// one, for invariants only. read() and write() are plain accesses, read_once() and
// write_once() marked ones (READ_ONCE, WRITE_ONCE): two accesses of different tasks, at least
// one a write and one plain, not ordered by locks, atomics, wake-ups or completions, are a data
// race (scheduler/race_detector.hpp). A pointer is a value like any other; under lkmm the
// accesses a task makes through a pointer it loaded depend on that load by address (LKMM's
// addr); traces name what it points to (pointer_token()), and dereferencing it after kfree() is
// the use-after-free of the object reached.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "percpu.hpp"
#include "slab.hpp"
#include "task.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

template <class T> class shared final : public Object {
    static_assert(std::is_integral_v<T> || std::is_enum_v<T> || std::is_pointer_v<T>,
                  "shared<T> holds integers, bools, enums and pointers: values a trace can print");

  public:
    // The value as the memory model and read-modify-writes carry it (a pointer: its address).
    static std::int64_t to_word(T v) {
        if constexpr (std::is_pointer_v<T>)
            return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(v));
        else
            return static_cast<std::int64_t>(v);
    }
    static T from_word(std::int64_t w) {
        if constexpr (std::is_pointer_v<T>)
            return reinterpret_cast<T>(static_cast<std::uintptr_t>(w));
        else
            return static_cast<T>(w);
    }

    explicit shared(std::string name, T init = T{})
        : Object(std::move(name), ObjectKind::variable), value_(init) {}

    // A plain load (`x`), named `op` in traces.
    T read(const char* op = "read",
           std::source_location loc = std::source_location::current()) const {
        return load(op, DataAccess::plain, loc, Ordering::plain);
    }
    // A plain store (`x = v`).
    void write(T v, const char* op = "write",
               std::source_location loc = std::source_location::current()) {
        store(v, op, DataAccess::plain, loc, Ordering::plain);
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
    // smp_load_acquire(&x) and smp_store_release(&x, v): marked accesses that order the
    // task's later accesses after the load, and its earlier ones before the store.
    T load_acquire(const char* op = "smp_load_acquire",
                   std::source_location loc = std::source_location::current()) const {
        return load(op, DataAccess::acquire, loc, Ordering::acquire);
    }
    void store_release(T v, const char* op = "smp_store_release",
                       std::source_location loc = std::source_location::current()) {
        store(v, op, DataAccess::release, loc, Ordering::release);
    }
    // An atomic read-modify-write of the variable (xchg(), cmpxchg(), cmpxchg.hpp): stores
    // u.apply(old) if there is a value to store; returns the value read. One that stores
    // nothing (a failed cmpxchg) wrote nothing.
    T update(const char* op, Update u, Ordering order, std::source_location loc) {
        Execution& ex = this_execution();
        ex.visible_data(op, this, loc, true, DataAccess::atomic);
        T old = value_;
        if (weak_memory::on()) [[unlikely]] {
            const weak_memory::RmwResult r =
                weak_memory::rmw(*this, to_word(value_), u, order, std::is_pointer_v<T>);
            old = from_word(r.old);
            if (r.latest) value_ = from_word(r.value);
            if (!r.wrote) ex.nothing_written();
        } else if (const std::optional<std::int64_t> stored = u.apply(to_word(old))) {
            value_ = from_word(*stored);
        } else {
            ex.nothing_written();
        }
        return returned(old);
    }
    T peek() const {
        Execution::peeked(*this);
        return value_;
    }
    // For atomic read-modify-write primitives built on a word (bit operations): call only
    // right after their own scheduling point, declared with DataAccess::atomic.
    T& word() { return value_; }

    void fingerprint(StateHasher& h) const override { h.add(identity(value_)); }
    void describe(std::string& out) const override {
        if constexpr (std::is_pointer_v<T>)
            out += "= " + pointer_text(pointer_token(value_));
        else
            out += "= " + std::to_string(static_cast<std::int64_t>(value_));
    }
    std::string value_text(std::int64_t value) const override {
        if constexpr (std::is_pointer_v<T>)
            return pointer_text(value);
        else
            return Object::value_text(value);
    }

  private:
    T load(const char* op, DataAccess access, std::source_location loc,
           Ordering order = Ordering::relaxed) const {
        kcsan_marked(access, order);
        Execution& ex = this_execution();
        ex.visible_data(op, this, loc, false, access, {}, section());
        T seen = value_;
        if (weak_memory::on()) [[unlikely]] {
            seen =
                from_word(weak_memory::load(*this, to_word(value_), order, std::is_pointer_v<T>));
            if constexpr (std::is_pointer_v<T>) weak_memory::pointer_loaded(seen);
        }
        return returned(seen);
    }
    void store(T v, const char* op, DataAccess access, std::source_location loc,
               Ordering order = Ordering::relaxed) {
        kcsan_marked(access, order);
        Execution& ex = this_execution();
        ex.visible_data(op, this, loc, true, access, {}, section());
        // Under lkmm a store that LKMM places before another in coherence order leaves the
        // variable holding the later one.
        if (!weak_memory::on() ||
            weak_memory::store(*this, to_word(value_), to_word(v), order, std::is_pointer_v<T>))
            value_ = v;
        ex.note(shown(v));
    }

    // A plain access inside one of KCSAN's atomic regions (a seqcount's sections) is a marked
    // one: not a data race, and under lkmm a relaxed access, which the seqcount's retry and
    // barriers order.
    static void kcsan_marked(DataAccess& access, Ordering& order) {
        if (access == DataAccess::plain && kcsan_atomic_region()) [[unlikely]] {
            access = DataAccess::marked;
            order = Ordering::relaxed;
        }
    }

    // What a trace notes for `v`: a pointer's token (pointer_token()), never its address.
    static std::int64_t shown(T v) {
        if constexpr (std::is_pointer_v<T>)
            return pointer_token(v);
        else
            return to_word(v);
    }
    // What tells `v` apart in a fingerprint and a task's history: the token, or the address
    // of a pointer into memory that has none.
    static std::uint64_t identity(T v, std::int64_t token) {
        return static_cast<std::uint64_t>(
            std::is_pointer_v<T> && token == kPointerElsewhere ? to_word(v) : token);
    }
    static std::uint64_t identity(T v) { return identity(v, shown(v)); }
    // What a load or read-modify-write returns to the model: noted for its trace, and
    // observed (Execution::observe()).
    static T returned(T v) {
        Execution& ex = this_execution();
        const std::int64_t token = shown(v);
        ex.note(token);
        ex.observe(identity(v, token));
        return v;
    }

    // Per-CPU data: the section of its CPU the running task accesses it in.
    std::uint16_t section() const { return owner_cpu() < 0 ? 0 : percpu_section(owner_cpu()); }

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

template <class T>
T smp_load_acquire(const shared<T>* p, std::source_location loc = std::source_location::current()) {
    return p->load_acquire("smp_load_acquire", loc);
}
template <class T, class V>
void smp_store_release(shared<T>* p, V v,
                       std::source_location loc = std::source_location::current()) {
    p->store_release(static_cast<T>(v), "smp_store_release", loc);
}

} // namespace lockcheck::detail
