// Who holds a lock that has a read side (struct rw_semaphore, rwlock_t): one writer, or a set of
// readers (a task bit set, so nothing allocates), and the two conditions their lockers wait
// for. Each lock type adds its own waiting (sleep or spin) and lockdep map.
#pragma once

#include "task.hpp"

namespace lockcheck::detail {

struct rw_holders : Object {
    using Object::Object;
    // The writer, or else one reader: enough for a wait-for edge.
    const Task* holder() const final;
    const Task* exclusive_holder() const final { return writer; }
    void describe(std::string& out) const final;
    void fingerprint(StateHasher& h) const final {
        h.add(writer ? writer->id() : kNoTask);
        h.add(readers);
    }
    bool held_by(const task_struct* t) const { return writer == t || contains(readers, t->id()); }
    // What a reader waits for (no writer) and what a writer waits for (no holder at all), as
    // Execution::visible()'s enabled functions.
    static bool no_writer(const Object* obj, const Task&) {
        return !static_cast<const rw_holders*>(obj)->writer;
    }
    static bool unheld(const Object* obj, const Task&) {
        const auto* l = static_cast<const rw_holders*>(obj);
        return !l->writer && l->readers == 0;
    }

    task_struct* writer = nullptr;
    TaskSet readers = 0;
};

} // namespace lockcheck::detail
