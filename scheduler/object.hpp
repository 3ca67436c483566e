// Object: anything in a model that tasks share (a lock, an atomic, a wait queue, a variable).
// The scheduler knows objects only by name, by who holds them (for the wait-for graph of a
// deadlock report) and by a printable state (for traces); their semantics live in model/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chain_marks.hpp"
#include "fingerprint.hpp"

namespace lockcheck::detail {

class Task;

// How a lock (or anything tasks sleep on) was used, in scheduling steps: the engine's analogue
// of lock_stat's contention counts and hold times.
struct LockStats {
    std::uint64_t acquisitions = 0;
    std::uint64_t contended = 0; // acquisitions that waited: blocked, or after a failed trylock
    std::uint64_t sleeps = 0;    // tasks that slept on it: the context switches it forced
    std::uint64_t holds = 0;     // releases, each ending one hold
    std::uint64_t steps = 0;     // held, summed over the holds
    std::uint32_t longest = 0;
    void acquired(bool waited) {
        ++acquisitions;
        if (waited) ++contended;
    }
    void record(std::uint32_t held) {
        ++holds;
        steps += held;
        if (held > longest) longest = held;
    }
};

// What an object is to data-race detection (race_detector.hpp).
enum class ObjectKind : std::uint8_t {
    synchronizing, // a lock, an atomic, a wait queue, a list...: its operations order tasks
    variable,      // a plain shared variable (shared<T>): its accesses may race
};

class Object {
  public:
    // Registers the object with the execution being set up or run.
    explicit Object(std::string name, ObjectKind kind = ObjectKind::synchronizing);
    virtual ~Object() = default;
    Object(const Object&) = delete;
    Object& operator=(const Object&) = delete;

    const std::string& name() const { return name_; }
    int id() const { return id_; }
    // Once the memory this object lives in was freed (kfree), the object that stands for that
    // memory: any later operation on this one is a use-after-free. Null while it lives.
    const Object* freed_with() const { return freed_with_; }
    // The id under which partial-order reduction judges operations on this object to
    // conflict: its own, unless its operations reach other objects of a structure (a list
    // entry's neighbours), which then all share one.
    int conflict_id() const { return conflict_id_; }
    // What a step here depends on for its depth (chain_depth.hpp): shared, as the conflict id.
    ObjectSteps& chain_steps() const { return *chain_steps_; }

    // The task that holds this object, if one does (the owner of a lock).
    virtual const Task* holder() const { return nullptr; }
    // The task that holds this object so that no other task's operation that waits on it can
    // run until that task releases it (a mutex's owner, a rwsem's writer; not its readers).
    virtual const Task* exclusive_holder() const { return nullptr; }
    // The task `waiter`, blocked on this object, waits for: an edge of the wait-for graph.
    // A range lock answers with the holder of the range that overlaps the waiter's.
    virtual const Task* holder_for(const Task& waiter) const {
        (void)waiter;
        return holder();
    }
    // Appends the object's state as a trace shows it ("held by fsync0", "= 2").
    virtual void describe(std::string& out) const = 0;
    // describe(), for KASAN's report of a use of freed memory this object stands for by `user`:
    // what the model layer knows of why the free came too soon for `user` may follow, naming
    // earlier steps, which join `cited`.
    virtual void describe_use(std::string& out, const Task& user,
                              std::vector<std::uint32_t>& cited) const {
        (void)user;
        (void)cited;
        describe(out);
    }
    // A value a step on the object noted for its trace (Execution::note) as the trace shows it;
    // empty: the number itself. A pointer variable names what the pointer points to.
    virtual std::string value_text(std::int64_t value) const {
        (void)value;
        return {};
    }
    // Adds everything about the object that a later step can observe to a state's
    // fingerprint (a stateful search), tasks by id and objects by id: two objects that add
    // the same values behave alike from here on. Statistics (lock_stats) are not state.
    virtual void fingerprint(StateHasher& h) const = 0;

    // Filled in by locks as they are taken and released, and by sleeps on the object.
    mutable LockStats lock_stats;
    // The last step that changed this object (kept by the scheduling step for spin loops).
    mutable std::uint32_t last_written = 0;
    // Whether a property can read the object (it has a peek()): invariants order the writes
    // to such objects only (checker/dependency.hpp).
    bool watched() const { return watched_; }
    // The CPU whose per-CPU data this object is (one of a percpu<T>'s), or -1.
    int owner_cpu() const { return owner_cpu_; }
    void set_owner_cpu(int cpu) { owner_cpu_ = static_cast<std::int8_t>(cpu); }

  protected:
    // Its operations conflict with `first`'s, as one object's (a list entry with every other).
    void conflicts_as(const Object& first) {
        conflict_id_ = first.conflict_id_;
        chain_steps_ = first.chain_steps_;
    }
    // For objects with nothing a property can peek() at: locks, wait queues.
    void unwatched() { watched_ = false; }

  private:
    friend class Execution;
    std::string name_;
    int id_;
    int conflict_id_;
    // Kept beside the object, not by conflict id in ChainDepth: the step reads it with no lookup.
    mutable ObjectSteps own_chain_steps_;
    ObjectSteps* chain_steps_ = &own_chain_steps_;
    bool watched_ = true;
    std::int8_t owner_cpu_ = -1;
    const Object* freed_with_ = nullptr;
    std::uint32_t freed_at_ = 0; // the step of that kfree(), which a use-after-free cites
};

} // namespace lockcheck::detail
