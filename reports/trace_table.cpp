// The terminal trace: a swim-lane table, one column per task, so that who ran when reads at a
// glance. Tasks that never touch what the violation involves are folded into one line per
// run of their steps; the involved objects' states close the table. On request a last column
// names the model's line of each step.
#include <algorithm>
#include <cstdio>
#include <set>

#include "text.hpp"

namespace lockcheck {

namespace {

constexpr const char* kRed = "\033[31m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kPlain = "\033[0m";

std::string pad(const std::string& s, std::size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// "log_writers = 1", "log_mutex: held by fsync0"
std::string state_text(const std::string& object, const std::string& state) {
    if (object.empty()) return "";
    return object + (state.rfind("= ", 0) == 0 ? " " : ": ") + state;
}

// The tasks that take part in the violation: those that touch the object of its last step or
// are left blocked, and, through the objects those touch, every task sharing one with them.
std::vector<bool> involved_tasks(const Trace& trace) {
    std::vector<bool> involved(trace.tasks.size(), false);
    std::set<std::string> objects;
    if (!trace.steps.empty()) objects.insert(trace.steps.back().object);
    for (const PendingTask& p : trace.pending) {
        involved[p.task_id] = true;
        objects.insert(p.object);
    }
    objects.erase("");
    for (bool grew = true; grew;) {
        grew = false;
        for (const TraceStep& s : trace.steps)
            if (!involved[s.task_id] && objects.count(s.object)) grew = involved[s.task_id] = true;
        for (const TraceStep& s : trace.steps)
            if (involved[s.task_id] && !s.object.empty()) grew |= objects.insert(s.object).second;
    }
    if (!trace.steps.empty()) involved[trace.steps.back().task_id] = true;
    return involved;
}

} // namespace

std::string operation_text(const TraceStep& s) {
    std::string args;
    for (std::int64_t a : s.args)
        args += std::to_string(a) + ", ";
    if (s.object.empty() && !args.empty()) args.resize(args.size() - 2);
    std::string op = s.operation + "(" + args + s.object + ")";
    if (s.value) op += " -> " + std::to_string(*s.value);
    return op;
}

std::string format_trace(const Trace& trace, bool colour, bool locations) {
    const std::vector<bool> involved = involved_tasks(trace);
    std::vector<std::size_t> width(trace.tasks.size());
    for (std::size_t t = 0; t < trace.tasks.size(); ++t)
        width[t] = trace.tasks[t].size();
    for (const TraceStep& s : trace.steps)
        width[s.task_id] = std::max(width[s.task_id], operation_text(s).size());
    const std::string state_header = "state after the step";
    // With locations, the state column is as wide as its widest entry, the locations line up
    // after it.
    std::size_t state_width = 0;
    if (locations) {
        state_width = state_header.size();
        for (const TraceStep& s : trace.steps)
            if (involved[s.task_id])
                state_width = std::max(state_width, state_text(s.object, s.state).size());
    }
    const std::uint32_t preemptions = trace.preemptions();
    std::string out = "trace (" + std::to_string(trace.steps.size()) + " steps, " +
                      std::to_string(preemptions) +
                      (preemptions == 1 ? " preemption" : " preemptions") +
                      (preemptions ? ", marked *" : "") + "):\n";
    std::string header = "  step  ";
    for (std::size_t t = 0; t < trace.tasks.size(); ++t)
        if (involved[t]) header += pad(trace.tasks[t], width[t]) + "  ";
    out +=
        header + (locations ? pad(state_header, state_width) + "  location" : state_header) + "\n";
    for (std::size_t i = 0; i < trace.steps.size(); ++i) {
        const TraceStep& s = trace.steps[i];
        if (!involved[s.task_id]) {
            // A run of steps of one task not involved: one line.
            std::size_t j = i;
            while (j + 1 < trace.steps.size() && trace.steps[j + 1].task_id == s.task_id)
                ++j;
            char range[32];
            std::snprintf(range, sizeof range, "%6u-%u", s.step, trace.steps[j].step);
            out += std::string(range) + "  " + s.task + ": " + std::to_string(j - i + 1) +
                   (j == i ? " step" : " steps") + " not involved\n";
            i = j;
            continue;
        }
        const bool last = i + 1 == trace.steps.size();
        char num[16];
        std::snprintf(num, sizeof num, "%6u", s.step);
        std::string line = std::string(num);
        // On the violating row, the colour after the yellow star is the row's red again.
        if (s.preempted)
            line += colour ? std::string(kYellow) + "*" + (last ? kRed : kPlain) + " " : "* ";
        else
            line += "  ";
        for (std::size_t t = 0; t < trace.tasks.size(); ++t)
            if (involved[t]) line += pad(t == s.task_id ? operation_text(s) : "", width[t]) + "  ";
        const std::string state = state_text(s.object, s.state);
        line += locations ? pad(state, state_width) + "  " + s.location.text() : state;
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out += (colour && last ? kRed + line + kPlain : line) + "\n";
    }
    // What the violation involves, as it stands at the end.
    std::vector<std::string> states;
    std::set<std::string> shown;
    auto show = [&](const std::string& object) {
        if (object.empty() || !shown.insert(object).second) return;
        for (auto s = trace.steps.rbegin(); s != trace.steps.rend(); ++s)
            if (s->object == object) {
                states.push_back(state_text(object, s->state));
                return;
            }
    };
    if (!trace.steps.empty()) show(trace.steps.back().object);
    for (const PendingTask& p : trace.pending)
        show(p.object);
    if (!states.empty()) {
        out += "at the end:";
        for (const std::string& s : states)
            out += " " + s + (&s == &states.back() ? "" : ";");
        out += "\n";
    }
    return out;
}

} // namespace lockcheck
