// The compare table: both runs' figures per execution, row by row, and the marks that say
// what the change did to waiting; its JSON document and its HTML page.
#include "comparison.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "html_report.hpp"
#include "text.hpp"

namespace lockcheck::detail {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::array<std::string_view, 7> kMarkNames = {
    "", "worse", "better", "new contention", "changed", "only before", "only after"};

constexpr std::array<std::string_view, 4> kSideRunNames = {"whole", "to-violation", "stopped",
                                                           "not-run"};

const std::string& variant_of(const CompareReport& c, bool after) {
    return after ? c.after_variant : c.before_variant;
}

// Whether the figures of both sides weigh the same executions: both searches ran to their end.
bool comparable(const CompareReport& c) {
    return side_run(c, false) == SideRun::whole && side_run(c, true) == SideRun::whole;
}

const LockHolds* find_lock(const SearchStats& s, const std::string& lock) {
    const auto it = std::find_if(s.holds.begin(), s.holds.end(),
                                 [&lock](const LockHolds& l) { return l.lock == lock; });
    return it == s.holds.end() ? nullptr : &*it;
}

// One figure of one side: its value for the JSON, its text for the table ("" with none).
struct Figure {
    double value = -1;
    std::string text;
};

Figure number(double value) {
    return {value, decimal(value)};
}

Figure whole(std::uint64_t value) {
    return {static_cast<double>(value), std::to_string(value)};
}

Figure percent(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %%", value);
    return {value, text};
}

// The figures of an operation, by row: its instances per execution, mean and worst wait, and
// worst/mean (dbench's MaxLat/AvgLat).
constexpr std::array<const char*, 4> kOpFigures = {"per execution", "mean wait", "worst wait",
                                                   "worst/mean"};

Figure op_figure(const OpWaits* w, std::uint64_t measured, std::size_t row) {
    if (!w) return {};
    const double mean = ratio(w->total, w->count);
    switch (row) {
    case 0:
        return number(ratio(w->count, measured));
    case 1:
        return number(mean);
    case 2:
        return whole(w->worst);
    default:
        return mean > 0 ? number(w->worst / mean) : Figure{};
    }
}

// A lock's: acquisitions per execution, the share of them contended, sleeps on it per
// execution (the context switches it forced), and mean and longest hold in steps.
constexpr std::array<const char*, 5> kLockFigures = {"acquisitions", "contended", "sleeps",
                                                     "mean hold", "max hold"};

Figure lock_figure(const LockHolds* l, std::uint64_t measured, std::size_t row) {
    if (!l) return {};
    const LockStats& s = l->stats;
    switch (row) {
    case 0:
        return number(ratio(s.acquisitions, measured));
    case 1:
        return s.acquisitions ? percent(100.0 * ratio(s.contended, s.acquisitions)) : Figure{};
    case 2:
        return number(ratio(s.sleeps, measured));
    case 3:
        return s.holds ? number(ratio(s.steps, s.holds)) : Figure{};
    default:
        return s.holds ? whole(s.longest) : Figure{};
    }
}

ComparisonRow row(std::string subject, std::string figure, const Figure& before,
                  const Figure& after, Mark mark = Mark::none) {
    return ComparisonRow{std::move(subject), std::move(figure), before.text, after.text, mark,
                         before.value,       after.value};
}

// The names of both sides, the before side's first, each once.
template <class Item, class Name>
std::vector<std::string> names(const std::vector<Item>& before, const std::vector<Item>& after,
                               Name name) {
    std::vector<std::string> all;
    for (const auto* side : {&before, &after})
        for (const Item& item : *side)
            if (std::find(all.begin(), all.end(), name(item)) == all.end())
                all.push_back(name(item));
    return all;
}

Mark presence(bool before, bool after) {
    if (before == after) return Mark::none;
    return before ? Mark::only_before : Mark::only_after;
}

void add_op_rows(const CompareReport& c, std::vector<ComparisonRow>& rows) {
    const SearchStats& b = c.before.summary.stats;
    const SearchStats& a = c.after.summary.stats;
    for (const std::string& op : names(b.ops, a.ops, [](const OpWaits& w) { return w.op; })) {
        const OpWaits* wb = b.find_op(op);
        const OpWaits* wa = a.find_op(op);
        for (std::size_t i = 0; i < kOpFigures.size(); ++i) {
            Mark mark = i == 0 ? presence(wb, wa) : Mark::none;
            if (i == 2 && wb && wa && wa->worst != wb->worst)
                mark = wa->worst > wb->worst ? Mark::worse : Mark::better;
            if (!comparable(c)) mark = Mark::none;
            rows.push_back(row(i == 0 ? op : "", kOpFigures[i], op_figure(wb, b.measured(), i),
                               op_figure(wa, a.measured(), i), mark));
        }
    }
}

void add_lock_rows(const CompareReport& c, std::vector<ComparisonRow>& rows) {
    const SearchStats& b = c.before.summary.stats;
    const SearchStats& a = c.after.summary.stats;
    for (const std::string& lock :
         names(b.holds, a.holds, [](const LockHolds& l) { return l.lock; })) {
        const LockHolds* lb = find_lock(b, lock);
        const LockHolds* la = find_lock(a, lock);
        // A wait queue or a completion is only slept on: its sleeps row says it all.
        const bool taken = (lb && lb->stats.acquisitions) || (la && la->stats.acquisitions);
        bool first = true;
        for (std::size_t i = 0; i < kLockFigures.size(); ++i) {
            if (!taken && i != 2) continue;
            Mark mark = first ? presence(lb, la) : Mark::none;
            if (i == 1 && la && la->stats.contended && !(lb && lb->stats.contended))
                mark = Mark::new_contention;
            if (!comparable(c)) mark = Mark::none;
            rows.push_back(row(first ? lock : "", kLockFigures[i], lock_figure(lb, b.measured(), i),
                               lock_figure(la, a.measured(), i), mark));
            first = false;
        }
    }
}

std::string pad(const std::string& text, std::size_t width) {
    return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string verdict_word(const CompareReport& c, bool after) {
    if (side_run(c, after) == SideRun::not_run) return "not run";
    return std::string(verdict_name(verdict_of((after ? c.after : c.before).summary)));
}

// The header's line on a side whose figures do not compare, as {label, text}; an empty label
// for a side that ran whole. "partial", "unlocked: its search stopped at its first violation;
// figures from those 745 executions, waits not compared".
std::pair<std::string, std::string> side_note(const CompareReport& c, bool after) {
    const SearchStats& s = (after ? c.after : c.before).summary.stats;
    const std::string& v = variant_of(c, after);
    const std::string figures =
        "; figures from " +
        (s.executions == 1 ? std::string("that 1 execution")
                           : "those " + std::to_string(s.executions) + " executions") +
        ", waits not compared";
    switch (side_run(c, after)) {
    case SideRun::whole:
        return {};
    case SideRun::to_violation:
        return {"partial", v + ": its search stopped at its first violation" + figures};
    case SideRun::stopped:
        return {"partial", v + ": " + s.stopped_by + " stopped its search" + figures};
    case SideRun::not_run:
        break;
    }
    const std::string& by = (after ? c.before : c.after).summary.stats.stopped_by;
    return {"not run", v + ": compare stopped before it" + (by.empty() ? "" : " (" + by + ")")};
}

// "unlocked is unsafe: ..." and its replay line under the table, and each operation that
// waits longer after: what the change did.
std::string closing_lines(const CompareReport& c) {
    std::string text;
    const RunReport& after = c.after;
    if (!after.counterexamples.empty()) {
        const Counterexample& first = after.counterexamples.front();
        text += c.after_variant + " is unsafe: " + format_violation(first.violation);
        text += "replay: " + first.replay_command + "\n";
    }
    for (const std::string& op : worse_operations(c))
        text += op + " waits longer in " + c.after_variant + " (--fail-if-worse " + op + ")\n";
    return text;
}

} // namespace

std::string_view mark_name(Mark mark) {
    return kMarkNames[static_cast<int>(mark)];
}

SideRun side_run(const CompareReport& c, bool after) {
    if (!(after ? c.after_ran : c.before_ran)) return SideRun::not_run;
    const Summary& s = (after ? c.after : c.before).summary;
    if (!s.stats.stopped_by.empty()) return SideRun::stopped;
    if (s.violations && !s.keep_going) return SideRun::to_violation;
    return SideRun::whole;
}

std::string_view side_run_name(SideRun run) {
    return kSideRunNames[static_cast<int>(run)];
}

std::vector<ComparisonRow> comparison_rows(const CompareReport& c) {
    std::vector<ComparisonRow> rows;
    const std::string vb = verdict_word(c, false), va = verdict_word(c, true);
    // A verdict changes between two searches that reached one: not one a signal or limit cut.
    const auto reached = [&c](bool after) {
        const SideRun run = side_run(c, after);
        return run == SideRun::whole || run == SideRun::to_violation;
    };
    rows.push_back(
        ComparisonRow{"verdict", "", vb, va,
                      vb == va || !reached(false) || !reached(true) ? Mark::none : Mark::changed});
    const auto executions = [&c](bool after) {
        if (side_run(c, after) == SideRun::not_run) return Figure{};
        return whole((after ? c.after : c.before).summary.stats.executions);
    };
    rows.push_back(row("executions", "", executions(false), executions(true)));
    add_op_rows(c, rows);
    add_lock_rows(c, rows);
    return rows;
}

std::vector<std::string> worse_operations(const CompareReport& c) {
    std::vector<std::string> worse;
    if (!comparable(c)) return worse;
    for (const std::string& op : c.fail_if_worse) {
        const OpWaits* wb = c.before.summary.stats.find_op(op);
        const OpWaits* wa = c.after.summary.stats.find_op(op);
        if (wa && (!wb || wa->worst > wb->worst)) worse.push_back(op);
    }
    return worse;
}

std::string format_comparison(const CompareReport& c) {
    const Summary& s = c.before.summary;
    std::string text = "== lockcheck compare: " + s.model + ", " + c.before_variant + " -> " +
                       c.after_variant + " ==\n";
    if (!s.parameters.empty()) text += pad("sizes", 12) + sizes_text(s.parameters) + "\n";
    text += pad("strategy", 12) + s.strategy + "\n";
    text += pad("bound", 12) + s.bound + "\n";
    text += pad("figures", 12) + weighting_text(s.strategy, /*stores_states=*/false) + "\n";
    if (!c.chosen.empty()) text += pad("chosen", 12) + c.chosen + "\n";
    for (const bool after : {false, true})
        if (const auto [label, note] = side_note(c, after); !label.empty())
            text += pad(label, 12) + note + "\n";
    text += "\n";

    const std::vector<ComparisonRow> rows = comparison_rows(c);
    std::size_t subject = 0, figure = 0, before = c.before_variant.size(),
                after = c.after_variant.size();
    for (const ComparisonRow& r : rows) {
        subject = std::max(subject, r.subject.size());
        figure = std::max(figure, r.figure.size());
        before = std::max(before, r.before.size());
        after = std::max(after, r.after.size());
    }
    const auto line = [&](const std::string& a, const std::string& b, const std::string& x,
                          const std::string& y, std::string_view mark) {
        std::string l = pad(a, subject + 2) + pad(b, figure + 2) + pad(x, before + 2) +
                        (mark.empty() ? y : pad(y, after + 2) + std::string(mark));
        while (!l.empty() && l.back() == ' ')
            l.pop_back();
        return l + "\n";
    };
    text += line("", "", c.before_variant, c.after_variant, "");
    for (const ComparisonRow& r : rows)
        text += line(r.subject, r.figure, r.before.empty() ? "-" : r.before,
                     r.after.empty() ? "-" : r.after, mark_name(r.mark));
    const std::string closing = closing_lines(c);
    return text + (closing.empty() ? "" : "\n" + closing);
}

std::string to_json(const CompareReport& c) {
    Json rows = Json::array();
    for (const ComparisonRow& r : comparison_rows(c)) {
        const auto value = [](double v) { return v < 0 ? Json(nullptr) : Json(v); };
        rows.push_back(Json{{"subject", r.subject},
                            {"figure", r.figure},
                            {"before", r.before},
                            {"after", r.after},
                            {"before_value", value(r.before_value)},
                            {"after_value", value(r.after_value)},
                            {"mark", std::string(mark_name(r.mark))}});
    }
    Json sides = Json::array();
    for (const bool after : {false, true}) {
        const SideRun run = side_run(c, after);
        sides.push_back(Json{
            {"variant", variant_of(c, after)},
            {"run", std::string(side_run_name(run))},
            {"executions",
             run == SideRun::not_run ? 0 : (after ? c.after : c.before).summary.stats.executions}});
    }
    const auto report = [](const RunReport& r, bool ran) {
        return ran ? Json::parse(to_json(r)) : Json(nullptr);
    };
    Json doc{{"schema", "lockcheck-compare"},
             {"version", kCompareVersion},
             {"minor_version", kCompareMinorVersion},
             {"lockcheck_version", kLockcheckVersion},
             {"command", c.command},
             {"exit_code", c.exit_code},
             {"chosen", c.chosen},
             {"sides", std::move(sides)},
             {"fail_if_worse", c.fail_if_worse},
             {"worse", worse_operations(c)},
             {"rows", std::move(rows)},
             {"before", report(c.before, c.before_ran)},
             {"after", report(c.after, c.after_ran)}};
    return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string to_html(const CompareReport& c, const std::vector<std::string>& drawings) {
    const Summary& s = c.before.summary;
    std::string html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>lockcheck "
                       "compare " +
                       html_escaped(s.model) + "</title></head><body>\n<h1>" +
                       html_escaped(s.model) + ": " + html_escaped(c.before_variant) + " &rarr; " +
                       html_escaped(c.after_variant) + "</h1>\n<p><code>" +
                       html_escaped(c.command) + "</code></p>\n<p>" +
                       html_escaped(s.strategy + "; " + s.bound + "; " +
                                    weighting_text(s.strategy, /*stores_states=*/false)) +
                       "</p>\n";
    if (!c.chosen.empty()) html += "<p>chosen " + html_escaped(c.chosen) + "</p>\n";
    for (const bool after : {false, true})
        if (const auto [label, note] = side_note(c, after); !label.empty())
            html += "<p>" + html_escaped(label + ": " + note) + "</p>\n";
    html += "<table>\n<tr><th></th><th></th><th>" + html_escaped(c.before_variant) + "</th><th>" +
            html_escaped(c.after_variant) + "</th><th></th></tr>\n";
    for (const ComparisonRow& r : comparison_rows(c))
        html += "<tr><td>" + html_escaped(r.subject) + "</td><td>" + html_escaped(r.figure) +
                "</td><td>" + html_escaped(r.before) + "</td><td>" + html_escaped(r.after) +
                "</td><td><b>" + html_escaped(std::string(mark_name(r.mark))) + "</b></td></tr>\n";
    html += "</table>\n";
    const RunReport* sides[] = {&c.before, &c.after};
    for (std::size_t i = 0; i < 2; ++i) {
        const std::string& v = variant_of(c, i == 1);
        if (side_run(c, i == 1) == SideRun::not_run) continue; // it has no report
        html += "<h2>" + html_escaped(v) + "</h2>\n<p><a href=\"" + html_escaped(v) +
                "/index.html\">its report</a></p>\n";
        if (i < drawings.size() && !drawings[i].empty())
            html += "<p>where " + html_escaped(sides[i]->worst_wait->span.op) +
                    " waited longest:</p>\n<img src=\"" + html_escaped(drawings[i]) + "\" alt=\"" +
                    html_escaped(v) + ": worst wait\">\n";
    }
    return html + "</body></html>\n";
}

} // namespace lockcheck::detail
