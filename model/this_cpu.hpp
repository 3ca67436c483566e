// this_cpu operations on a per-CPU variable (DEFINE_PER_CPU(T, name) is percpu<shared<T>>):
// this_cpu_read(), this_cpu_write(), this_cpu_add(), this_cpu_sub(), this_cpu_inc() and
// this_cpu_dec(). Each is one step on the copy of the CPU the task is on when it reaches the
// call, which preemption cannot split, so they need no preempt_disable()
// (Documentation/core-api/this_cpu_ops.rst). They are marked accesses that imply no barrier:
// under --memory-model lkmm a read, a write or an unordered read-modify-write of the copy.
// Other CPUs' copies are reached through per_cpu_ptr().
#pragma once

#include "percpu.hpp"
#include "shared.hpp"

namespace lockcheck::detail {

// The running task's CPU's copy, with no check that preemption is off (the kernel's
// raw_cpu_ptr(); this_cpu_ptr() reports preemptible callers).
template <class T> T* raw_cpu_ptr(percpu<T>* ptr) {
    return ptr->at(raw_smp_processor_id());
}

template <class T>
T this_cpu_read(percpu<shared<T>>* pcp,
                std::source_location loc = std::source_location::current()) {
    return raw_cpu_ptr(pcp)->read_once("this_cpu_read", loc);
}

template <class T, class V>
void this_cpu_write(percpu<shared<T>>* pcp, V v,
                    std::source_location loc = std::source_location::current()) {
    raw_cpu_ptr(pcp)->write_once(static_cast<T>(v), "this_cpu_write", loc);
}

template <class T, class V>
void this_cpu_add(percpu<shared<T>>* pcp, V v,
                  std::source_location loc = std::source_location::current()) {
    const Update add{.op = Update::add, .a = static_cast<std::int64_t>(v)};
    raw_cpu_ptr(pcp)->update("this_cpu_add", add, Ordering::relaxed, loc);
}
template <class T, class V>
void this_cpu_sub(percpu<shared<T>>* pcp, V v,
                  std::source_location loc = std::source_location::current()) {
    const Update sub{.op = Update::add, .a = -static_cast<std::int64_t>(v)};
    raw_cpu_ptr(pcp)->update("this_cpu_sub", sub, Ordering::relaxed, loc);
}
template <class T>
void this_cpu_inc(percpu<shared<T>>* pcp,
                  std::source_location loc = std::source_location::current()) {
    raw_cpu_ptr(pcp)->update("this_cpu_inc", Update{.op = Update::add, .a = 1}, Ordering::relaxed,
                             loc);
}
template <class T>
void this_cpu_dec(percpu<shared<T>>* pcp,
                  std::source_location loc = std::source_location::current()) {
    raw_cpu_ptr(pcp)->update("this_cpu_dec", Update{.op = Update::add, .a = -1}, Ordering::relaxed,
                             loc);
}

} // namespace lockcheck::detail
