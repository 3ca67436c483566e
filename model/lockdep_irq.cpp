// lockdep's irq-safety, as kernel/locking/lockdep.c checks it: each lock class's usage bits
// (taken in hardirq or softirq context; taken or held with them enabled), and the two ways a
// class can be both used in an interrupt and interruptible by it: in itself ("inconsistent
// lock state") or through the dependency graph ("HARDIRQ-safe -> HARDIRQ-unsafe lock order",
// or "possible irq lock inversion" when the usage comes after the dependency). All are
// reported from one execution's usage, whether or not that execution met the interrupt there.
#include <string>
#include <vector>

#include "irq.hpp"
#include "lockdep_graph.hpp"

namespace lockcheck::detail {

namespace {

// lockdep's usage_str[] and state names, by lock_usage_bit.
constexpr const char* kUsageStr[LOCK_USAGE_STATES] = {
    "IN-HARDIRQ-W", "HARDIRQ-ON-W", "IN-SOFTIRQ-W", "SOFTIRQ-ON-W",
    "IN-HARDIRQ-R", "HARDIRQ-ON-R", "IN-SOFTIRQ-R", "SOFTIRQ-ON-R"};
const char* state_name(int bit) {
    return (bit & 3) < LOCK_USED_IN_SOFTIRQ ? "HARDIRQ" : "SOFTIRQ";
}
bool used_in(int bit) {
    return (bit & 1) == 0;
}
bool is_read(int bit) {
    return bit & LOCK_USAGE_READ;
}
// The write bit a usage excludes, for read or write: IN-HARDIRQ-R and HARDIRQ-ON-R go
// together (a reader in the interrupt gets in beside the interrupted reader, as qrwlock lets
// it), each goes against the other direction's write bit.
lock_usage_bit exclusive_bit(int bit) {
    return static_cast<lock_usage_bit>((bit & 3) ^ 1);
}

// The class as lockdep's print_lock_name() shows it: its name and, per state, a usage
// character for write and one for read ('-' used in the irq, '+' taken with it enabled, '?'
// both, '.' neither).
std::string with_usage(const lock_class& c) {
    std::string s = c.name + "{";
    for (int state = 0; state < LOCK_USAGE_READ; state += 2) {
        for (const int read : {0, int{LOCK_USAGE_READ}}) {
            const bool in = c.usage_mask & (1U << (state + read));
            const bool on = c.usage_mask & (1U << (state + read + 1));
            s += in && on ? '?' : in ? '-' : on ? '+' : '.';
        }
    }
    return s + "}";
}

// "submit [HC0[0]:SC0[0]:HE1:SE1]": the task and its context as lockdep prints them (in
// hardirq context, hardirq count; in softirq context, softirq count, which local_bh_disable()
// raises by two; hardirqs enabled; softirqs enabled).
std::string task_flags(const task_struct* me, lockdep_irq_state s) {
    const bool hc = me->context == IN_HARDIRQ, sc = me->context == IN_SOFTIRQ;
    const int softirq_count = (sc ? 1 : 0) + 2 * me->bh_disabled;
    return me->name() + " [HC" + std::to_string(hc) + "[" + std::to_string(hc) + "]:SC" +
           std::to_string(sc) + "[" + std::to_string(softirq_count) + "]:HE" +
           std::to_string(s.hardirqs_on) + ":SE" + std::to_string(s.softirqs_on) + "]";
}

std::string usage_trace_text(const lockdep_trace& t) {
    if (!t.enabled_by) return took_it(t);
    const CallSite site = call_site(t.location);
    return t.task + " held it at step " + std::to_string(t.step) + " (" + t.enabled_by + ")" +
           (site.known() ? ", " + site.text() : "");
}

// Where a report goes: the acquisition about to be made (the trace's last step), or the step
// being taken (an irq-enable that marks the held locks).
struct report_site {
    const Operation* attempt;
    std::source_location loc;
    void fail(const char* property, std::string message, std::vector<std::string> lines,
              std::vector<std::uint32_t> cited) const {
        if (attempt)
            this_execution().fail_attempt(*attempt, ViolationKind::lock_order, property,
                                          std::move(message), std::move(lines), std::move(cited));
        else
            this_execution().fail_with_details(ViolationKind::lock_order, property,
                                               std::move(message), std::move(lines), loc,
                                               std::move(cited));
    }
};

// print_irq_lock_scenario(): the two CPUs' interleaving that deadlocks, with the lock the
// safe one takes on the way to the unsafe one (`prev`, unless that is the safe one: `next`).
void irq_lock_scenario(const lockdep_graph& g, int safe, int unsafe, int prev, int next,
                       std::vector<std::string>& lines) {
    const int middle = prev == safe ? next : prev;
    const std::string cpu1(31, ' ');
    auto name = [&g](int c) { return g.classes[c].name; };
    if (middle != unsafe) {
        lines.push_back("Chain exists of:");
        lines.push_back("  " + name(safe) + " --> " + name(middle) + " --> " + name(unsafe));
    }
    lines.push_back(" Possible interrupt unsafe locking scenario:");
    lines.push_back("       CPU0                    CPU1");
    lines.push_back("       ----                    ----");
    lines.push_back("  lock(" + name(unsafe) + ");");
    lines.push_back(cpu1 + "local_irq_disable();");
    lines.push_back(cpu1 + "lock(" + name(safe) + ");");
    lines.push_back(cpu1 + "lock(" + name(middle) + ");");
    lines.push_back("  <Interrupt>");
    lines.push_back("    lock(" + name(safe) + ");");
    lines.push_back(" *** DEADLOCK ***");
}

// The dependencies along `chain`, one line each, as print_shortest_lock_dependencies()
// lists them; their steps are cited.
void dependency_lines(const lockdep_graph& g, const std::vector<int>& chain,
                      std::vector<std::string>& lines, std::vector<std::uint32_t>& cited) {
    if (chain.size() < 2) lines.push_back("  " + g.classes[chain.front()].name + " itself");
    for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
        const dependency& d = g.edge(chain[i], chain[i + 1]);
        cited.push_back(d.step);
        lines.push_back("  " + g.classes[d.from].name + " --> " + g.classes[d.to].name + ": " +
                        took_it(d));
    }
}

// print_usage_bug(): class `cls` gets `new_bit` while it has the exclusive `prev_bit`.
void report_usage_bug(const lockdep_graph& g, int cls, int prev_bit, int new_bit,
                      const task_struct* me, lockdep_irq_state s, const report_site& site) {
    const lock_class& c = g.classes[cls];
    const lockdep_trace& was = c.usage_traces[prev_bit];
    const lockdep_trace& now = c.usage_traces[new_bit];
    const std::string usage =
        std::string("{") + kUsageStr[prev_bit] + "} -> {" + kUsageStr[new_bit] + "}";
    std::vector<std::string> lines{"inconsistent " + usage + " usage.",
                                   task_flags(me, s) + " takes:",
                                   "  " + with_usage(c) + ": " + usage_trace_text(now),
                                   std::string("{") + kUsageStr[prev_bit] +
                                       "} state was registered at:",
                                   "  " + usage_trace_text(was),
                                   " Possible unsafe locking scenario:",
                                   "       CPU0",
                                   "       ----",
                                   "  lock(" + c.name + ");",
                                   "  <Interrupt>",
                                   "    lock(" + c.name + ");",
                                   " *** DEADLOCK ***"};
    std::vector<std::uint32_t> cited{was.step};
    if (now.taken) cited.push_back(now.step);
    site.fail("inconsistent-lock-state",
              "inconsistent lock state: " + usage + " usage of " + c.name, std::move(lines),
              std::move(cited));
}

// print_irq_inversion_bug(): class `cls`, just given `bit`, reaches (`forwards`) or is
// reached from a class with the exclusive bit, along `chain` (from `cls`).
void report_inversion(const lockdep_graph& g, int cls, int bit, const std::vector<int>& chain,
                      bool forwards, const task_struct* me, lockdep_irq_state s,
                      const report_site& site) {
    const int other = chain.back();
    const std::string irqclass = state_name(bit);
    const lock_class& c = g.classes[cls];
    const lock_class& o = g.classes[other];
    std::vector<std::string> lines{
        task_flags(me, s) + " just changed the state of lock:",
        "  " + with_usage(c) + ": " + usage_trace_text(c.usage_traces[bit]),
        forwards ? "but this lock took another, " + irqclass + "-unsafe lock in the past:"
                 : "but this lock was taken by another, " + irqclass + "-safe lock in the past:",
        "  " + with_usage(o),
        "... which became " + irqclass + (forwards ? "-irq-unsafe" : "-irq-safe") + " at:",
        "  " + usage_trace_text(o.usage_traces[exclusive_bit(bit)]),
        "and interrupts could create inverse lock ordering between them."};
    std::vector<std::uint32_t> cited{o.usage_traces[exclusive_bit(bit)].step};
    // The neighbour of `cls` on the path is the scenario's middle lock.
    const int middle = chain[1];
    if (forwards)
        irq_lock_scenario(g, cls, other, middle, other, lines);
    else
        irq_lock_scenario(g, other, cls, middle, cls, lines);
    lines.push_back("the shortest dependencies between 2nd lock and 1st lock:");
    std::vector<int> path = chain;
    if (!forwards) path.assign(chain.rbegin(), chain.rend());
    dependency_lines(g, path, lines, cited);
    site.fail("irq-lock-inversion",
              "possible irq lock inversion dependency detected: " +
                  (forwards ? irqclass + "-irq-safe " + c.name + " took " + irqclass +
                                  "-irq-unsafe " + o.name
                            : irqclass + "-irq-unsafe " + c.name + " was taken by " + irqclass +
                                  "-irq-safe " + o.name) +
                  " in the past",
              std::move(lines), std::move(cited));
}

// mark_lock() and mark_lock_irq(): sets `bit` on `cls` (once; later ones keep the first
// trace) and checks it against the class's own usage, then against the classes it reaches
// (a USED_IN bit looks forwards for the irq enabled, an ENABLED bit backwards for the irq
// used). False once it reported.
bool mark_lock(lockdep_graph& g, int cls, int bit, lockdep_trace trace, const task_struct* me,
               lockdep_irq_state s, const report_site& site) {
    lock_class& c = g.classes[cls];
    if (c.usage_mask & (1U << bit)) return true;
    c.usage_mask |= static_cast<std::uint8_t>(1U << bit);
    c.usage_traces[bit] = std::move(trace);
    const lock_usage_bit excl = exclusive_bit(bit);
    if (c.usage_mask & (1U << excl)) {
        report_usage_bug(g, cls, excl, bit, me, s, site);
        return false;
    }
    // A write use goes against the other direction's read use as well.
    if (!is_read(bit) && c.usage_mask & (1U << (excl + LOCK_USAGE_READ))) {
        report_usage_bug(g, cls, excl + LOCK_USAGE_READ, bit, me, s, site);
        return false;
    }
    const bool forwards = used_in(bit);
    const int other = g.find_usage(cls, 1U << excl, !forwards);
    if (other < 0) return true;
    report_inversion(g, cls, bit, g.path(cls, other, !forwards), forwards, me, s, site);
    return false;
}

// mark_held_locks(): every lock the task holds gets `bit` at its step `op`.
void mark_held_locks(task_struct* me, int bit, const char* op, std::source_location loc) {
    lockdep_graph& g = lockdep_state();
    if (g.off || g.full || !this_execution().limits().lockdep) return;
    const lockdep_irq_state s = lockdep_irqs_of(me, lockdep_irqs_off::none);
    const report_site site{nullptr, loc};
    for (int i = 0; i < me->lockdep_depth; ++i) {
        const held_lock& h = me->held_locks[i];
        if (!h.map) continue;
        const int cls = g.node(h.map, h.subclass);
        if (cls < 0) return;
        const int held_bit = bit + (h.read ? LOCK_USAGE_READ : 0);
        if (!mark_lock(g, cls, held_bit,
                       {me->id(), me->name(), this_execution().step(), true, loc, op}, me, s, site))
            return;
    }
}

} // namespace

lockdep_irq_state lockdep_irqs_of(const task_struct* me, lockdep_irqs_off turned_off) {
    const bool hardirqs_on = !me->irqs_off && turned_off != lockdep_irqs_off::hardirqs;
    // Softirqs are off while one is served, and with bottom halves disabled.
    const bool softirqs_on =
        me->context != IN_SOFTIRQ && !me->bh_disabled && turned_off != lockdep_irqs_off::softirqs;
    return {hardirqs_on, softirqs_on};
}

bool mark_irqflags(lockdep_graph& g, int cls, bool trylock, bool read, lockdep_irq_state s,
                   const Operation& attempt) {
    task_struct* me = current();
    const report_site site{&attempt, attempt.location};
    auto mark = [&](int bit) {
        me->lockdep_asked = true; // the trace names the step that takes the lock
        return mark_lock(g, cls, bit + (read ? LOCK_USAGE_READ : 0),
                         {me->id(), me->name(), this_execution().step(), false, attempt.location},
                         me, s, site);
    };
    // A trylock cannot spin on the interrupted holder: it is no use in the interrupt.
    if (!trylock && me->context == IN_HARDIRQ && !mark(LOCK_USED_IN_HARDIRQ)) return false;
    if (!trylock && me->context == IN_SOFTIRQ && !mark(LOCK_USED_IN_SOFTIRQ)) return false;
    // With hardirqs off the softirq state does not count: no softirq runs there either.
    if (s.hardirqs_on && !mark(LOCK_ENABLED_HARDIRQ)) return false;
    if (s.hardirqs_on && s.softirqs_on && !mark(LOCK_ENABLED_SOFTIRQ)) return false;
    return true;
}

bool check_irq_usage(lockdep_graph& g, const held_lock& prev, int prev_cls, int next_cls,
                     lockdep_irq_state s, const Operation& attempt) {
    for (const int used : {LOCK_USED_IN_HARDIRQ, LOCK_USED_IN_SOFTIRQ}) {
        // A class the held one is reached from (or it) used in the irq, for write or for read
        // (check_irq_usage()'s LOCKF_USED_IN_IRQ_ALL), and one the new lock reaches (or it)
        // taken for write with the irq enabled.
        const int safe =
            g.find_usage(prev_cls, (1U << used) | (1U << (used + LOCK_USAGE_READ)), true);
        if (safe < 0) continue;
        const int unsafe = g.find_usage(next_cls, 1U << exclusive_bit(used), false);
        if (unsafe < 0) continue;
        const auto bit = static_cast<lock_usage_bit>(
            g.classes[safe].usage_mask & (1U << used) ? used : used + LOCK_USAGE_READ);
        const task_struct* me = current();
        const std::string irqclass = state_name(bit);
        const lock_class& sc = g.classes[safe];
        const lock_class& uc = g.classes[unsafe];
        const std::string& prev_name = g.classes[prev_cls].name;
        const std::string& next_name = g.classes[next_cls].name;
        std::vector<std::uint32_t> cited{prev.acquired_at, sc.usage_traces[bit].step,
                                         uc.usage_traces[exclusive_bit(bit)].step};
        std::vector<std::string> lines{
            task_flags(me, s) + " is trying to acquire:",
            "  " + with_usage(g.classes[next_cls]),
            "and this task is already holding:",
            "  " + with_usage(g.classes[prev_cls]) + ": " +
                took_it({me->id(), me->name(), prev.acquired_at, true, prev.location}),
            "which would create a new lock dependency:",
            "  " + with_usage(g.classes[prev_cls]) + " -> " + with_usage(g.classes[next_cls]),
            "but this new dependency connects a " + irqclass + "-irq-safe lock:",
            "  " + with_usage(sc),
            "... which became " + irqclass + "-irq-safe at:",
            "  " + usage_trace_text(sc.usage_traces[bit]),
            "to a " + irqclass + "-irq-unsafe lock:",
            "  " + with_usage(uc),
            "... which became " + irqclass + "-irq-unsafe at:",
            "  " + usage_trace_text(uc.usage_traces[exclusive_bit(bit)])};
        irq_lock_scenario(g, safe, unsafe, prev_cls, next_cls, lines);
        lines.push_back("the dependencies between " + irqclass +
                        "-irq-safe lock and the holding lock:");
        dependency_lines(g, g.path(safe, prev_cls), lines, cited);
        lines.push_back("the dependencies between the lock to be acquired and " + irqclass +
                        "-irq-unsafe lock:");
        dependency_lines(g, g.path(next_cls, unsafe), lines, cited);
        report_site{&attempt, attempt.location}.fail(
            "irq-safe-to-unsafe-lock-order",
            irqclass + "-safe -> " + irqclass + "-unsafe lock order detected: " + prev_name +
                " -> " + next_name + " connects " + irqclass + "-irq-safe " + sc.name + " to " +
                irqclass + "-irq-unsafe " + uc.name,
            std::move(lines), std::move(cited));
        return false;
    }
    return true;
}

void lockdep_hardirqs_on(task_struct* me, const char* op, std::source_location loc) {
    mark_held_locks(me, LOCK_ENABLED_HARDIRQ, op, loc);
    // Softirqs were on already: the held locks become softirq-unsafe now too.
    if (lockdep_irqs_of(me, lockdep_irqs_off::none).softirqs_on)
        mark_held_locks(me, LOCK_ENABLED_SOFTIRQ, op, loc);
}

void lockdep_softirqs_on(task_struct* me, const char* op, std::source_location loc) {
    if (!me->irqs_off) mark_held_locks(me, LOCK_ENABLED_SOFTIRQ, op, loc);
}

} // namespace lockcheck::detail
