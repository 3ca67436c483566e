// percpu_counter operations: each one scheduling point (the kernel's runs with preemption
// and interrupts off, so none of it interleaves).
#include "percpu_counter.hpp"

#include <cstdlib>

namespace lockcheck {

namespace {
void fold_dead_cpu(Object* owner, int cpu) {
    auto* fbc = static_cast<percpu_counter*>(owner);
    fbc->count += fbc->counters[static_cast<std::size_t>(cpu)];
    fbc->counters[static_cast<std::size_t>(cpu)] = 0;
}
} // namespace

percpu_counter::percpu_counter(std::string name, long long amount)
    : Object(std::move(name)), count(amount), counters(static_cast<std::size_t>(nr_cpu_ids()), 0) {
    cpuhp_setup_state(this, &fold_dead_cpu);
}

void percpu_counter::describe(std::string& out) const {
    out += "count = " + std::to_string(count) + ", per-CPU [";
    for (std::size_t i = 0; i < counters.size(); ++i)
        out += (i ? ", " : "") + std::to_string(counters[i]);
    out += "]";
}

long long percpu_counter::peek_sum() const {
    Execution::peeked(*this);
    long long sum = count;
    for (long long c : counters)
        sum += c;
    return sum;
}

void percpu_counter_add_batch(percpu_counter* fbc, long long amount, long long batch,
                              std::source_location loc) {
    this_execution().visible("percpu_counter_add_batch", fbc, loc, nullptr,
                             OpArgs{{amount, batch}, 2});
    long long& mine = fbc->counters[static_cast<std::size_t>(raw_smp_processor_id())];
    const long long delta = mine + amount;
    if (std::llabs(delta) >= batch) {
        fbc->count += delta;
        mine = 0;
    } else {
        mine = delta;
    }
    this_execution().note(fbc->count);
}

void percpu_counter_add(percpu_counter* fbc, long long amount, std::source_location loc) {
    // percpu_counter_batch: max(32, 2 * nr_cpus)
    percpu_counter_add_batch(fbc, amount, std::max(32, 2 * nr_cpu_ids()), loc);
}

void percpu_counter_set(percpu_counter* fbc, long long amount, std::source_location loc) {
    this_execution().visible("percpu_counter_set", fbc, loc, nullptr, OpArgs{{amount, 0}, 1});
    for (long long& c : fbc->counters)
        c = 0;
    fbc->count = amount;
}

long long percpu_counter_read(percpu_counter* fbc, std::source_location loc) {
    this_execution().visible_read("percpu_counter_read", fbc, loc);
    this_execution().note(fbc->count);
    return observed(fbc->count);
}

long long percpu_counter_sum(percpu_counter* fbc, std::source_location loc) {
    this_execution().visible_read("percpu_counter_sum", fbc, loc);
    long long sum = fbc->count;
    const unsigned long online = cpu_online_mask()->bits;
    for (std::size_t cpu = 0; cpu < fbc->counters.size(); ++cpu)
        if ((online >> cpu) & 1) sum += fbc->counters[cpu];
    this_execution().note(sum);
    return observed(sum);
}

} // namespace lockcheck
