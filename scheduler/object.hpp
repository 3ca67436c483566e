// Object: anything in a model that tasks share (a lock, an atomic, a wait queue, a variable).
// The scheduler knows objects only by name, by who holds them (for the wait-for graph of a
// deadlock report) and by a printable state (for traces); their semantics live in model/.
#pragma once

#include <string>

namespace lockcheck {

class Task;

class Object {
  public:
    // Registers the object with the execution being set up or run.
    explicit Object(std::string name);
    virtual ~Object() = default;
    Object(const Object&) = delete;
    Object& operator=(const Object&) = delete;

    const std::string& name() const { return name_; }
    int id() const { return id_; }

    // The task a blocked task waits for when it waits on this object, if there is one.
    virtual const Task* holder() const { return nullptr; }
    // Appends the object's state as a trace shows it ("held by fsync0", "= 2").
    virtual void describe(std::string& out) const = 0;

  private:
    std::string name_;
    int id_;
};

} // namespace lockcheck
