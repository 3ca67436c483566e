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

const std::string& variant_of(const RunReport& r) {
    return r.summary.variant;
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
            rows.push_back(row(first ? lock : "", kLockFigures[i], lock_figure(lb, b.measured(), i),
                               lock_figure(la, a.measured(), i), mark));
            first = false;
        }
    }
}

std::string pad(const std::string& text, std::size_t width) {
    return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string verdict_word(const RunReport& r) {
    return std::string(verdict_name(verdict_of(r.summary)));
}

// "the patch: 1302 -> 1358 executions" lines under the table: what the change did.
std::string closing_lines(const CompareReport& c) {
    std::string text;
    const RunReport& after = c.after;
    if (!after.counterexamples.empty()) {
        const Counterexample& first = after.counterexamples.front();
        text += variant_of(after) + " is unsafe: " + format_violation(first.violation);
        text += "replay: " + first.replay_command + "\n";
    }
    for (const std::string& op : worse_operations(c))
        text += op + " waits longer in " + variant_of(after) + " (--fail-if-worse " + op + ")\n";
    return text;
}

} // namespace

std::string_view mark_name(Mark mark) {
    return kMarkNames[static_cast<int>(mark)];
}

std::vector<ComparisonRow> comparison_rows(const CompareReport& c) {
    const Summary& b = c.before.summary;
    const Summary& a = c.after.summary;
    std::vector<ComparisonRow> rows;
    const std::string vb = verdict_word(c.before), va = verdict_word(c.after);
    rows.push_back(ComparisonRow{"verdict", "", vb, va, vb == va ? Mark::none : Mark::changed});
    rows.push_back(row("executions", "", whole(b.stats.executions), whole(a.stats.executions)));
    add_op_rows(c, rows);
    add_lock_rows(c, rows);
    return rows;
}

std::vector<std::string> worse_operations(const CompareReport& c) {
    std::vector<std::string> worse;
    for (const std::string& op : c.fail_if_worse) {
        const OpWaits* wb = c.before.summary.stats.find_op(op);
        const OpWaits* wa = c.after.summary.stats.find_op(op);
        if (wa && (!wb || wa->worst > wb->worst)) worse.push_back(op);
    }
    return worse;
}

std::string format_comparison(const CompareReport& c) {
    const Summary& s = c.before.summary;
    std::string text = "== lockcheck compare: " + s.model + ", " + variant_of(c.before) + " -> " +
                       variant_of(c.after) + " ==\n";
    if (!s.parameters.empty()) text += pad("sizes", 12) + sizes_text(s.parameters) + "\n";
    text += pad("strategy", 12) + s.strategy + "\n";
    text += pad("bound", 12) + s.bound + "\n";
    text += pad("figures", 12) + weighting_text(s.strategy, /*stores_states=*/false) + "\n\n";

    const std::vector<ComparisonRow> rows = comparison_rows(c);
    std::size_t subject = 0, figure = 0, before = variant_of(c.before).size(),
                after = variant_of(c.after).size();
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
    text += line("", "", variant_of(c.before), variant_of(c.after), "");
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
    Json doc{{"schema", "lockcheck-compare"},
             {"version", kCompareVersion},
             {"lockcheck_version", kLockcheckVersion},
             {"command", c.command},
             {"exit_code", c.exit_code},
             {"fail_if_worse", c.fail_if_worse},
             {"worse", worse_operations(c)},
             {"rows", std::move(rows)},
             {"before", Json::parse(to_json(c.before))},
             {"after", Json::parse(to_json(c.after))}};
    return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string to_html(const CompareReport& c, const std::vector<std::string>& drawings) {
    const Summary& s = c.before.summary;
    std::string html =
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>lockcheck "
        "compare " +
        html_escaped(s.model) + "</title></head><body>\n<h1>" + html_escaped(s.model) + ": " +
        html_escaped(variant_of(c.before)) + " &rarr; " + html_escaped(variant_of(c.after)) +
        "</h1>\n<p><code>" + html_escaped(c.command) + "</code></p>\n<p>" +
        html_escaped(s.strategy + "; " + s.bound + "; " +
                     weighting_text(s.strategy, /*stores_states=*/false)) +
        "</p>\n<table>\n<tr><th></th><th></th><th>" + html_escaped(variant_of(c.before)) +
        "</th><th>" + html_escaped(variant_of(c.after)) + "</th><th></th></tr>\n";
    for (const ComparisonRow& r : comparison_rows(c))
        html += "<tr><td>" + html_escaped(r.subject) + "</td><td>" + html_escaped(r.figure) +
                "</td><td>" + html_escaped(r.before) + "</td><td>" + html_escaped(r.after) +
                "</td><td><b>" + html_escaped(std::string(mark_name(r.mark))) + "</b></td></tr>\n";
    html += "</table>\n";
    const RunReport* sides[] = {&c.before, &c.after};
    for (std::size_t i = 0; i < 2; ++i) {
        const std::string& v = variant_of(*sides[i]);
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
