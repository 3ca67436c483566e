// Graph: the execution graph of one execution under a weak memory model, as herd7 and GenMC
// see one: the memory events of each task in program order (po), which write each read reads
// from (rf), and each location's coherence order (co). It only records; what an LKMM
// execution may contain is lkmm.hpp's to decide.
#pragma once

#include <cstdint>
#include <vector>

namespace lockcheck::detail::memory {

enum class Kind : std::uint8_t { read, write, fence };

// The fences of linux-kernel.def, by their kernel names.
enum class Fence : std::uint8_t {
    none,
    mb,                // smp_mb()
    rmb,               // smp_rmb()
    wmb,               // smp_wmb()
    before_atomic,     // smp_mb__before_atomic()
    after_atomic,      // smp_mb__after_atomic()
    after_spinlock,    // smp_mb__after_spinlock()
    after_unlock_lock, // smp_mb__after_unlock_lock()
    rcu_lock,          // Rcu-lock: rcu_read_lock()
    rcu_unlock,        // Rcu-unlock: rcu_read_unlock()
    sync_rcu,          // Sync-rcu: synchronize_rcu()
};

// What an access is, beyond read or write: linux-kernel.cat's sets.
enum Tag : std::uint16_t {
    kAcquire = 1 << 0,   // smp_load_acquire(), an _acquire RMW's read
    kRelease = 1 << 1,   // smp_store_release(), a _release RMW's write
    kRmw = 1 << 2,       // either half of an atomic read-modify-write (the set RMW)
    kNoreturn = 1 << 3,  // the read of an RMW that returns nothing (atomic_inc): rmb skips it
    kLockRead = 1 << 4,  // LKR: spin_lock()'s read of the lock, an acquire
    kLockWrite = 1 << 5, // LKW: its write
    kUnlock = 1 << 6,    // UL: spin_unlock(), a release
    kInit = 1 << 7,      // IW: a location's initial value
    kMb = 1 << 8,        // either half of a fully ordered RMW (xchg(), atomic_inc_return())
    kPlain = 1 << 9,     // a plain access (C's x, x = v): not Marked, for the data-race flag
};

inline constexpr std::uint16_t kNoTask = 0xffff; // the initial writes belong to no task
inline constexpr std::uint32_t kNone = 0xffffffff;

struct Event {
    Kind kind = Kind::fence;
    Fence fence = Fence::none;
    std::uint16_t tags = 0;
    std::uint16_t task = kNoTask;
    std::uint32_t loc = kNone;
    std::int64_t value = 0;   // written, or read
    std::uint32_t rf = kNone; // a read: the write it reads from
    // An access whose address came from a read of its task (a pointer it loaded): that read,
    // the source of LKMM's `addr` dependency to it.
    std::uint32_t addr = kNone;
    std::uint32_t step = 0; // the execution's step that made it, for traces
    // A write: bit k set when the k-th read of its task before it (0: the nearest) is known not
    // to order it, no dependency (data or control) leading from that read to it
    // (docs/memory-model.md, "Load buffering"); every other read before it is taken to.
    std::uint64_t independent = 0;

    bool is(std::uint16_t tag) const { return (tags & tag) != 0; }
};

class Graph {
  public:
    // A new location holding `init` (its initial write); returns its number.
    std::uint32_t add_location(std::int64_t init);
    // Appends a read of `loc` by `task` that reads from `write`; returns the event. With
    // `write` kNone it reads `value` from a write not made yet (bind() then names it).
    std::uint32_t add_read(std::uint16_t task, std::uint32_t loc, std::uint16_t tags,
                           std::uint32_t write, std::uint32_t step, std::int64_t value = 0);
    // Appends a write of `value`, placed in `loc`'s coherence order right after the write at
    // `co_position` of co(loc) (co(loc).size() - 1: last).
    std::uint32_t add_write(std::uint16_t task, std::uint32_t loc, std::uint16_t tags,
                            std::int64_t value, std::size_t co_position, std::uint32_t step);
    std::uint32_t add_fence(std::uint16_t task, Fence fence, std::uint32_t step);
    // Event `e`'s address depends on read `read` (Event::addr).
    void set_addr(std::uint32_t e, std::uint32_t read) { events_[e].addr = read; }
    // Makes `read` read from `write`, a write appended after it (a read of a write its task
    // had not made yet when the read ran: load buffering).
    void bind(std::uint32_t read, std::uint32_t write) {
        events_[read].rf = write;
        events_[read].value = events_[write].value;
    }
    // Marks which reads before `write` in its task it does not depend on (Event::independent).
    void set_independent(std::uint32_t write, std::uint64_t reads) {
        events_[write].independent = reads;
    }
    // Off: LKMM's dep is taken empty, as though no write depended on any read, to ask whether
    // a dependency decided a check (weak_memory's rounds); on (the default): lkmm.cpp's dep.
    void set_dependencies(bool on) { dependencies_ = on; }
    bool dependencies() const { return dependencies_; }
    // Removes the event added last (a candidate that was tried).
    void pop();

    const std::vector<Event>& events() const { return events_; }
    const Event& operator[](std::uint32_t e) const { return events_[e]; }
    std::size_t size() const { return events_.size(); }
    std::size_t locations() const { return co_.size(); }
    // loc's writes in coherence order, its initial write first.
    const std::vector<std::uint32_t>& co(std::uint32_t loc) const { return co_[loc]; }
    // Where a write stands in its location's coherence order.
    std::size_t co_position(std::uint32_t write) const;
    // The value coherence-last in `loc`: what it holds once every store has propagated.
    std::int64_t latest(std::uint32_t loc) const { return events_[co_[loc].back()].value; }

  private:
    std::uint32_t append(const Event& e);

    std::vector<Event> events_;
    std::vector<std::vector<std::uint32_t>> co_;
    bool dependencies_ = true;
};

} // namespace lockcheck::detail::memory
