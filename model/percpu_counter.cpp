// percpu_counter operations: each one scheduling point (the kernel's runs with preemption
// and interrupts off, so none of it interleaves). Under --memory-model lkmm each makes the
// accesses lib/percpu_counter.c makes: fbc->count, plain, under fbc->lock; a CPU's slot of
// fbc->counters through this_cpu operations, which count as marked (single instructions the
// compiler neither tears nor fuses), and other CPUs' slots by plain reads and writes.
#include "percpu_counter.hpp"

#include <cstdlib>

#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

// One access to fbc->count or a slot, recorded under lkmm. The accesses of unordered
// operations that conflict always race (plain ones under fbc->lock against a lockless this_cpu
// operation or percpu_counter_read()), so they read the latest write (field_read()).
void read(const percpu_counter& fbc, const long long& field, Ordering order = Ordering::plain) {
    if (weak_memory::on()) weak_memory::field_read(fbc, &field, field, order);
}
void write(const percpu_counter& fbc, long long& field, long long value,
           Ordering order = Ordering::plain) {
    if (weak_memory::on()) weak_memory::field_written(fbc, &field, field, value, order);
    field = value;
}
// raw_spin_lock(&fbc->lock), raw_spin_unlock(): the lock is the object's own location.
void lock(const percpu_counter& fbc) {
    if (weak_memory::on()) weak_memory::lock_acquired(fbc);
}
void unlock(const percpu_counter& fbc) {
    if (weak_memory::on()) weak_memory::lock_released(fbc);
}

long long& slot(percpu_counter& fbc, int cpu) {
    return fbc.counters[static_cast<std::size_t>(cpu)];
}

// percpu_counter_cpu_dead()
void fold_dead_cpu(Object* owner, int cpu) {
    auto& fbc = *static_cast<percpu_counter*>(owner);
    lock(fbc);
    read(fbc, fbc.count);
    read(fbc, slot(fbc, cpu));
    write(fbc, fbc.count, fbc.count + slot(fbc, cpu));
    write(fbc, slot(fbc, cpu), 0);
    unlock(fbc);
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
                             OpArgs{{amount, batch}, 2, true});
    long long& mine = slot(*fbc, raw_smp_processor_id());
    read(*fbc, mine, Ordering::relaxed); // __this_cpu_read()
    const long long delta = mine + amount;
    if (std::llabs(delta) >= batch) {
        lock(*fbc);
        read(*fbc, fbc->count);
        write(*fbc, fbc->count, fbc->count + delta);
        write(*fbc, mine, 0, Ordering::relaxed); // __this_cpu_sub()
        unlock(*fbc);
    } else {
        write(*fbc, mine, delta, Ordering::relaxed); // this_cpu_add()
    }
    this_execution().note(fbc->count);
}

void percpu_counter_add(percpu_counter* fbc, long long amount, std::source_location loc) {
    // percpu_counter_batch: max(32, 2 * nr_cpus)
    percpu_counter_add_batch(fbc, amount, std::max(32, 2 * nr_cpu_ids()), loc);
}

void percpu_counter_set(percpu_counter* fbc, long long amount, std::source_location loc) {
    this_execution().visible("percpu_counter_set", fbc, loc, nullptr, OpArgs{{amount, 0}, 1, true});
    lock(*fbc);
    for (long long& c : fbc->counters)
        write(*fbc, c, 0);
    write(*fbc, fbc->count, amount);
    unlock(*fbc);
}

long long percpu_counter_read(percpu_counter* fbc, std::source_location loc) {
    this_execution().visible_read("percpu_counter_read", fbc, loc);
    // `return fbc->count;`: a plain read with no lock, which may see an older count.
    long long count = fbc->count;
    if (weak_memory::on())
        count = weak_memory::load_field(*fbc, &fbc->count, fbc->count, Ordering::plain);
    this_execution().note(count);
    return observed(count);
}

long long percpu_counter_sum(percpu_counter* fbc, std::source_location loc) {
    this_execution().visible_read("percpu_counter_sum", fbc, loc);
    lock(*fbc);
    read(*fbc, fbc->count);
    long long sum = fbc->count;
    // for_each_cpu_or(cpu, cpu_online_mask, cpu_dying_mask): the model folds a dying CPU's
    // slot in the step that takes it offline, so the online mask alone.
    const unsigned long online = cpu_online_mask()->bits;
    for (int cpu = 0; cpu < nr_cpu_ids(); ++cpu)
        if ((online >> cpu) & 1) {
            read(*fbc, slot(*fbc, cpu));
            sum += slot(*fbc, cpu);
        }
    unlock(*fbc);
    this_execution().note(sum);
    return observed(sum);
}

} // namespace lockcheck::detail
