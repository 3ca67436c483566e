// Task identities and sets of tasks as bit masks: the currency of one scheduling step.
// A step computes the enabled set and a strategy picks one member; nothing here allocates.
#pragma once

#include <bit>
#include <cstdint>

namespace lockcheck::detail {

using TaskId = std::uint16_t;
using TaskSet = std::uint64_t;

// One bit per task keeps the enabled set a register-sized value.
inline constexpr int kMaxTasks = 64;
// The most CPUs a model has (the online mask is one word).
inline constexpr int kMaxCpus = 64;
// Returned by a strategy that has no further choice to make (a replay that ran out).
inline constexpr TaskId kNoTask = 0xffff;

constexpr TaskSet task_bit(TaskId id) {
    return TaskSet{1} << id;
}
constexpr bool contains(TaskSet set, TaskId id) {
    return (set & task_bit(id)) != 0;
}
constexpr TaskId lowest(TaskSet set) {
    return static_cast<TaskId>(std::countr_zero(set));
}
constexpr int count(TaskSet set) {
    return std::popcount(set);
}
// {0, ..., n - 1}: the values of a model choice among n (n <= 64), as a set a search branches
// over like enabled tasks.
constexpr TaskSet first_n(std::uint32_t n) {
    return n >= 64 ? ~TaskSet{0} : (TaskSet{1} << n) - 1;
}

} // namespace lockcheck::detail
