// Text formatting of violations and the summary block (the trace table: trace_table.cpp),
// and the judgement of a run against its variant's declared verdict.
#include "text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "scheduler/enum_names.hpp"

namespace lockcheck::detail {

namespace {

std::string pad(const std::string& s, std::size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// "1 execution", "7 executions"
std::string count(std::uint64_t n, const char* noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

} // namespace

std::string format_violation(const Violation& v) {
    std::string out = "VIOLATION (" + std::string(kind_name(v.kind)) + ") at step " +
                      std::to_string(v.step) + ": " + v.headline() + "\n";
    for (const std::string& d : v.details)
        out += "  " + d + "\n";
    return out;
}

namespace {
// "lockdep classes (MAX_LOCKDEP_KEYS) filled (8192 entries)", and each other table.
std::string full_tables_text(const std::vector<FullTable>& tables) {
    std::string text;
    for (const FullTable& f : tables)
        text += (text.empty() ? "" : ", ") + f.table + " filled (" + std::to_string(f.capacity) +
                " entries)";
    return text;
}

// "the depth bound", "--max-steps", "the bounds (9 by the depth, 2 by --max-steps)": what cut
// the executions that were cut.
std::string cut_by(const SearchStats& stats) {
    if (!stats.cut_by_steps) return "the depth bound";
    if (stats.cut_by_steps == stats.cut) return "--max-steps";
    return "the bounds (" + std::to_string(stats.cut - stats.cut_by_steps) + " by the depth, " +
           std::to_string(stats.cut_by_steps) + " by --max-steps)";
}

// The option that lets the cut executions go further.
std::string raise(const SearchStats& stats) {
    if (!stats.cut_by_steps) return "raise --depth";
    return stats.cut_by_steps == stats.cut ? "raise --max-steps" : "raise --depth and --max-steps";
}

// When the bounds cut most executions, what ran says little about what lies past them: the
// verdict says so, not only the counter.
std::string most_cut(const SearchStats& stats) {
    if (stats.cut * 2 <= stats.executions) return "";
    return ", but most executions were cut by " + cut_by(stats) + " (" + std::to_string(stats.cut) +
           " of " + std::to_string(stats.executions) + "): " + raise(stats);
}

// No execution ran to its end: every one was cut, or stopped by the reduction as equivalent
// to one that was. Such a search checked nothing whole, whatever else it says.
bool nothing_finished(const SearchStats& stats) {
    return stats.cut && stats.cut + stats.sleep_blocked >= stats.executions;
}

} // namespace

Verdict verdict_of(const Summary& s) {
    if (s.violations) return Verdict::violation;
    if (!s.stats.stopped_by.empty() || !s.stats.full_tables.empty() || nothing_finished(s.stats))
        return Verdict::incomplete;
    if (s.sampled) return Verdict::in_sample;
    if (s.shard) return Verdict::in_shard;
    if (s.preemption_bound) return Verdict::within_preemptions;
    if (s.stats.cut) return Verdict::within_depth;
    return Verdict::verified;
}

std::string_view verdict_name(Verdict verdict) {
    constexpr std::string_view kNames[] = {"violation",
                                           "incomplete",
                                           "no-violation-in-sample",
                                           "no-violation-in-shard",
                                           "no-violation-within-preemptions",
                                           "no-violation-within-depth",
                                           "verified"};
    return kNames[static_cast<int>(verdict)];
}

namespace {
std::string verdict_text(const Summary& s, Verdict v) {
    const std::string executions = std::to_string(s.stats.executions) + " executions";
    switch (v) {
    case Verdict::violation:
        return "VIOLATION (" + std::to_string(s.violations) + " found)";
    case Verdict::incomplete:
        if (s.stats.stopped_by.empty() && s.stats.full_tables.empty())
            return "incomplete: every execution was cut by " + cut_by(s.stats) + " (" +
                   std::to_string(s.stats.cut) + " of " + executions +
                   ", none run to its end): " + raise(s.stats);
        if (s.stats.stopped_by.empty())
            return "incomplete: " + full_tables_text(s.stats.full_tables) +
                   ", and what did not fit went unchecked; none of " + executions +
                   " had a violation";
        return "incomplete: " + s.stats.stopped_by + " stopped the search after " + executions +
               ", none with a violation";
    case Verdict::in_sample:
        return "no violation in " + executions + " sampled (a sample, not a proof)" +
               most_cut(s.stats);
    case Verdict::in_shard:
        return "no violation in shard " + std::to_string(s.shard->index) + " of " +
               std::to_string(s.shard->count) + " (" + executions +
               "), a part of the search: `lockcheck merge` every shard's --json for the "
               "search's verdict" +
               most_cut(s.stats);
    case Verdict::within_preemptions:
        return "no violation within " + std::to_string(*s.preemption_bound) +
               (*s.preemption_bound == 1 ? " preemption" : " preemptions") +
               (s.stats.cut
                    ? " and " + cut_by(s.stats) + " (" + std::to_string(s.stats.cut) + " cut)"
                    : "") +
               most_cut(s.stats);
    case Verdict::within_depth:
        if (const std::string most = most_cut(s.stats); !most.empty())
            return "no violation within the bound" + most;
        return "no violation within the bound (" + std::to_string(s.stats.cut) +
               " executions cut by " + cut_by(s.stats) + ")";
    case Verdict::verified:
        break;
    }
    return "verified: no violation in any execution";
}
} // namespace

namespace {
// What a user switched off, for a verdict that found nothing: "lockdep (--no-lockdep), 1 model
// property (--no-check)".
std::string unchecked_text(const Summary& s) {
    std::vector<std::string> off;
    if (!s.lockdep)
        off.emplace_back("lockdep (--no-lockdep)");
    else if (s.stats.lockdep_off)
        off.emplace_back("lockdep (the model calls lockdep_off())");
    if (!s.races) off.emplace_back("data races (--no-races)");
    const auto model_off = std::count_if(s.stats.properties.begin(), s.stats.properties.end(),
                                         [](const PropertyStats& p) { return !p.checked; });
    if (model_off)
        off.push_back(count(static_cast<std::uint64_t>(model_off), "model property") +
                      " (--no-check)");
    std::string text;
    for (const std::string& o : off)
        text += (text.empty() ? "" : ", ") + o;
    return text;
}
} // namespace

std::string verdict(const Summary& s) {
    const Verdict v = verdict_of(s);
    // A run that found nothing says what it did not look for.
    const std::string off = unchecked_text(s);
    if (v == Verdict::violation || off.empty()) return verdict_text(s, v);
    return verdict_text(s, v) + " (not checked: " + off + ")";
}

std::string sizes_text(const std::vector<std::pair<std::string, int>>& parameters) {
    std::string text;
    for (const auto& [name, value] : parameters)
        text += (text.empty() ? "" : " ") + name + "=" + std::to_string(value);
    return text;
}

namespace {

constexpr std::string_view kAgreementNames[] = {"as-declared", "differs", "incomplete"};

// "deadlock", "invariant \"committed log never holds ...\"": a violation by its kind, and its
// property where that says more than the kind.
std::string finding_text(const Violation& v) {
    std::string text(kind_name(v.kind));
    if (v.property != text) text += " \"" + v.property + "\"";
    return text;
}

} // namespace

std::string incompleteness(const Summary& s) {
    std::vector<std::string> reasons;
    if (!s.stats.stopped_by.empty()) reasons.push_back(s.stats.stopped_by + " stopped the search");
    if (!s.stats.full_tables.empty())
        reasons.push_back(full_tables_text(s.stats.full_tables) + " in some executions");
    if (s.sampled)
        reasons.push_back("it ran a sample of " + count(s.stats.executions, "execution"));
    if (s.shard)
        reasons.push_back("it ran shard " + std::to_string(s.shard->index) + " of " +
                          std::to_string(s.shard->count) + " of the search");
    if (s.preemption_bound)
        reasons.push_back("only schedules with at most " +
                          count(*s.preemption_bound, "preemption") + " ran");
    if (nothing_finished(s.stats))
        reasons.push_back("every execution was cut by " + cut_by(s.stats) + " (" +
                          std::to_string(s.stats.cut) + " of " +
                          std::to_string(s.stats.executions) + ", none run to its end)");
    else if (s.stats.cut)
        reasons.push_back(count(s.stats.cut, "execution") + (s.stats.cut == 1 ? " was" : " were") +
                          " cut by " + cut_by(s.stats));
    std::string text;
    for (const std::string& r : reasons)
        text += (text.empty() ? "" : "; ") + r;
    return text;
}

std::string_view agreement_name(Agreement agreement) {
    return kAgreementNames[static_cast<int>(agreement)];
}

bool parse_agreement(std::string_view name, Agreement& agreement) {
    return parse_enum_name(kAgreementNames, name, agreement);
}

namespace {
// The option that switched off the property a variant declares broken, if one did.
std::string switched_off(const Expectation& expected, const Summary& s) {
    if (!expected.expects_violation) return "";
    if (expected.kind == ViolationKind::lock_order && !s.lockdep) return "--no-lockdep";
    if (expected.kind == ViolationKind::data_race && !s.races) return "--no-races";
    for (const PropertyStats& p : s.stats.properties)
        if (!p.checked && p.name == expected.property) return "--no-check";
    return "";
}
} // namespace

Judgement judge(const Expectation& expected, const std::vector<Finding>& found,
                const Summary& summary) {
    Judgement j{expected, Agreement::as_declared, {}};
    std::string declared = expected.expects_violation
                               ? "violation (" + std::string(kind_name(expected.kind)) + ")"
                               : "verified";
    bool matched = false;
    std::vector<const Violation*> others;
    for (const Finding& f : found) {
        const Violation& v = f.violation;
        if (expected.matches(v))
            matched = true;
        else
            others.push_back(&v);
    }
    // "violation (deadlock) and 2 more" or "deadlock and 2 more": the first undeclared one.
    const auto undeclared = [&others](bool as_violation) {
        std::string text = finding_text(*others.front());
        if (as_violation) text = "violation (" + text + ")";
        if (others.size() > 1) text += " and " + std::to_string(others.size() - 1) + " more";
        return text;
    };
    if (matched) {
        j.text = declared + ": as declared";
        if (!others.empty()) j.text += ", and also " + undeclared(false);
        return j;
    }
    // A declared violation whose property was switched off cannot be found: the run does not
    // differ from the declaration, it did not look.
    if (const std::string off = switched_off(expected, summary); !off.empty()) {
        j.agreement = Agreement::incomplete;
        j.text = declared + ": not checked (" + off + ")";
        if (!others.empty()) j.text += ", got " + undeclared(false);
        return j;
    }
    j.agreement = Agreement::differs;
    if (!others.empty()) {
        // Of the declared kind, the properties differ: name the declared one too.
        if (expected.expects_violation && others.front()->kind == expected.kind &&
            !expected.property.empty())
            declared += " \"" + expected.property + "\"";
        j.text = declared + ": got " + undeclared(!expected.expects_violation);
        return j;
    }
    if (const std::string why = incompleteness(summary); !why.empty()) {
        j.agreement = Agreement::incomplete;
        j.text = declared + ": incomplete: no violation found, but " + why;
    } else if (expected.expects_violation) {
        j.text = declared + ": got no violation in any execution";
    } else {
        j.agreement = Agreement::as_declared;
        j.text = declared + ": as declared";
    }
    return j;
}

std::string decimal(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", x);
    return text;
}

double ratio(std::uint64_t part, std::uint64_t whole) {
    return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// How the figures per execution weigh the executions: a search counts each once, a sample as
// often as it drew it. A wait depends on the order of independent steps too, which a
// reduction explores in one order only, and on the path to a state, which a search that stores
// states takes once: its worst waits are lower bounds.
std::string weighting_text(const std::string& strategy, bool stores_states) {
    if (strategy.starts_with("random") || strategy.starts_with("pct"))
        return "per execution sampled, as often as " + strategy.substr(0, strategy.find(',')) +
               " drew it";
    if (stores_states)
        return "per execution run to its end, one per state first reached on its path: worst "
               "waits are lower bounds (dfs without --state-cache tries every order)";
    if (strategy.find("dpor") != std::string::npos)
        return "per execution, one per class of interleavings: worst waits are lower bounds "
               "(dfs tries every order)";
    return "per execution, every interleaving within the bound counted once";
}

namespace {
std::string counter(std::uint64_t total, std::uint64_t most) {
    return std::to_string(total) + " (at most " + std::to_string(most) + " in one execution)";
}

// "log_mutex: 3.74 acquisitions (31.6 % contended), 1.18 sleeps per execution; held 2.94
// steps on average, at most 8": normalized, so that searches of different sizes compare.
std::string lock_text(const LockStats& l, std::uint64_t executions) {
    std::string text;
    if (l.acquisitions) {
        char contended[32];
        std::snprintf(contended, sizeof contended, "%.1f",
                      100.0 * ratio(l.contended, l.acquisitions));
        text = decimal(ratio(l.acquisitions, executions)) + " acquisitions (" + contended +
               " % contended), ";
    }
    text += decimal(ratio(l.sleeps, executions)) + " sleeps per execution";
    if (l.holds)
        text += "; held " + decimal(ratio(l.steps, l.holds)) + " steps on average, at most " +
                std::to_string(l.longest);
    return text;
}

// "fsync: 2.00 per execution, waited 1.35 steps on average, at most 9 (worst/mean 6.67)"
std::string wait_text(const OpWaits& w, std::uint64_t executions) {
    std::string text = decimal(ratio(w.count, executions)) + " per execution, ";
    if (w.total == 0) return text + "never waited";
    const double mean = ratio(w.total, w.count);
    return text + "waited " + decimal(mean) + " steps on average, at most " +
           std::to_string(w.worst) + " (worst/mean " + decimal(w.worst / mean) + ")";
}

std::string preemptions_and_steps(std::uint32_t preemptions, std::uint32_t steps) {
    return std::to_string(preemptions) + (preemptions == 1 ? " preemption, " : " preemptions, ") +
           std::to_string(steps) + " steps";
}

} // namespace

std::string size_text(const CounterexampleSize& c) {
    std::string text = preemptions_and_steps(c.preemptions, c.steps);
    if (!c.minimized) return text + " (not minimized)";
    std::string notes;
    if (c.preemptions != c.found_preemptions || c.steps != c.found_steps)
        notes = "minimized from " + preemptions_and_steps(c.found_preemptions, c.found_steps);
    if (!c.minimal)
        notes += (notes.empty() ? "" : "; ") + std::string("not proven minimal: ") +
                 c.minimize_stopped_by + " stopped the search for a smaller one";
    return text + " (" + (notes.empty() ? "minimal" : notes) + ")";
}

namespace {

// PCT's guarantee for the run: each execution finds a given bug of depth d with probability
// at least p = 1 / (n k^(d-1)); N executions, at least 1 - (1 - p)^N.
std::string pct_bound_text(const Summary& s) {
    double p = 1.0 / std::max(s.stats.tasks, 1u);
    for (std::uint32_t i = 1; i < s.pct_depth; ++i)
        p /= std::max(s.pct_steps, 1u);
    const double all = 1.0 - std::pow(1.0 - p, static_cast<double>(s.stats.executions));
    char text[160];
    std::snprintf(text, sizeof text,
                  "a bug of depth %u is found with probability >= %.3g per execution (n = %u "
                  "tasks, k = %u steps), >= %.3g in all",
                  s.pct_depth, p, s.stats.tasks, s.pct_steps, all);
    return text;
}

} // namespace

std::string property_kind_text(PropertyKind kind) {
    if (kind == PropertyKind::final_check) return "final check";
    if (kind == PropertyKind::wait_bound) return "wait bound";
    return std::string(property_kind_name(kind));
}

std::string wait_bounds_text(const std::vector<WaitBound>& bounds,
                             const std::vector<WaitRatio>& ratios) {
    std::string text;
    for (const WaitBound& b : bounds)
        text += ", " + b.op + " waits at most " + std::to_string(b.steps) + " steps (" +
                (b.declared ? "max_wait() in the model" : "--max-wait") + ")";
    for (const WaitRatio& r : ratios) {
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, "%g", r.ratio);
        text +=
            ", " + r.op + "'s worst wait at most " + ratio + " times its mean (--max-wait-ratio)";
    }
    return text;
}

std::string property_note(const PropertyStats& p) {
    if (p.evaluations == 0) {
        if (p.kind == PropertyKind::final_check) return "NEVER EVALUATED (no execution finished)";
        if (p.kind == PropertyKind::check) return "NEVER EVALUATED (never reached)";
        if (p.kind == PropertyKind::wait_bound)
            return "NEVER EVALUATED (the operation never finished)";
        return "NEVER EVALUATED";
    }
    if (p.after_release != p.evaluations) return "";
    return std::string(p.evaluations == 1 ? "right after " : "each right after ") +
           (p.release.empty() ? "a lock release" : p.release) +
           " by the same task: no other task can run in between, so it cannot see one (use "
           "BUG_ON)";
}

namespace {

// Property names are cut to this many bytes in the summary (the JSON has them whole).
constexpr std::size_t kPropertyNameWidth = 60;

// The name cut to the width, at a UTF-8 character boundary, marked "..." when cut.
std::string cut_name(const std::string& name) {
    if (name.size() <= kPropertyNameWidth) return name;
    std::size_t end = kPropertyNameWidth - 3;
    while (end > 0 && (static_cast<unsigned char>(name[end]) & 0xC0) == 0x80)
        --end;
    return name.substr(0, end) + "...";
}

// "final check \"log_writers is back to zero\": 397 evaluations", and its note.
std::string property_text(const PropertyStats& p) {
    if (!p.checked) return property_kind_text(p.kind) + " \"" + cut_name(p.name) + "\": off";
    const std::string note = property_note(p);
    return property_kind_text(p.kind) + " \"" + cut_name(p.name) +
           "\": " + count(p.evaluations, "evaluation") + (note.empty() ? "" : ": " + note);
}

// "5231 stored (0.3 MB), 1570 executions ended at one met before, 12 at sleep sets"; "2910
// stored (0.1 MB), breadth-first: 2577 arrivals at one met before added nothing" (every
// execution of a breadth-first search stops one step past its state).
std::string states_text(const StateCounts& st, std::uint64_t stopped) {
    char mb[32];
    std::snprintf(mb, sizeof mb, "%.1f MB", static_cast<double>(st.bytes) / (1 << 20));
    std::string text = std::to_string(st.stored) + " stored (" + mb +
                       (st.full ? ", FULL: later states not stored" : "") + "), ";
    if (st.breadth_first)
        return text + "breadth-first: " + count(st.matched, "arrival") +
               " at one met before added nothing";
    return text + count(st.matched, "execution") + " ended at one met before, " +
           std::to_string(stopped - st.matched) + " at sleep sets";
}

// How a stateful search kept lists: "as the sets of their entries: no step read an order", or
// in order, and why.
std::string lists_text(const StateCounts& st) {
    if (st.lists_in_order.empty()) return "as the sets of their entries: no step read an order";
    if (!st.executions_before_order) return "in order: " + st.lists_in_order;
    return "in order: " + st.lists_in_order + " read one's order, and the search began again (" +
           count(st.executions_before_order, "execution") + " before, not counted above)";
}

// How a stateful search judged loops: as cycles of its state graph, or watched, and why.
std::string loops_text(const StateCounts& st) {
    if (st.loops_watched.empty())
        return "as cycles of the state graph: none found that tasks can go round for ever";
    if (!st.executions_before_watch) return "watched: " + st.loops_watched;
    return "watched: judged as cycles first, " + st.loops_watched +
           ", and the search began again (" + count(st.executions_before_watch, "execution") +
           " before, not counted above)";
}

// "412 saved; 2,980 executions went on from one, 41,200 steps not replayed (63 % of all)", or
// why there were none: how the search reached its executions (checker/search_stats.hpp).
std::string checkpoints_text(const Summary& s) {
    const CheckpointCounts& c = s.stats.checkpoints;
    // "random, seed 1": the search's name, without its settings.
    if (c.off == "this search")
        return "none: " + s.strategy.substr(0, s.strategy.find(',')) +
               " replays every execution from its start";
    if (!c.off.empty()) return "none (" + c.off + "): every execution replayed from its start";
    char share[32];
    std::snprintf(share, sizeof share, "%.0f", 100.0 * ratio(c.steps_kept, s.stats.steps));
    return std::to_string(c.saved) + " saved; " + count(c.resumed, "execution") +
           " went on from one, " + std::to_string(c.steps_kept) + " steps not replayed (" + share +
           " % of all)";
}

// "lockdep on, data races off (--no-races), fsync waits at most 13 steps (--max-wait)": the
// property classes a user can switch off, and the latency bounds.
std::string checks_text(const Summary& s) {
    const char* lockdep = !s.lockdep            ? "off (--no-lockdep)"
                          : s.stats.lockdep_off ? "off (the model calls lockdep_off())"
                                                : "on";
    return std::string("lockdep ") + lockdep + ", data races " +
           (s.races ? "on" : "off (--no-races)") +
           wait_bounds_text(s.stats.wait_bounds, s.stats.wait_ratios);
}

std::string unsettled_text(const SearchStats& stats) {
    std::string text = std::to_string(stats.unsettled) +
                       " (none LKMM allows, found once run on: a read of a write not yet made "
                       "that its writer did not make so, that LKMM forbids once made, or that "
                       "the execution writing first covers; or an RCU reader's section a grace "
                       "period ended in after it read what came before)";
    if (stats.unsettled_findings)
        text += "; " + std::to_string(stats.unsettled_findings) +
                " of them after a finding that rested on the write that did not come";
    return text;
}

std::string redundant_text(std::uint64_t redundant) {
    return std::to_string(redundant) + " (ended at a loop's turn that read an older write and "
                                       "changed nothing: covered by the execution without it)";
}

} // namespace

std::string memory_model_text(MemoryModel model, const std::vector<std::string>& fully_ordered,
                              std::uint32_t rounds) {
    if (model == MemoryModel::sc)
        return "sc (every read sees the last write: a missing barrier goes unseen)";
    // docs/memory-model.md, "Load buffering": what the rounds explored.
    std::string text = "lkmm (";
    if (rounds == 0)
        text += "load buffering not explored: no read of a write its task makes later "
                "(--no-load-buffering, or --shard, which runs one round); ";
    else if (rounds == 1)
        text += "1 round: load buffering can add nothing, as no write seen independent of a "
                "read could be read ahead or change what LKMM allows; ";
    else
        text += std::to_string(rounds) +
                " rounds: from round 2, writes seen independent of earlier reads, and reads of "
                "a writer's next write, one at a time; ";
    text += "not counted: the order of an address dependency through an array indexed by a "
            "value read)";
    if (fully_ordered.empty()) return text;
    text += "; ordered more than the kernel promises:";
    for (const std::string& op : fully_ordered)
        text += " " + op + (&op == &fully_ordered.back() ? "" : ",");
    return text;
}

std::string format_summary(const Summary& s) {
    // "0.045 s", or "84.120 s (search 0.015 s, minimizing 84.105 s)" when minimizing ran.
    char elapsed[96];
    const double minimizing = s.stats.minimizing_seconds;
    if (minimizing > 0)
        std::snprintf(elapsed, sizeof elapsed, "%.3f s (search %.3f s, minimizing %.3f s)",
                      s.stats.elapsed_seconds, s.stats.elapsed_seconds - minimizing, minimizing);
    else
        std::snprintf(elapsed, sizeof elapsed, "%.3f s", s.stats.elapsed_seconds);
    std::string elapsed_row = elapsed;
    if (s.stats.threads > 1)
        elapsed_row += ", " + std::to_string(s.stats.threads) + " threads";
    else if (!s.one_thread.empty())
        elapsed_row += ", 1 thread (" + s.one_thread + " runs on one)";
    std::vector<std::pair<std::string, std::string>> rows = {
        {"model", s.model},
        {"variant", s.variant},
    };
    if (!s.parameters.empty()) rows.emplace_back("sizes", sizes_text(s.parameters));
    rows.insert(rows.end(),
                {
                    {"strategy", s.strategy},
                    {"memory model",
                     memory_model_text(s.memory_model, s.stats.fully_ordered, s.stats.rounds)},
                    {"bound", s.bound},
                    {"executions", std::to_string(s.stats.executions)},
                    {"cut by bound", std::to_string(s.stats.cut)},
                    {"steps", std::to_string(s.stats.steps)},
                    {"deepest", std::to_string(s.stats.deepest) + " (longest execution " +
                                    std::to_string(s.stats.longest) + " steps)"},
                    {"sleeps", counter(s.stats.total.sleeps, s.stats.most.sleeps)},
                    {"wake-ups", counter(s.stats.total.wakeups, s.stats.most.wakeups)},
                    {"spins", counter(s.stats.total.spins, s.stats.most.spins)},
                });
    // Only a reduction stops executions early; DFS's summary keeps its shape.
    if (s.strategy.find("dpor") != std::string::npos) {
        const auto cut = std::find_if(rows.begin(), rows.end(),
                                      [](const auto& row) { return row.first == "cut by bound"; });
        rows.insert(cut + 1, {"sleep-blocked", std::to_string(s.stats.sleep_blocked)});
    }
    // Under lkmm, the executions a loop's stale turn ended (docs/memory-model.md, "Loops").
    if (s.memory_model != MemoryModel::sc) {
        const auto cut = std::find_if(rows.begin(), rows.end(),
                                      [](const auto& row) { return row.first == "cut by bound"; });
        rows.insert(cut + 1, {"redundant", redundant_text(s.stats.redundant)});
        if (s.stats.rounds > 1 || s.stats.unsettled)
            rows.insert(cut + 2, {"unsettled", unsettled_text(s.stats)});
        if (s.stats.earlier_rounds_executions)
            std::find_if(rows.begin(), rows.end(),
                         [](const auto& row) { return row.first == "executions"; })
                ->second += " in the last round (" +
                            std::to_string(s.stats.earlier_rounds_executions) +
                            " in the rounds before it)";
    }
    if (const StateCounts& st = s.stats.states; st.stored) {
        const auto cut = std::find_if(rows.begin(), rows.end(),
                                      [](const auto& row) { return row.first == "cut by bound"; });
        const auto states =
            rows.insert(cut + 1, {"states", states_text(st, s.stats.sleep_blocked)});
        const auto lists = rows.insert(states + 1, {"lists", lists_text(st)});
        rows.insert(lists + 1, {"loops", loops_text(st)});
    }
    for (const CounterexampleSize& c : s.counterexamples)
        rows.emplace_back("reported", size_text(c));
    if (s.pct_depth) rows.emplace_back("pct bound", pct_bound_text(s));
    for (const FullTable& f : s.stats.full_tables)
        rows.emplace_back("table full", f.table + ": all " + std::to_string(f.capacity) +
                                            " entries used in " + count(f.executions, "execution") +
                                            "; what did not fit went unchecked");
    if (!s.stats.holds.empty() || !s.stats.ops.empty())
        rows.emplace_back("figures", weighting_text(s.strategy, s.stats.states.stored > 0));
    for (const OpWaits& w : s.stats.ops)
        rows.emplace_back(&w == &s.stats.ops.front() ? "waits" : "",
                          w.op + ": " + wait_text(w, s.stats.measured()));
    for (const LockHolds& l : s.stats.holds)
        rows.emplace_back(&l == &s.stats.holds.front() ? "locks" : "",
                          l.lock + ": " + lock_text(l.stats, s.stats.measured()));
    rows.emplace_back("checks", checks_text(s));
    for (const PropertyStats& p : s.stats.properties)
        rows.emplace_back(&p == &s.stats.properties.front() ? "properties" : "", property_text(p));
    if (s.timed) {
        rows.emplace_back("checkpoints", checkpoints_text(s));
        rows.emplace_back("elapsed", elapsed_row);
    }
    if (s.judgement) rows.emplace_back("expected", s.judgement->text);
    rows.emplace_back("verdict", verdict(s));
    std::string out = "== lockcheck summary ==\n";
    for (const auto& [key, value] : rows)
        out += pad(key, 14) + value + "\n";
    return out;
}

} // namespace lockcheck::detail
