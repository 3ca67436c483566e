// Lockdep's irq-safety: a lock class used in an interrupt and taken with that interrupt
// enabled ("inconsistent lock state"), and a dependency that connects an irq-safe class to an
// irq-unsafe one, found whichever comes first (the dependency: "HARDIRQ-safe -> HARDIRQ-unsafe
// lock order detected"; the usage: "possible irq lock inversion"), each in lockdep's shape and
// by every exhaustive search; the same locks taken with spin_lock_irqsave() everywhere verify.
// Lockdep's context assertions. Per-CPU data under contexts: the tasks of one CPU in
// non-preemptible sections do not race on it, an interrupt that can break into the section
// does.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// A device's lock, taken by its interrupt handler, and a statistics lock taken under it.
struct dev {
    spinlock_t lock{"dev->lock"};
    spinlock_t stats_lock{"stats_lock"};
    struct completion irq_seen {
        "irq_seen"
    };
};

thread_local dev* the_dev = nullptr;

// The handler takes dev->lock and says it ran: the task can wait for it, so that the usage
// in hardirq context comes first in every execution.
irqreturn_t dev_irq(int, void* data) {
    auto* d = static_cast<dev*>(data);
    spin_lock(&d->lock);
    spin_unlock(&d->lock);
    complete(&d->irq_seen);
    return IRQ_HANDLED;
}

// How the task takes its locks once the interrupt has been served.
enum class Submit {
    plain_lock,         // spin_lock(&dev->lock): inconsistent {IN-HARDIRQ-W} -> {HARDIRQ-ON-W}
    held_across_enable, // local_irq_disable(); spin_lock(); local_irq_enable(): the same
    stats_unsafe,       // stats_lock with irqs on, then under dev->lock: safe -> unsafe
    irqsave_everywhere, // both locks always with spin_lock_irqsave(): correct
};

Setup after_the_interrupt(Submit task) {
    return [task] {
        dev& d = model_state<dev>();
        request_irq(17, dev_irq, 0, "dev", &d);
        irq_fires(17); // the device completes: the task may wait for it
        spawn("submit", [&d, task] {
            wait_for_completion(&d.irq_seen);
            unsigned long flags = 0, inner = 0;
            switch (task) {
            case Submit::plain_lock:
                spin_lock(&d.lock);
                spin_unlock(&d.lock);
                break;
            case Submit::held_across_enable:
                local_irq_disable();
                spin_lock(&d.lock);
                local_irq_enable();
                spin_unlock(&d.lock);
                break;
            case Submit::stats_unsafe:
                spin_lock(&d.stats_lock);
                spin_unlock(&d.stats_lock);
                spin_lock_irqsave(&d.lock, flags);
                spin_lock(&d.stats_lock);
                spin_unlock(&d.stats_lock);
                spin_unlock_irqrestore(&d.lock, flags);
                break;
            case Submit::irqsave_everywhere:
                spin_lock_irqsave(&d.stats_lock, inner);
                spin_unlock_irqrestore(&d.stats_lock, inner);
                spin_lock_irqsave(&d.lock, flags);
                spin_lock_irqsave(&d.stats_lock, inner);
                spin_unlock_irqrestore(&d.stats_lock, inner);
                spin_unlock_irqrestore(&d.lock, flags);
                break;
            }
        });
    };
}

// A softirq that takes `lock`, raised by the task once it has used its locks: the usage in
// softirq context comes last in every execution.
void net_rx_action() {
    spin_lock(&the_dev->lock);
    spin_unlock(&the_dev->lock);
}

enum class Softirq {
    lock_first,       // the task takes dev->lock with bottom halves on: inconsistent
    stats_under_lock, // dev->lock -> stats_lock, stats_lock with bh on: inversion
};

Setup before_the_softirq(Softirq what) {
    return [what] {
        the_dev = &model_state<dev>();
        open_softirq(NET_RX_SOFTIRQ, net_rx_action);
        spawn("submit", [what] {
            dev& d = *the_dev;
            if (what == Softirq::lock_first) {
                spin_lock(&d.lock);
                spin_unlock(&d.lock);
            } else {
                spin_lock(&d.stats_lock);
                spin_unlock(&d.stats_lock);
                spin_lock_bh(&d.lock);
                spin_lock(&d.stats_lock);
                spin_unlock(&d.stats_lock);
                spin_unlock_bh(&d.lock);
            }
            raise_softirq(NET_RX_SOFTIRQ);
        });
    };
}

// The details, one a line, for failure messages and for matching whole lines.
std::string details_of(const Violation& v) {
    std::string text;
    for (const std::string& line : v.details)
        text += line + "\n";
    return text;
}

// The lines of `v` from the one that starts with `first`, as many as `expected` has.
void expect_lines(const Violation& v, const std::vector<std::string>& expected) {
    const std::string all = details_of(v);
    std::size_t at = 0;
    while (at < v.details.size() && v.details[at] != expected.front())
        ++at;
    CHECK_TEXT(at < v.details.size(), ("no line '" + expected.front() + "' in\n" + all).c_str());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CHECK_TEXT(at + i < v.details.size(), all.c_str());
        CHECK_EQUAL_TEXT(expected[i], v.details[at + i], all.c_str());
    }
}

// The violation every exhaustive search finds (exactly one, of kind lock_order and
// `property`), as DFS reports it, with the steps it cites; the trace of its schedule.
struct Found {
    SearchResult result;
    const Violation& violation() const { return result.findings.front().violation; }
};
Found found(const Setup& setup, const std::string& property) {
    expect_found_by_every_search(setup, ViolationKind::lock_order, property, property);
    Found f{check_model(setup)};
    only_violation(f.result, property);
    return f;
}

// The step of the trace that replays `f`'s finding at which `task` runs `operation`.
const TraceStep* step_of(const Trace& trace, const std::string& task,
                         const std::string& operation) {
    for (const TraceStep& s : trace.steps)
        if (s.task == task && s.operation == operation) return &s;
    return nullptr;
}

Trace trace_of(const Setup& setup, const Found& f) {
    const ReplayResult rr = replay(setup, f.result.findings.front().schedule, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    return rr.trace;
}

bool cites(const Violation& v, std::uint32_t step) {
    for (std::uint32_t s : v.cited)
        if (s == step) return true;
    return false;
}

} // namespace

TEST_GROUP(LockdepIrq){};

TEST(LockdepIrq, a_lock_taken_in_a_hardirq_and_later_with_irqs_on_is_an_inconsistent_lock_state) {
    const Setup setup = after_the_interrupt(Submit::plain_lock);
    const Found f = found(setup, "inconsistent-lock-state");
    const Violation& v = f.violation();
    CHECK_EQUAL(
        std::string("inconsistent lock state: {IN-HARDIRQ-W} -> {HARDIRQ-ON-W} usage of dev->lock"),
        v.message);
    expect_lines(v, {"inconsistent {IN-HARDIRQ-W} -> {HARDIRQ-ON-W} usage.",
                     "submit [HC0[0]:SC0[0]:HE1:SE1] takes:"});
    expect_lines(v, {"{IN-HARDIRQ-W} state was registered at:"});
    expect_lines(v, {" Possible unsafe locking scenario:", "       CPU0", "       ----",
                     "  lock(dev->lock);", "  <Interrupt>", "    lock(dev->lock);",
                     " *** DEADLOCK ***"});
    // The trace shows the interrupt's arrival, and the report names the handler's step.
    const Trace trace = trace_of(setup, f);
    const TraceStep* entry = step_of(trace, "irq/17-dev", "irq_handler_entry");
    const TraceStep* used = step_of(trace, "irq/17-dev", "spin_lock");
    CHECK_TEXT(entry && used, details_of(v).c_str());
    CHECK_EQUAL(std::string("in hardirq irq/17-dev, interrupting submit"), entry->state);
    CHECK_TEXT(cites(v, used->step), details_of(v).c_str());
    bool registered = false;
    for (const std::string& line : v.details)
        registered = registered ||
                     line.starts_with("  irq/17-dev took it at step " + std::to_string(used->step));
    CHECK_TEXT(registered, details_of(v).c_str());
}

TEST(LockdepIrq, turning_interrupts_on_while_holding_a_hardirq_safe_lock_is_inconsistent_too) {
    const Found f =
        found(after_the_interrupt(Submit::held_across_enable), "inconsistent-lock-state");
    const Violation& v = f.violation();
    CHECK_EQUAL(
        std::string("inconsistent lock state: {IN-HARDIRQ-W} -> {HARDIRQ-ON-W} usage of dev->lock"),
        v.message);
    bool held = false;
    for (const std::string& line : v.details)
        held = held || (line.starts_with("  dev->lock{?...}: submit held it at step ") &&
                        contains(line, "(local_irq_enable)"));
    CHECK_TEXT(held, details_of(v).c_str());
}

TEST(LockdepIrq, a_lock_taken_with_bottom_halves_on_and_later_in_a_softirq_is_inconsistent) {
    const Found f = found(before_the_softirq(Softirq::lock_first), "inconsistent-lock-state");
    const Violation& v = f.violation();
    CHECK_EQUAL(
        std::string("inconsistent lock state: {SOFTIRQ-ON-W} -> {IN-SOFTIRQ-W} usage of dev->lock"),
        v.message);
    expect_lines(v, {"inconsistent {SOFTIRQ-ON-W} -> {IN-SOFTIRQ-W} usage.",
                     "softirq/0 [HC0[0]:SC1[1]:HE1:SE0] takes:"});
    expect_lines(v, {"{SOFTIRQ-ON-W} state was registered at:"});
}

TEST(LockdepIrq,
     a_dependency_from_a_hardirq_safe_lock_to_an_unsafe_one_is_reported_in_lockdeps_shape) {
    const Setup setup = after_the_interrupt(Submit::stats_unsafe);
    const Found f = found(setup, "irq-safe-to-unsafe-lock-order");
    const Violation& v = f.violation();
    CHECK_EQUAL(std::string("HARDIRQ-safe -> HARDIRQ-unsafe lock order detected: dev->lock -> "
                            "stats_lock connects HARDIRQ-irq-safe dev->lock to "
                            "HARDIRQ-irq-unsafe stats_lock"),
                v.message);
    expect_lines(v, {"submit [HC0[0]:SC0[0]:HE0:SE1] is trying to acquire:", "  stats_lock{+.+.}",
                     "and this task is already holding:"});
    expect_lines(
        v, {"which would create a new lock dependency:", "  dev->lock{-...} -> stats_lock{+.+.}",
            "but this new dependency connects a HARDIRQ-irq-safe lock:", "  dev->lock{-...}",
            "... which became HARDIRQ-irq-safe at:"});
    expect_lines(v, {"to a HARDIRQ-irq-unsafe lock:", "  stats_lock{+.+.}",
                     "... which became HARDIRQ-irq-unsafe at:"});
    const std::string cpu1(31, ' ');
    expect_lines(
        v, {" Possible interrupt unsafe locking scenario:", "       CPU0                    CPU1",
            "       ----                    ----", "  lock(stats_lock);",
            cpu1 + "local_irq_disable();", cpu1 + "lock(dev->lock);", cpu1 + "lock(stats_lock);",
            "  <Interrupt>", "    lock(dev->lock);", " *** DEADLOCK ***",
            "the dependencies between HARDIRQ-irq-safe lock and the holding lock:",
            "  dev->lock itself",
            "the dependencies between the lock to be acquired and HARDIRQ-irq-unsafe "
            "lock:",
            "  stats_lock itself"});
    const Trace trace = trace_of(setup, f);
    const TraceStep* used = step_of(trace, "irq/17-dev", "spin_lock");
    CHECK_TEXT(used && cites(v, used->step), details_of(v).c_str());
    CHECK_TEXT(step_of(trace, "irq/17-dev", "irq_handler_entry"), details_of(v).c_str());
}

TEST(LockdepIrq,
     a_softirq_that_takes_a_lock_after_its_dependency_on_an_unsafe_one_is_an_inversion) {
    const Found f = found(before_the_softirq(Softirq::stats_under_lock), "irq-lock-inversion");
    const Violation& v = f.violation();
    CHECK_EQUAL(std::string("possible irq lock inversion dependency detected: SOFTIRQ-irq-safe "
                            "dev->lock took SOFTIRQ-irq-unsafe stats_lock in the past"),
                v.message);
    expect_lines(v, {"softirq/0 [HC0[0]:SC1[1]:HE1:SE0] just changed the state of lock:"});
    expect_lines(v, {"but this lock took another, SOFTIRQ-unsafe lock in the past:",
                     "  stats_lock{+.+.}", "... which became SOFTIRQ-irq-unsafe at:"});
    expect_lines(v, {"and interrupts could create inverse lock ordering between them."});
    expect_lines(v, {"the shortest dependencies between 2nd lock and 1st lock:"});
}

TEST(LockdepIrq, spin_lock_irqsave_everywhere_is_verified_by_every_search) {
    expect_verified_by_every_search(after_the_interrupt(Submit::irqsave_everywhere),
                                    "irqsave everywhere");
}

TEST(LockdepIrq, dpor_reaches_what_dfs_does_with_every_irq_usage_report) {
    for (Submit t : {Submit::plain_lock, Submit::held_across_enable, Submit::stats_unsafe,
                     Submit::irqsave_everywhere})
        expect_dpor_reaches_what_dfs_does(after_the_interrupt(t), "after the interrupt");
    for (Softirq s : {Softirq::lock_first, Softirq::stats_under_lock})
        expect_dpor_reaches_what_dfs_does(before_the_softirq(s), "before the softirq");
}

namespace {

thread_local spinlock_t* assert_lock = nullptr;

// A task's body that breaks (or keeps) one of lockdep's assertions, and what breaking it says.
struct Assertion {
    const char* name;
    void (*broken)();
    void (*kept)();
    ViolationKind kind;
    const char* property;
    const char* message;
};

const Assertion kAssertions[] = {
    {"irqs_disabled", [] { lockdep_assert_irqs_disabled(); },
     [] {
         local_irq_disable();
         lockdep_assert_irqs_disabled();
         local_irq_enable();
     },
     ViolationKind::irq_flags, "lockdep-assert-irqs-disabled",
     "WARNING: lockdep_assert_irqs_disabled() failed: t runs with interrupts enabled"},
    {"irqs_enabled",
     [] {
         local_irq_disable();
         lockdep_assert_irqs_enabled();
         local_irq_enable();
     },
     [] { lockdep_assert_irqs_enabled(); }, ViolationKind::irq_flags, "lockdep-assert-irqs-enabled",
     "WARNING: lockdep_assert_irqs_enabled() failed: t runs with interrupts disabled"},
    {"in_softirq", [] { lockdep_assert_in_softirq(); },
     [] {
         local_bh_disable();
         lockdep_assert_in_softirq();
         local_bh_enable();
     },
     ViolationKind::irq_flags, "lockdep-assert-in-softirq",
     "WARNING: lockdep_assert_in_softirq() failed: t runs in process context with bottom "
     "halves enabled"},
    {"preemption_disabled", [] { lockdep_assert_preemption_disabled(); },
     [] {
         spin_lock(assert_lock);
         lockdep_assert_preemption_disabled();
         spin_unlock(assert_lock);
     },
     ViolationKind::preempt, "lockdep-assert-preemption-disabled",
     "WARNING: lockdep_assert_preemption_disabled() failed: t is preemptible"},
    {"preemption_enabled",
     [] {
         preempt_disable();
         lockdep_assert_preemption_enabled();
         preempt_enable();
     },
     [] { lockdep_assert_preemption_enabled(); }, ViolationKind::preempt,
     "lockdep-assert-preemption-enabled",
     "WARNING: lockdep_assert_preemption_enabled() failed: t cannot be preempted (with "
     "preemption disabled)"},
    {"held_once", [] { lockdep_assert_held_once(assert_lock); },
     [] {
         spin_lock(assert_lock);
         lockdep_assert_held_once(assert_lock);
         spin_unlock(assert_lock);
     },
     ViolationKind::lock_misuse, "lockdep-assert-held-once",
     "WARNING: lockdep_assert_held_once(l) failed: t does not hold it"},
    {"none_held_once",
     [] {
         spin_lock(assert_lock);
         lockdep_assert_none_held_once();
         spin_unlock(assert_lock);
     },
     [] { lockdep_assert_none_held_once(); }, ViolationKind::lock_misuse,
     "lockdep-assert-none-held-once", "WARNING: lockdep_assert_none_held_once() failed: t holds l"},
};

Setup asserting(void (*body)()) {
    return [body] {
        assert_lock = &model_state<spinlock_t>("l");
        spawn("t", body);
    };
}

} // namespace

TEST_GROUP(LockdepAssert){};

TEST(LockdepAssert, each_context_assertion_warns_with_the_kernels_text_where_it_does_not_hold) {
    for (const Assertion& a : kAssertions) {
        const SearchResult r = check_model(asserting(a.broken));
        const Violation& v = only_violation(r, a.name);
        CHECK_EQUAL_TEXT(a.kind, v.kind, a.name);
        CHECK_EQUAL_TEXT(std::string(a.property), v.property, a.name);
        CHECK_EQUAL_TEXT(std::string(a.message), v.message, a.name);
    }
}

TEST(LockdepAssert, each_context_assertion_is_silent_where_it_holds) {
    for (const Assertion& a : kAssertions)
        expect_verified(check_model(asserting(a.kept)), a.name);
}

TEST(LockdepAssert, a_softirq_and_a_hardirq_handler_answer_the_context_assertions) {
    // In a softirq: in softirq, interrupts on, preemption off; in a hardirq: interrupts off
    // and not in softirq.
    const Setup setup = [] {
        open_softirq(NET_RX_SOFTIRQ, [] {
            lockdep_assert_in_softirq();
            lockdep_assert_irqs_enabled();
            lockdep_assert_preemption_disabled();
        });
        request_irq(
            5,
            [](int, void*) {
                lockdep_assert_irqs_disabled();
                lockdep_assert_preemption_disabled();
                raise_softirq(NET_RX_SOFTIRQ);
                lockdep_assert_in_softirq();
                return IRQ_HANDLED;
            },
            0, "five", nullptr);
        irq_fires(5);
        spawn("t", [] { cpu_relax(); });
    };
    const SearchResult r = check_model(setup);
    const Violation& v = only_violation(r);
    CHECK_EQUAL(std::string("WARNING: lockdep_assert_in_softirq() failed: irq/5-five runs in "
                            "hardirq context"),
                v.message);
}

namespace {

// A per-CPU counter and two locks, as a driver's per-CPU statistics are.
struct pcpu_stats {
    percpu<shared<int>> count{"count"};
    spinlock_t a{"a"};
    spinlock_t b{"b"};
};

thread_local pcpu_stats* stats = nullptr;

// How a task keeps its CPU while it updates its CPU's counter.
enum class Section { preempt, irq, bh, spin_lock, spin_lock_irq };

void count_one(Section section, spinlock_t* lock) {
    switch (section) {
    case Section::preempt:
        preempt_disable();
        break;
    case Section::irq:
        local_irq_disable();
        break;
    case Section::bh:
        local_bh_disable();
        break;
    case Section::spin_lock:
        spin_lock(lock);
        break;
    case Section::spin_lock_irq:
        spin_lock_irq(lock);
        break;
    }
    shared<int>* c = this_cpu_ptr(&stats->count);
    c->write(c->read() + 1);
    switch (section) {
    case Section::preempt:
        preempt_enable();
        break;
    case Section::irq:
        local_irq_enable();
        break;
    case Section::bh:
        local_bh_enable();
        break;
    case Section::spin_lock:
        spin_unlock(lock);
        break;
    case Section::spin_lock_irq:
        spin_unlock_irq(lock);
        break;
    }
}

// Two tasks of CPU 0, each in its own non-preemptible section (under two different locks).
Setup two_tasks_of_one_cpu(Section section) {
    return [section] {
        stats = &model_state<pcpu_stats>();
        spawn("t0", [section] { count_one(section, &stats->a); });
        spawn("t1", [section] { count_one(section, &stats->b); });
    };
}

// A task of CPU 0 in a section, and an interrupt handler of CPU 0 that counts too.
Setup task_and_handler(Section section) {
    return [section] {
        stats = &model_state<pcpu_stats>();
        request_irq(
            9,
            [](int, void*) {
                shared<int>* c = this_cpu_ptr(&stats->count);
                c->write(c->read() + 1);
                return IRQ_HANDLED;
            },
            0, "stats", nullptr);
        irq_may_fire(9);
        spawn("t0", [section] { count_one(section, &stats->a); });
    };
}

const char* section_name(Section s) {
    switch (s) {
    case Section::preempt:
        return "preempt_disable";
    case Section::irq:
        return "local_irq_disable";
    case Section::bh:
        return "local_bh_disable";
    case Section::spin_lock:
        return "spin_lock";
    case Section::spin_lock_irq:
        return "spin_lock_irq";
    }
    return "";
}

} // namespace

TEST_GROUP(PerCpuContexts){};

TEST(PerCpuContexts, two_tasks_of_one_cpu_in_non_preemptible_sections_do_not_race_on_its_data) {
    for (Section s :
         {Section::preempt, Section::irq, Section::bh, Section::spin_lock, Section::spin_lock_irq})
        expect_verified_by_every_search(two_tasks_of_one_cpu(s), section_name(s));
}

TEST(PerCpuContexts, a_handler_that_can_interrupt_the_section_races_on_the_cpus_data) {
    for (Section s : {Section::preempt, Section::bh, Section::spin_lock})
        expect_found_by_every_search(task_and_handler(s), ViolationKind::data_race,
                                     "data race on count@cpu0", section_name(s));
}

TEST(PerCpuContexts, a_handler_kept_out_by_the_section_does_not_race_on_the_cpus_data) {
    for (Section s : {Section::irq, Section::spin_lock_irq})
        expect_verified_by_every_search(task_and_handler(s), section_name(s));
}

TEST(PerCpuContexts, another_cpus_task_reaching_in_with_per_cpu_ptr_still_races) {
    const Setup setup = [] {
        set_nr_cpus(2);
        stats = &model_state<pcpu_stats>();
        spawn_on(0, "t0", [] { count_one(Section::preempt, nullptr); });
        spawn_on(1, "t1", [] {
            preempt_disable();
            shared<int>* c = per_cpu_ptr(&stats->count, 0);
            c->write(c->read() + 1);
            preempt_enable();
        });
    };
    expect_found_by_every_search(setup, ViolationKind::data_race, "data race on count@cpu0",
                                 "per_cpu_ptr from CPU 1");
}
