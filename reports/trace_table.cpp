// The terminal trace: a swim-lane table, one column per task, so that who ran when reads at a
// glance. Steps the violation does not depend on (checker/trace.hpp's Story) are folded into
// one line per run, unless the full trace is asked for; the states of what the violation
// involves close the table. On request a last column names the model's line of each step.
#include <algorithm>
#include <cstdio>
#include <set>

#include "text.hpp"

namespace lockcheck {

namespace {

constexpr const char* kRed = "\033[31m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kBold = "\033[1m";
constexpr const char* kPlain = "\033[0m";
// The closing states stay on one line up to this many bytes.
constexpr std::size_t kEndLineWidth = 100;

std::string pad(const std::string& s, std::size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// "log_writers = 1", "log_mutex: held by fsync0"
std::string state_text(const std::string& object, const std::string& state) {
    if (object.empty()) return "";
    return object + (state.rfind("= ", 0) == 0 ? " " : ": ") + state;
}

// "… 24 steps of balance0 …": what a folded row stands for.
std::string folded_line(const Trace& trace, const TraceRow& row) {
    std::vector<bool> whose(trace.tasks.size(), false);
    for (std::size_t i = row.first; i <= row.last; ++i)
        whose[trace.steps[i].task_id] = true;
    std::string tasks;
    for (std::size_t t = 0; t < whose.size(); ++t)
        if (whose[t]) tasks += (tasks.empty() ? "" : ", ") + trace.tasks[t];
    return folded_text(row.last - row.first + 1, tasks);
}

// "xc_ctx = 2 (since step 26)": an object the broken property read, as it was left.
std::string read_text(const PropertyRead& r) {
    std::string text = state_text(r.object, r.state);
    if (r.changed_at) text += " (since step " + std::to_string(r.changed_at) + ")";
    return text;
}

// The objects a reader needs at the end: what the broken property read, else the object of
// the last step and those the unfinished tasks were at.
std::vector<std::string> end_states(const Trace& trace) {
    std::vector<std::string> states;
    for (const PropertyRead& r : trace.reads)
        states.push_back(read_text(r));
    if (!states.empty()) return states;
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
    return states;
}

// "at the end: a; b" on one line while it is short, else one object a line.
std::string format_end(const std::vector<std::string>& states) {
    if (states.empty()) return "";
    std::string line = "at the end:";
    for (const std::string& s : states)
        line += " " + s + (&s == &states.back() ? "" : ";");
    if (line.size() <= kEndLineWidth) return line + "\n";
    std::string out = "at the end:\n";
    for (const std::string& s : states)
        out += "  " + s + "\n";
    return out;
}

} // namespace

std::vector<TraceRow> trace_rows(const Trace& trace, const Story& story, bool full) {
    std::vector<TraceRow> rows;
    const std::size_t n = trace.steps.size();
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i;
        if (!full && !story.involved[i])
            while (j + 1 < n && !story.involved[j + 1])
                ++j;
        rows.push_back(TraceRow{i, j, j > i});
        i = j + 1;
    }
    return rows;
}

std::string folded_text(std::size_t steps, const std::string& tasks, bool ascii) {
    const std::string ellipsis = ascii ? "..." : "\u2026";
    return ellipsis + " " + std::to_string(steps) + (steps == 1 ? " step" : " steps") +
           (tasks.empty() ? "" : " of " + tasks) + " " + ellipsis;
}

std::string operation_text(const TraceStep& s) {
    std::string args;
    for (std::int64_t a : s.args)
        args += std::to_string(a) + ", ";
    if (s.object.empty() && !args.empty()) args.resize(args.size() - 2);
    std::string op = s.operation + "(" + args + s.object + ")";
    // A wake-up returns how many it woke: one that woke nobody is often the lost wake-up.
    const bool wake_up = s.operation == "wake_up" || s.operation == "wake_up_all" ||
                         s.operation == "wake_up_process";
    if (wake_up && s.value == 0)
        op += " -> woke none";
    else if (s.value)
        op += " -> " + std::to_string(*s.value);
    return op;
}

std::string format_trace(const Trace& trace, bool colour, bool locations, bool full) {
    const Story why = story(trace);
    const std::vector<TraceRow> rows = trace_rows(trace, why, full);
    // A column per task with a step shown or left blocked; all of them for the full trace.
    std::vector<bool> column(trace.tasks.size(), full);
    for (const TraceRow& row : rows)
        if (!row.folded) column[trace.steps[row.first].task_id] = true;
    for (const PendingTask& p : trace.pending)
        column[p.task_id] = true;
    std::vector<std::size_t> width(trace.tasks.size());
    for (std::size_t t = 0; t < trace.tasks.size(); ++t)
        width[t] = trace.tasks[t].size();
    std::size_t state_width = 0;
    const std::string state_header = "state after the step";
    for (const TraceRow& row : rows) {
        if (row.folded) continue;
        const TraceStep& s = trace.steps[row.first];
        width[s.task_id] = std::max(width[s.task_id], operation_text(s).size());
        // With locations, the state column is as wide as its widest entry, the locations line
        // up after it.
        if (locations)
            state_width =
                std::max({state_width, state_header.size(), state_text(s.object, s.state).size()});
    }
    // The row drawn red: the step that broke the property; the last one when that is not known.
    std::uint32_t violating = trace.violating_step;
    if (!violating && trace.reads.empty() && !trace.steps.empty())
        violating = trace.steps.back().step;
    const std::uint32_t preemptions = trace.preemptions();
    std::string out = "trace (" + std::to_string(trace.steps.size()) + " steps, " +
                      std::to_string(preemptions) +
                      (preemptions == 1 ? " preemption" : " preemptions") +
                      (preemptions ? ", marked *" : "") + "):\n";
    std::string header = "  step  ";
    for (std::size_t t = 0; t < trace.tasks.size(); ++t)
        if (column[t]) header += pad(trace.tasks[t], width[t]) + "  ";
    out +=
        header + (locations ? pad(state_header, state_width) + "  location" : state_header) + "\n";
    for (const TraceRow& row : rows) {
        const TraceStep& s = trace.steps[row.first];
        if (row.folded) {
            char range[32];
            std::snprintf(range, sizeof range, "%6u-%u", s.step, trace.steps[row.last].step);
            out += std::string(range) + "  " + folded_line(trace, row) + "\n";
            continue;
        }
        char num[16];
        std::snprintf(num, sizeof num, "%6u", s.step);
        std::string line = std::string(num);
        // The row is red if it broke the property, bold if the report rests on it.
        const char* row_colour = !colour                ? nullptr
                                 : s.step == violating  ? kRed
                                 : why.cause[row.first] ? kBold
                                                        : nullptr;
        // After a preemption's yellow star the row's own colour goes on.
        if (s.preempted)
            line += colour ? std::string(kYellow) + "*" + (row_colour ? row_colour : kPlain) + " "
                           : "* ";
        else
            line += "  ";
        for (std::size_t t = 0; t < trace.tasks.size(); ++t)
            if (column[t]) line += pad(t == s.task_id ? operation_text(s) : "", width[t]) + "  ";
        const std::string state = state_text(s.object, s.state);
        line += locations ? pad(state, state_width) + "  " + s.location.text() : state;
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out += (row_colour ? row_colour + line + kPlain : line) + "\n";
    }
    return out + format_end(end_states(trace));
}

} // namespace lockcheck
