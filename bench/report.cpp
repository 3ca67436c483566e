// The benchmark's table and JSON. Each verdict is computed in one place (step_ok, search_ok)
// so that the table, the JSON and the exit code cannot disagree.
#include "report.hpp"

#include <cstdarg>
#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

namespace lockcheck::detail::bench {

namespace {

using Json = nlohmann::ordered_json;

// Switches per step needs both figures; without the raw switch there is nothing to judge.
std::optional<double> switches_per_step(const Results& r, const StepCost& s) {
    for (const SwitchCost& c : r.switches)
        if (c.shape == SwitchShape::plain) return s.ns_per_step() / c.ns_per_switch();
    return std::nullopt;
}

// The share of the searches' steps that switch fibers, if a search was measured.
std::optional<double> switching_share(const Results& r) {
    std::uint64_t steps = 0, switching = 0;
    for (const SearchCost& s : r.searches) {
        steps += s.steps;
        switching += s.switching_steps;
    }
    if (steps == 0) return std::nullopt;
    return static_cast<double>(switching) / static_cast<double>(steps);
}

// The target is on the median step of a real search, so it judges the kind of step (same task
// or switching) that the searches' median step is. Without a search to tell, every kind is
// judged.
bool judged(const Results& r, const StepCost& s) {
    const std::optional<double> share = switching_share(r);
    if (!share) return true;
    return s.shape == (*share < 0.5 ? StepShape::same_task : StepShape::switching);
}

bool step_ok(const Results& r, const StepCost& s) {
    const std::optional<double> ratio = switches_per_step(r, s);
    return !judged(r, s) || !ratio || *ratio <= kMaxSwitchesPerStep;
}

// A verified variant that reports a violation is a broken engine, not a fast one.
bool search_ok(const SearchCost& s) {
    return s.findings == 0 && s.steps_per_second() >= kMinStepsPerSecond;
}

const char* verdict(bool ok) {
    return ok ? "PASS" : "FAIL";
}

__attribute__((format(printf, 2, 3))) void printf_to(std::ostream& out, const char* format, ...) {
    char line[256];
    va_list args;
    va_start(args, format);
    std::vsnprintf(line, sizeof line, format, args);
    va_end(args);
    out << line;
}

Json timing_json(const Timing& t) {
    return Json{{"median_s", t.median}, {"min_s", t.min}, {"max_s", t.max}, {"runs", t.runs}};
}

Json switch_json(const SwitchCost& c) {
    return Json{{"shape", describe(c.shape)},
                {"switches", c.switches},
                {"ns_per_switch", c.ns_per_switch()},
                {"timing", timing_json(c.timing)}};
}

} // namespace

bool targets_met(const Results& r) {
    for (const StepCost& s : r.steps)
        if (!step_ok(r, s)) return false;
    for (const SearchCost& s : r.searches)
        if (!search_ok(s)) return false;
    return true;
}

void print_table(const Results& r, std::ostream& out) {
    printf_to(out, "lockcheck-bench: %s build; median (and fastest) of up to %d runs\n",
              r.build_type.c_str(), r.reps);
    if (!r.switches.empty() || !r.steps.empty()) out << "\n";
    for (const SwitchCost& c : r.switches) {
        const double n = static_cast<double>(c.switches);
        printf_to(out, "raw switch      %7.2f ns (%6.2f)  %s, %llu per run, %d runs\n",
                  c.ns_per_switch(), c.timing.min * 1e9 / n, describe(c.shape),
                  static_cast<unsigned long long>(c.switches), c.timing.runs);
    }
    for (const StepCost& s : r.steps) {
        printf_to(out,
                  "scheduling step %7.2f ns (%6.2f)  %d task%s of atomic_read, %s, %u per run, "
                  "%d runs",
                  s.ns_per_step(), s.timing.min * 1e9 / s.steps, s.tasks, s.tasks == 1 ? "" : "s",
                  describe(s.shape), s.steps, s.timing.runs);
        if (const auto ratio = switches_per_step(r, s)) {
            printf_to(out, ": %.2f switches", *ratio);
            if (judged(r, s))
                printf_to(out, "  %s (<= %.0f)", verdict(step_ok(r, s)), kMaxSwitchesPerStep);
            else
                out << "  (not the median step)";
        }
        out << "\n";
    }
    if (!r.searches.empty()) {
        printf_to(out, "\nexhaustive rename-pin: dfs, whole explore(), default depth\n");
        printf_to(out, "%-10s %7s %6s %12s %12s %8s %9s %8s %8s %4s\n", "variant", "renames",
                  "fsyncs", "executions", "steps", "switch%", "seconds", "Msteps/s", "(cpu)",
                  "runs");
    }
    bool stopped = false;
    for (const SearchCost& s : r.searches) {
        const std::string executions = std::to_string(s.executions) + (s.exhaustive ? " " : "+");
        stopped |= !s.exhaustive;
        printf_to(out, "%-10s %7d %6d %12s %12llu %8.1f %9.3f %8.2f %8.2f %4d  %s (>= %.0f)%s\n",
                  s.variant.c_str(), s.renames, s.fsyncs, executions.c_str(),
                  static_cast<unsigned long long>(s.steps),
                  100.0 * static_cast<double>(s.switching_steps) / static_cast<double>(s.steps),
                  s.timing.median, s.steps_per_second() / 1e6, s.steps_per_cpu_second() / 1e6,
                  s.timing.runs, verdict(search_ok(s)), kMinStepsPerSecond / 1e6,
                  s.findings ? "  VIOLATION FOUND" : "");
    }
    if (stopped)
        out << "+ stopped at --search-limit, before the search was exhaustive: the figures are "
               "those of the part explored\n";
    if (const auto share = switching_share(r))
        printf_to(out,
                  "switch%%: steps taken by another task than the step before; over all searches "
                  "%.1f %%, so the median step %s\n",
                  100 * *share, *share < 0.5 ? "goes on in the same task" : "switches task");
    if (!r.checkpoints.empty()) {
        printf_to(out, "\ncheckpoints: one execution of each model at its default sizes, lowest "
                       "task first\n");
        printf_to(out, "%-26s %6s %6s %8s %9s %10s %7s %11s %7s\n", "model", "steps", "saved",
                  "bytes", "step ns", "save ns", "steps", "restore ns", "steps");
    }
    for (const CheckpointCost& c : r.checkpoints)
        printf_to(out, "%-26s %6u %6llu %8zu %9.1f %10.1f %7.1f %11.1f %7.1f\n", c.model.c_str(),
                  c.steps, static_cast<unsigned long long>(c.saved), c.bytes, c.ns_per_step(),
                  c.ns_per_save(), c.ns_per_save() / c.ns_per_step(), c.ns_per_restore(),
                  c.ns_per_restore() / c.ns_per_step());
    if (!r.checkpoints.empty())
        out << "save and restore: also as the steps (at the execution's mean step cost) that "
               "take as long\n";
    printf_to(out, "\ntargets: %s\n", targets_met(r) ? "all met" : "MISSED");
}

void print_json(const Results& r, std::ostream& out) {
    Json j;
    j["build_type"] = r.build_type;
    j["reps"] = r.reps;
    j["switches"] = Json::array();
    for (const SwitchCost& c : r.switches)
        j["switches"].push_back(switch_json(c));
    j["steps"] = Json::array();
    for (const StepCost& s : r.steps) {
        Json row = {{"tasks", s.tasks},
                    {"shape", describe(s.shape)},
                    {"steps", s.steps},
                    {"ns_per_step", s.ns_per_step()},
                    {"timing", timing_json(s.timing)}};
        if (const auto ratio = switches_per_step(r, s)) {
            row["switches_per_step"] = *ratio;
            row["judged"] = judged(r, s);
            row["pass"] = step_ok(r, s);
        }
        j["steps"].push_back(row);
    }
    j["searches"] = Json::array();
    for (const SearchCost& s : r.searches)
        j["searches"].push_back({{"variant", s.variant},
                                 {"renames", s.renames},
                                 {"fsyncs", s.fsyncs},
                                 {"executions", s.executions},
                                 {"steps", s.steps},
                                 {"switching_steps", s.switching_steps},
                                 {"findings", s.findings},
                                 {"exhaustive", s.exhaustive},
                                 {"steps_per_second", s.steps_per_second()},
                                 {"cpu_seconds", s.cpu_seconds},
                                 {"steps_per_cpu_second", s.steps_per_cpu_second()},
                                 {"timing", timing_json(s.timing)},
                                 {"pass", search_ok(s)}});
    j["checkpoints"] = Json::array();
    for (const CheckpointCost& c : r.checkpoints)
        j["checkpoints"].push_back({{"model", c.model},
                                    {"steps", c.steps},
                                    {"saved", c.saved},
                                    {"bytes", c.bytes},
                                    {"ns_per_step", c.ns_per_step()},
                                    {"ns_per_save", c.ns_per_save()},
                                    {"ns_per_restore", c.ns_per_restore()},
                                    {"plain", timing_json(c.plain)},
                                    {"saving", timing_json(c.saving)},
                                    {"resuming", timing_json(c.resuming)}});
    j["targets_met"] = targets_met(r);
    out << j.dump(2) << "\n";
}

} // namespace lockcheck::detail::bench
