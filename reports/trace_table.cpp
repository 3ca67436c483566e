// The terminal trace: a swim-lane table, one column per task, so that who ran when reads at a
// glance. Steps the violation does not depend on (checker/trace.hpp's Story) are folded into
// one line per run, unless the full trace is asked for; the states of what the violation
// involves close the table. On request a last column names the model's line of each step.
// Shown for a named operation's wait instead, the table marks the steps it waited.
#include <algorithm>
#include <cstdio>
#include <set>

#include "text.hpp"

namespace lockcheck::detail {

namespace {

constexpr const char* kRed = "\033[31m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kBold = "\033[1m";
constexpr const char* kPlain = "\033[0m";
// The closing states stay on one line up to this many bytes.
constexpr std::size_t kEndLineWidth = 100;

// "1 step", "15 steps"
std::string steps_text(std::uint32_t n) {
    return std::to_string(n) + (n == 1 ? " step" : " steps");
}

std::string pad(const std::string& s, std::size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// "log_writers = 1", "log_mutex: held by fsync0"
std::string state_text(const std::string& object, const std::string& state) {
    if (object.empty()) return "";
    return object + (state.rfind("= ", 0) == 0 ? " " : ": ") + state;
}

// "… 24 steps of balance0 …", "… 30 more turns of the same loop …": what a folded row
// stands for.
std::string folded_line(const Trace& trace, const TraceRow& row) {
    if (row.turns) return turns_text(row.turns);
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

// Under lkmm, where a barrier would have forbidden the execution, a line each.
std::string format_barriers(const std::vector<std::string>& barriers) {
    if (barriers.empty()) return "";
    std::string out = "a barrier would rule this out:";
    if (barriers.size() == 1) return out + " " + barriers.front() + "\n";
    out += "\n";
    for (const std::string& b : barriers)
        out += "  " + b + "\n";
    return out;
}

// The longest turn of a loop that folding looks for, in steps: a spin loop's is two
// (READ_ONCE(), cpu_relax()), a seqcount or cmpxchg retry loop's a few more.
constexpr std::size_t kLongestTurn = 16;

// Whether two steps did the same: the same task, operation, arguments and value, on the same
// object left in the same state, from the same line, reading from the same step, with the same
// tasks waiting; neither a preemption (a scheduling choice the bug may hinge on).
bool same_turn_step(const TraceStep& a, const TraceStep& b) {
    const auto same_links = [](const std::vector<WaitLink>& x, const std::vector<WaitLink>& y) {
        return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                          [](const WaitLink& l, const WaitLink& m) {
                              return l.task_id == m.task_id && l.operation == m.operation &&
                                     l.object == m.object && l.holder_id == m.holder_id;
                          });
    };
    return a.task_id == b.task_id && a.operation == b.operation && a.object == b.object &&
           a.args == b.args && a.value == b.value && a.state == b.state &&
           a.location == b.location && a.synced_from == b.synced_from && a.missed == b.missed &&
           a.changed == b.changed && !a.preempted && !b.preempted &&
           same_links(a.waiting, b.waiting);
}

// How many turns of `period` steps, each the same as the first, run from step `first` on (at
// least one), all of them involved: the steps a row of folded turns may stand for. A turn with
// a cause in it is the last counted, as it must be shown.
std::size_t turns_from(const Trace& trace, const Story& story, std::size_t first,
                       std::size_t period) {
    const std::vector<TraceStep>& steps = trace.steps;
    std::size_t turns = 1;
    for (std::size_t next = first + period; next + period <= steps.size(); next += period) {
        bool cause = false;
        for (std::size_t k = 0; k < period; ++k) {
            if (!story.involved[next + k] || !same_turn_step(steps[first + k], steps[next + k]))
                return turns;
            cause = cause || story.cause[next + k];
        }
        ++turns;
        if (cause) break;
    }
    return turns;
}

// A loop that went round the same way from step `first` on, enough times to fold: its first
// turn, two or more turns folded, its last turn. Its period is 0 if there is none.
struct Loop {
    std::size_t period = 0;
    std::size_t turns = 0;
};
Loop loop_from(const Trace& trace, const Story& story, std::size_t first) {
    for (std::size_t period = 1; period <= kLongestTurn; ++period)
        if (const std::size_t turns = turns_from(trace, story, first, period); turns >= 4)
            return Loop{period, turns};
    return Loop{};
}

} // namespace

std::vector<TraceRow> trace_rows(const Trace& trace, const Story& story, bool full) {
    std::vector<TraceRow> rows;
    const std::size_t n = trace.steps.size();
    for (std::size_t i = 0; i < n;) {
        if (full) {
            rows.push_back(TraceRow{i, i});
            ++i;
        } else if (!story.involved[i]) {
            std::size_t j = i;
            while (j + 1 < n && !story.involved[j + 1])
                ++j;
            rows.push_back(TraceRow{i, j, j > i});
            i = j + 1;
        } else if (const Loop loop = loop_from(trace, story, i); loop.period) {
            // Its first turn, a row for the turns between; its last turn is shown as the rows
            // from there on are.
            for (std::size_t k = i; k < i + loop.period; ++k)
                rows.push_back(TraceRow{k, k});
            const std::size_t last_turn = i + (loop.turns - 1) * loop.period;
            rows.push_back(TraceRow{i + loop.period, last_turn - 1, true, loop.turns - 2});
            i = last_turn;
        } else {
            rows.push_back(TraceRow{i, i});
            ++i;
        }
    }
    return rows;
}

std::string folded_text(std::size_t steps, const std::string& tasks, bool ascii) {
    const std::string ellipsis = ascii ? "..." : "\u2026";
    return ellipsis + " " + std::to_string(steps) + (steps == 1 ? " step" : " steps") +
           (tasks.empty() ? "" : " of " + tasks) + " " + ellipsis;
}

std::string turns_text(std::size_t turns, bool ascii) {
    const std::string ellipsis = ascii ? "..." : "\u2026";
    return ellipsis + " " + std::to_string(turns) + " more turns of the same loop " + ellipsis;
}

std::string operation_text(const TraceStep& s) {
    // In the kernel's order: set_bit(1, log_tree), atomic_set(aflag, 1).
    std::string params = s.object_first ? s.object : std::string();
    for (std::int64_t a : s.args)
        params += (params.empty() ? "" : ", ") + std::to_string(a);
    if (!s.object_first && !s.object.empty()) params += (params.empty() ? "" : ", ") + s.object;
    std::string op = s.operation + "(" + params + ")";
    // A wake-up returns how many it woke: one that woke nobody is often the lost wake-up.
    const bool wake_up = s.operation == "wake_up" || s.operation == "wake_up_all" ||
                         s.operation == "wake_up_process";
    if (wake_up && s.value == 0)
        op += " -> woke none";
    else if (s.value)
        op += " -> " + (s.value_text.empty() ? std::to_string(*s.value) : s.value_text);
    // Under lkmm: the read saw a write its writer made later (load buffering), or an older
    // write than the latest, which had not reached it.
    if (s.later_from)
        op += " (reads step " + std::to_string(s.later_from) + "'s write, made later)";
    else if (s.missed)
        op += " (saw " +
              (s.synced_from ? "step " + std::to_string(s.synced_from) + "'s write"
                             : std::string("the initial value")) +
              ", not step " + std::to_string(s.missed) + "'s)";
    return op;
}

namespace {

// Columns a line takes on a terminal: UTF-8 continuation bytes take none ("…" is one).
std::size_t columns_of(const std::string& line) {
    return static_cast<std::size_t>(std::count_if(line.begin(), line.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

// The trace as lines, in one of two layouts: swim lanes, a column per task (who ran when, at a
// glance), or, narrower, a list that names each step's task (for a terminal the lanes do not
// fit), where a row still too wide puts its state on a line of its own.
class TraceLayout {
  public:
    TraceLayout(const Trace& trace, bool locations, bool full, const OpSpan* wait)
        : trace_(trace), wait_(wait), why_(wait ? wait_story(trace, *wait) : story(trace)),
          rows_(trace_rows(trace, why_, full)), locations_(locations),
          column_(trace.tasks.size(), full), width_(trace.tasks.size()) {
        // A column per task with a step shown or left blocked; all of them for the full trace.
        for (const TraceRow& row : rows_)
            if (!row.folded) column_[trace.steps[row.first].task_id] = true;
        for (const PendingTask& p : trace.pending)
            column_[p.task_id] = true;
        for (std::size_t t = 0; t < trace.tasks.size(); ++t) {
            width_[t] = trace.tasks[t].size();
            if (column_[t]) task_width_ = std::max(task_width_, trace.tasks[t].size());
        }
        for (const TraceRow& row : rows_) {
            if (row.folded) continue;
            const TraceStep& s = trace.steps[row.first];
            const std::size_t op = operation_text(s).size();
            width_[s.task_id] = std::max(width_[s.task_id], op);
            if (const WaitLink* l = waited(s))
                width_[l->task_id] = std::max(width_[l->task_id], waits_text(*l).size());
            op_width_ = std::max(op_width_, op);
            // With locations, the state column is as wide as its widest entry, the locations
            // line up after it.
            if (locations)
                state_width_ = std::max(
                    {state_width_, kStateHeader.size(), state_text(s.object, s.state).size()});
        }
        // The row drawn red: the step that broke the property; the last one when that is not
        // known.
        violating_ = trace.violating_step;
        if (!violating_ && !wait && trace.reads.empty() && !trace.steps.empty())
            violating_ = trace.steps.back().step;
    }

    // The table's lines after its title; `lanes`: swim lanes, else the list; `width`: the
    // list's limit (0: none).
    std::string render(bool lanes, bool colour, std::size_t width) const {
        std::string header = "  step  ";
        if (lanes) {
            for (std::size_t t = 0; t < trace_.tasks.size(); ++t)
                if (column_[t]) header += pad(trace_.tasks[t], width_[t]) + "  ";
        } else {
            header +=
                pad("task", task_width_) + "  " + pad("operation", list_op_width(width)) + "  ";
        }
        std::string out =
            header + (locations_ ? pad(kStateHeader, state_width_) + "  location" : kStateHeader) +
            "\n";
        for (const TraceRow& row : rows_)
            out += render_row(row, lanes, colour, width);
        return out;
    }

  private:
    static inline const std::string kStateHeader = "state after the step";

    std::string render_row(const TraceRow& row, bool lanes, bool colour, std::size_t width) const {
        const TraceStep& s = trace_.steps[row.first];
        if (row.folded) {
            char range[32];
            std::snprintf(range, sizeof range, "%6u-%u", s.step, trace_.steps[row.last].step);
            return std::string(range) + "  " + folded_line(trace_, row) + "\n";
        }
        char num[16];
        std::snprintf(num, sizeof num, "%6u", s.step);
        // The row is red if it broke the property, bold if the report rests on it.
        const char* row_colour = !colour                 ? nullptr
                                 : s.step == violating_  ? kRed
                                 : why_.cause[row.first] ? kBold
                                                         : nullptr;
        // After a preemption's yellow star the row's own colour goes on.
        const WaitLink* wait = waited(s);
        const std::string mark = wait ? "~" : " ";
        const std::string star =
            !s.preempted ? " " + mark
            : colour     ? std::string(kYellow) + "*" + (row_colour ? row_colour : kPlain) + mark
                         : "*" + mark;
        const std::string op = operation_text(s);
        std::string cells;
        if (lanes) {
            for (std::size_t t = 0; t < trace_.tasks.size(); ++t)
                if (column_[t])
                    cells += pad(t == s.task_id               ? op
                                 : wait && t == wait->task_id ? waits_text(*wait)
                                                              : "",
                                 width_[t]) +
                             "  ";
        } else {
            cells = pad(trace_.tasks[s.task_id], task_width_) + "  " +
                    pad(op, list_op_width(width)) + "  ";
        }
        const std::string state = state_text(s.object, s.state);
        const std::string rest =
            locations_ ? pad(state, state_width_) + "  " + s.location.text() : state;
        // Too wide for the terminal: the state goes on a line of its own, under the operation.
        std::string line = num + star + cells;
        if (!lanes && width && !rest.empty() && 8 + columns_of(cells) + columns_of(rest) > width) {
            trim(line);
            line += "\n" + std::string(8 + task_width_ + 2, ' ');
        }
        line += rest;
        trim(line);
        return (row_colour ? row_colour + line + kPlain : line) + "\n";
    }

    // The list's operation column: as wide as the widest operation, but at most three fifths
    // of what a terminal `width` wide leaves after the step and task columns (at least 20), so
    // that most states fit beside it; a longer operation pushes its state right.
    std::size_t list_op_width(std::size_t width) const {
        if (!width) return op_width_;
        const std::size_t left = width > 8 + task_width_ + 2 ? width - 8 - task_width_ - 2 : 0;
        return std::min(op_width_, std::max<std::size_t>(20, left * 3 / 5));
    }

    // The link of the shown span's task if it waited at step `s`, else null.
    const WaitLink* waited(const TraceStep& s) const {
        if (!wait_ || s.step <= wait_->begun_after || s.step > wait_->ended_at) return nullptr;
        return waiting_in(s, wait_->task_id);
    }

    // "~ waits on log_mutex": the waiting task's cell at a step it waited.
    static std::string waits_text(const WaitLink& l) {
        return "~ waits " + (l.object.empty() ? "in " + l.operation : "on " + l.object);
    }

    static void trim(std::string& line) {
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
    }

    const Trace& trace_;
    const OpSpan* wait_;
    const Story why_;
    const std::vector<TraceRow> rows_;
    const bool locations_;
    std::vector<bool> column_;
    std::vector<std::size_t> width_; // of each task's column
    std::size_t task_width_ = 4;     // the list's task column ("task")
    std::size_t op_width_ = 9;       // and its operation column ("operation")
    std::size_t state_width_ = 0;
    std::uint32_t violating_ = 0;
};

} // namespace

std::string format_trace(const Trace& trace, bool colour, bool locations, bool full,
                         std::size_t width, const OpSpan* wait) {
    const TraceLayout layout(trace, locations, full, wait);
    const std::uint32_t preemptions = trace.preemptions();
    std::string out =
        "trace (" + std::to_string(trace.steps.size()) + " steps, " + std::to_string(preemptions) +
        (preemptions == 1 ? " preemption" : " preemptions") + (preemptions ? ", marked *" : "") +
        (wait ? "; " + wait->task + " waited " + steps_text(wait->waited) +
                    (wait->waited ? ", marked ~" : "")
              : "") +
        "):\n";
    // Swim lanes unless a terminal `width` columns wide cannot show them.
    bool lanes = true;
    if (width) {
        const std::string plain = layout.render(true, false, 0);
        for (std::size_t at = 0; at < plain.size() && lanes;) {
            const std::size_t end = plain.find('\n', at);
            lanes = columns_of(plain.substr(at, end - at)) <= width;
            at = end + 1;
        }
    }
    return out + layout.render(lanes, colour, width) + format_end(end_states(trace)) +
           format_barriers(trace.barriers);
}

std::string chain_text(const std::vector<WaitLink>& chain) {
    const auto who = [](const std::string& task, const std::string& op) {
        return op.empty() ? task : task + " (" + op + ")";
    };
    std::string text;
    for (const WaitLink& l : chain) {
        text += text.empty() ? who(l.task, l.op) + " waits " : ", which waits ";
        text +=
            l.object.empty() ? "in " + l.operation : "on " + l.object + " (" + l.operation + ")";
        if (!l.holder.empty()) text += ", held by " + who(l.holder, l.holder_op);
    }
    return text;
}

std::string format_wait(const Trace& trace, const OpSpan& span) {
    std::string out = "wait: " + steps_text(span.waited) + "\n";
    // Runs of waited steps with the same chain: first and last step, how many, the chain.
    struct Run {
        std::uint32_t first = 0, last = 0, count = 0;
        std::string chain;
    };
    std::vector<Run> runs;
    for (const TraceStep& s : trace.steps) {
        if (s.step <= span.begun_after || s.step > span.ended_at) continue;
        std::string chain = chain_text(blocking_chain(s, span.task_id));
        if (chain.empty()) continue;
        if (runs.empty() || runs.back().chain != chain)
            runs.push_back(Run{s.step, s.step, 0, std::move(chain)});
        runs.back().last = s.step;
        ++runs.back().count;
    }
    for (const Run& r : runs)
        out += "  " +
               (r.first == r.last
                    ? "step " + std::to_string(r.first)
                    : "steps " + std::to_string(r.first) + "-" + std::to_string(r.last)) +
               " (" + std::to_string(r.count) + "): " + r.chain + "\n";
    return out;
}

} // namespace lockcheck::detail
