// percpu_ref operations after lib/percpu-refcount.c: each one step on the ref, the switch to
// atomic mode a step of its own in the task percpu_ref_kill() spawns for it.
#include "percpu_ref.hpp"

#include "percpu.hpp"

namespace lockcheck::detail {

namespace {

// The kernel's is 1 << (BITS_PER_LONG - 1) on an unsigned long; half of that keeps this signed
// long's sums in range, and is as far from zero for any model.
constexpr long PERCPU_COUNT_BIAS = 1L << 62;

bool percpu_mode(const percpu_ref* ref) {
    return !ref->atomic && !ref->percpu_count.empty();
}

// The count a reader of the ref would see: the atomic count, and, until a switch to atomic mode
// has summed them into it, the per-CPU counters in place of its bias.
long logical_count(const percpu_ref* ref) {
    if (ref->atomic && !ref->switching) return ref->count;
    long n = ref->count - PERCPU_COUNT_BIAS;
    for (const long c : ref->percpu_count)
        n += c;
    return n;
}

// A WARN of lib/percpu-refcount.c.
void warn(const char* property, const std::string& what, std::source_location loc) {
    this_execution().fail(ViolationKind::refcount, property, what, loc);
}

// The step of `op`, which waits while a switch to atomic is in flight when `waits` (as
// __percpu_ref_switch_mode() does). The ref has its data (between init and exit), or the
// kernel dereferences a NULL ref->data.
void step(const char* op, percpu_ref* ref, std::source_location loc, bool waits = false) {
    this_execution().visible(
        op, ref, loc,
        waits ? [](const Object* obj,
                   const Task&) { return !static_cast<const percpu_ref*>(obj)->switching; }
              : EnabledFn{nullptr});
    if (!ref->data)
        this_execution().fail(ViolationKind::use_after_free, "percpu-ref-without-data",
                              std::string("BUG: kernel NULL pointer dereference: ") + op + "(" +
                                  ref->name() + ") by " + current()->name() +
                                  ": ref->data is NULL (before percpu_ref_init() or after "
                                  "percpu_ref_exit())",
                              loc);
}

// percpu_ref_put_many()'s atomic half: true if it dropped the last reference.
bool atomic_put(percpu_ref* ref) {
    return --ref->count == 0;
}

void switch_to_atomic_rcu(percpu_ref* ref, std::source_location loc);

// __percpu_ref_switch_to_atomic(): in atomic mode already, the confirmation is due at once
// (returned to be called after the step); else the flag, a reference for the switch, and the
// grace period's callback.
percpu_ref_func_t* switch_to_atomic(percpu_ref* ref, percpu_ref_func_t* confirm,
                                    std::source_location loc) {
    if (ref->atomic) return confirm;
    ref->atomic = true;
    ref->switching = true;
    ref->confirm_switch = confirm;
    ++ref->count; // put after confirmation
    spawn("rcu(" + ref->name() + ")", [ref, loc] { switch_to_atomic_rcu(ref, loc); });
    return nullptr;
}

// __percpu_ref_switch_to_percpu(): back from atomic mode, the bias in the atomic count.
void switch_to_percpu(percpu_ref* ref, std::source_location loc) {
    if (!ref->atomic) return;
    if (ref->percpu_count.empty()) {
        warn("percpu-ref-no-percpu-counters",
             "WARNING: percpu_ref " + ref->name() +
                 " switched back to percpu mode after its per-CPU counters were freed (it was "
                 "killed without PERCPU_REF_ALLOW_REINIT)",
             loc);
        return;
    }
    ref->count += PERCPU_COUNT_BIAS;
    std::fill(ref->percpu_count.begin(), ref->percpu_count.end(), 0);
    ref->atomic = false;
}

// percpu_ref_switch_to_atomic_rcu() and percpu_ref_call_confirm_rcu(), after the grace period.
void switch_to_atomic_rcu(percpu_ref* ref, std::source_location loc) {
    step("percpu_ref_switch_to_atomic_rcu", ref, loc);
    long sum = 0;
    for (long& c : ref->percpu_count) {
        sum += c;
        c = 0;
    }
    ref->count += sum - PERCPU_COUNT_BIAS;
    percpu_ref_func_t* confirm = ref->confirm_switch;
    ref->confirm_switch = nullptr;
    ref->switching = false;
    if (!ref->allow_reinit) ref->percpu_count.clear();
    this_execution().note(ref->count);
    if (ref->count <= 0)
        warn("percpu-ref-underflow",
             "percpu ref (" + ref->name() + ") <= 0 (" + std::to_string(ref->count) +
                 ") after switching to atomic",
             loc);
    const bool last = atomic_put(ref);
    if (confirm) confirm(ref);
    if (last) ref->release(ref);
}

} // namespace

void percpu_ref::describe(std::string& out) const {
    if (!data) {
        out += "no data (exited)";
        return;
    }
    out += atomic ? "atomic" : "percpu";
    out += ", count " + std::to_string(logical_count(this));
    if (dead) out += ", dead";
    if (switching) out += ", switching to atomic";
}

void percpu_ref::fingerprint(StateHasher& h) const {
    h.add(static_cast<std::uint64_t>(atomic) | std::uint64_t{dead} << 1 | std::uint64_t{data} << 2 |
          std::uint64_t{switching} << 3 | std::uint64_t{force_atomic} << 4 |
          std::uint64_t{allow_reinit} << 5);
    h.add(static_cast<std::uint64_t>(count));
    for (const long c : percpu_count)
        h.add(static_cast<std::uint64_t>(c));
    h.add(reinterpret_cast<std::uintptr_t>(release));
    h.add(reinterpret_cast<std::uintptr_t>(confirm_switch));
}

int percpu_ref_init(struct percpu_ref* ref, percpu_ref_func_t* release, unsigned flags, unsigned,
                    std::source_location loc) {
    Execution& ex = this_execution();
    if (ex.in_task()) ex.visible("percpu_ref_init", ref, loc);
    ref->data = true;
    ref->release = release;
    ref->confirm_switch = nullptr;
    ref->switching = false;
    ref->percpu_count.assign(static_cast<std::size_t>(nr_cpu_ids()), 0);
    ref->force_atomic = flags & PERCPU_REF_INIT_ATOMIC;
    ref->atomic = flags & (PERCPU_REF_INIT_ATOMIC | PERCPU_REF_INIT_DEAD);
    ref->allow_reinit = ref->atomic || (flags & PERCPU_REF_ALLOW_REINIT);
    ref->dead = flags & PERCPU_REF_INIT_DEAD;
    ref->count = ref->dead ? 0 : 1;
    if (!ref->atomic) ref->count += PERCPU_COUNT_BIAS;
    return 0;
}

void percpu_ref_get(struct percpu_ref* ref, std::source_location loc) {
    step("percpu_ref_get", ref, loc);
    if (percpu_mode(ref))
        ++ref->percpu_count[static_cast<std::size_t>(raw_smp_processor_id())];
    else
        ++ref->count;
    this_execution().note(logical_count(ref));
}

namespace {
bool tryget(const char* op, percpu_ref* ref, bool live, std::source_location loc) {
    step(op, ref, loc);
    bool got = true;
    if (percpu_mode(ref))
        ++ref->percpu_count[static_cast<std::size_t>(raw_smp_processor_id())];
    else if ((live && ref->dead) || ref->count == 0)
        got = false;
    else
        ++ref->count;
    if (!got) this_execution().nothing_written();
    this_execution().note(got);
    return observed(got);
}
} // namespace

bool percpu_ref_tryget(struct percpu_ref* ref, std::source_location loc) {
    return tryget("percpu_ref_tryget", ref, false, loc);
}

bool percpu_ref_tryget_live(struct percpu_ref* ref, std::source_location loc) {
    return tryget("percpu_ref_tryget_live", ref, true, loc);
}

void percpu_ref_put(struct percpu_ref* ref, std::source_location loc) {
    step("percpu_ref_put", ref, loc);
    bool last = false;
    if (percpu_mode(ref))
        --ref->percpu_count[static_cast<std::size_t>(raw_smp_processor_id())];
    else
        last = atomic_put(ref);
    this_execution().note(logical_count(ref));
    if (last) ref->release(ref);
}

namespace {
// percpu_ref_kill_and_confirm(), named `op` in traces (percpu_ref_kill() calls it).
void kill(const char* op, percpu_ref* ref, percpu_ref_func_t* confirm_kill,
          std::source_location loc) {
    step(op, ref, loc, true);
    if (ref->dead)
        warn("percpu-ref-killed-twice",
             "percpu_ref_kill_and_confirm called more than once on " + ref->name() + "!", loc);
    ref->dead = true;
    percpu_ref_func_t* confirm_now = switch_to_atomic(ref, confirm_kill, loc);
    const bool last = atomic_put(ref);
    this_execution().note(logical_count(ref));
    if (confirm_now) confirm_now(ref);
    if (last) ref->release(ref);
}

} // namespace

void percpu_ref_kill_and_confirm(struct percpu_ref* ref, percpu_ref_func_t* confirm_kill,
                                 std::source_location loc) {
    kill("percpu_ref_kill_and_confirm", ref, confirm_kill, loc);
}

void percpu_ref_kill(struct percpu_ref* ref, std::source_location loc) {
    kill("percpu_ref_kill", ref, nullptr, loc);
}

void percpu_ref_exit(struct percpu_ref* ref, std::source_location loc) {
    Execution& ex = this_execution();
    if (ex.in_task()) ex.visible("percpu_ref_exit", ref, loc);
    if (ref->switching)
        warn("percpu-ref-exit-while-switching",
             "WARNING: percpu_ref_exit(" + ref->name() +
                 ") while its switch to atomic mode waits for a grace period",
             loc);
    ref->percpu_count.clear();
    ref->atomic = true;
    ref->dead = true;
    ref->data = false;
}

bool percpu_ref_is_zero(struct percpu_ref* ref, std::source_location loc) {
    this_execution().visible_read("percpu_ref_is_zero", ref, loc);
    const bool zero = ref->atomic && ref->count == 0;
    this_execution().note(zero);
    return observed(zero);
}

void percpu_ref_resurrect(struct percpu_ref* ref, std::source_location loc) {
    step("percpu_ref_resurrect", ref, loc, true);
    if (!ref->dead || percpu_mode(ref))
        warn("percpu-ref-resurrect-live",
             "WARNING: percpu_ref_resurrect(" + ref->name() + ") of a ref that is not dead", loc);
    ref->dead = false;
    ++ref->count;
    if (!ref->force_atomic) switch_to_percpu(ref, loc);
    this_execution().note(logical_count(ref));
}

void percpu_ref_reinit(struct percpu_ref* ref, std::source_location loc) {
    if (!percpu_ref_is_zero(ref, loc))
        warn("percpu-ref-reinit-nonzero",
             "WARNING: percpu_ref_reinit(" + ref->name() + ") of a ref whose count is not zero",
             loc);
    percpu_ref_resurrect(ref, loc);
}

} // namespace lockcheck::detail
