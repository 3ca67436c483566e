// HTML around the text reports and the Graphviz drawings; it formats nothing of its own but
// the table of what was run, the counterexamples' headings and the table of properties, whose
// names it gives whole.
#include "html_report.hpp"

namespace lockcheck::detail {

std::string html_escaped(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

namespace {

// A trace coloured for a terminal (format_trace's ANSI colours) as HTML: each colour opens a
// span of class "sgrN", and a reset closes them all, so that the page marks the rows a terminal
// does (the violating row red, a preemption's star yellow).
std::string coloured(const std::string& text) {
    std::string out;
    std::size_t open = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const std::size_t end = text.compare(i, 2, "\033[") == 0 ? text.find('m', i) : i;
        if (end == i || end == std::string::npos) {
            out += html_escaped(std::string(1, text[i]));
            continue;
        }
        std::string code = text.substr(i + 2, end - i - 2);
        i = end;
        if (code.empty() || code == "0") {
            for (; open; --open)
                out += "</span>";
            continue;
        }
        std::string classes = "sgr";
        for (char c : code)
            classes += c == ';' ? std::string(" sgr") : std::string(1, c);
        out += "<span class=\"" + html_escaped(classes) + "\">";
        ++open;
    }
    for (; open; --open)
        out += "</span>";
    return out;
}

// The drawing's box: the <svg> element of an SVG document, without the XML prolog and doctype
// before it; for one that could not be made, a line that says so (the run's warning says why).
std::string drawing_html(const std::string& document) {
    const auto at = document.find("<svg");
    if (document.empty() || at == std::string::npos)
        return "<p class=\"note\">This trace could not be drawn (see the run's warning).</p>\n";
    return "<div class=\"drawing\">\n" + document.substr(at) + "</div>\n";
}

// The columns of a trace that a window 1400 pixels wide shows whole: the page's <pre> is 12 px
// monospace (DejaVu Sans Mono and Liberation Mono advance 0.6 em, 7.2 px a column) within 2 em
// of body margin (32 px) and 1 em of padding (12 px) a side and a scroll bar (15 px), 1,297 px:
// 180 columns, less some for a wider font. A trace whose swim lanes are wider is shown as a list,
// so that every step's line in the model, and its function, is in view (issue 37: the location
// column was past the right edge).
constexpr std::size_t kPageColumns = 170;

constexpr const char* kStyle = "body{font-family:sans-serif;margin:2em}"
                               "pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}"
                               ".drawing{overflow-x:auto;border:1px solid #ddd;margin:1em 0}"
                               "h2.violation{color:#b00}"
                               "table{border-collapse:collapse}"
                               "td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left}"
                               ".differs,.note{color:#b00}.incomplete{color:#a60}"
                               "table.run th{background:#f6f6f6}"
                               ".sgr31{color:#b00;background:#fdd;font-weight:bold}"
                               ".sgr33{color:#a60;font-weight:bold}.sgr1{font-weight:bold}";

// "--renames 1 --fsyncs 1": the sizes as the command line takes them.
std::string size_options(const Summary& s) {
    std::string text;
    for (const auto& [name, value] : s.parameters)
        text += " --" + name + " " + std::to_string(value);
    return text;
}

// "violation (invariant): committed log never holds ...", "verified": what the variant
// declares (`lockcheck list`).
std::string declared_text(const Expectation& e) {
    if (!e.expects_violation) return "verified";
    const std::string kind(kind_name(e.kind));
    return "violation (" + kind + ")" +
           (e.property == kind || e.property.empty() ? "" : ": " + e.property);
}

// What was run and what it may claim: the exact command line, the model and its sizes, the
// declared verdict, the search and the verdict.
std::string run_table(const RunReport& report) {
    const Summary& s = report.summary;
    std::vector<std::pair<std::string, std::string>> rows;
    if (!report.command.empty()) rows.emplace_back("command", report.command);
    rows.emplace_back("model", s.model);
    rows.emplace_back("variant", s.variant);
    if (!s.parameters.empty()) rows.emplace_back("sizes", sizes_text(s.parameters));
    if (s.judgement) rows.emplace_back("declared", declared_text(s.judgement->expected));
    rows.emplace_back("strategy", s.strategy);
    rows.emplace_back("memory model",
                      memory_model_text(s.memory_model, s.stats.fully_ordered, s.stats.rounds));
    rows.emplace_back("bound", s.bound);
    rows.emplace_back("checks", std::string("lockdep ") + (s.lockdep ? "on" : "off") +
                                    ", data races " + (s.races ? "on" : "off") +
                                    wait_bounds_text(s.stats.wait_bounds, s.stats.wait_ratios));
    rows.emplace_back("verdict", verdict(s));
    rows.emplace_back("lockcheck", kLockcheckVersion);
    std::string html = "<table class=\"run\">\n";
    for (const auto& [key, value] : rows)
        html +=
            "<tr><th>" + key + "</th><td>" +
            (key == "command" ? "<code>" + html_escaped(value) + "</code>" : html_escaped(value)) +
            "</td></tr>\n";
    return html + "</table>\n";
}

// "Counterexample 2 of 3: hang: no task can run and nothing can wake push0 in
// schedule(parent.lock_wq)": the violation's headline, which names its kind, property, objects
// and tasks (and the model's line, if one call broke it), so that two of one kind read apart.
std::string counterexample_heading(const Violation& v, std::size_t index, std::size_t count) {
    std::string heading = "Counterexample " + std::to_string(index + 1);
    if (count > 1) heading += " of " + std::to_string(count);
    return heading + ": " + v.headline();
}

// Every property with its whole name and how often the search evaluated it.
std::string properties_table(const std::vector<PropertyStats>& properties) {
    std::string html = "<h2>Properties</h2>\n<table>\n<tr><th>kind</th><th>property</th>"
                       "<th>evaluations</th><th>note</th></tr>\n";
    for (const PropertyStats& p : properties)
        html += "<tr><td>" + html_escaped(property_kind_text(p.kind)) + "</td><td>" +
                html_escaped(p.name) + "</td><td>" +
                (p.checked ? std::to_string(p.evaluations) : "off") + "</td><td class=\"note\">" +
                (p.checked ? html_escaped(property_note(p)) : "") + "</td></tr>\n";
    return html + "</table>\n";
}

} // namespace

std::string to_html(const RunReport& report, const std::vector<std::string>& drawings,
                    bool full_trace, const std::string& wait_drawing) {
    const Summary& s = report.summary;
    const std::string title = "lockcheck " + s.model + " --variant " + s.variant + size_options(s);
    std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<title>" +
                       html_escaped(title) + "</title>\n<style>" + kStyle +
                       "</style>\n</head>\n<body>\n<h1>" + html_escaped(title) + "</h1>\n<p>" +
                       html_escaped(verdict(s)) + "</p>\n";
    html += run_table(report);
    if (s.judgement)
        html += "<p class=\"" + std::string(agreement_name(s.judgement->agreement)) +
                "\">expected " + html_escaped(s.judgement->text) + "</p>\n";
    html += "<h2>Summary</h2>\n<pre>" + html_escaped(format_summary(s)) + "</pre>\n";
    if (!s.stats.properties.empty()) html += properties_table(s.stats.properties);
    if (report.worst_wait) {
        const WorstWait& w = *report.worst_wait;
        html += "<h2>Worst wait of " + html_escaped(w.span.op) + ": " + html_escaped(w.span.task) +
                " waited " + std::to_string(w.span.waited) +
                (w.span.waited == 1 ? " step" : " steps") + "</h2>\n";
        html += drawing_html(wait_drawing);
        html += "<pre>" +
                coloured(format_trace(w.trace, /*colour=*/true, /*locations=*/true, full_trace,
                                      kPageColumns, &w.span)) +
                html_escaped(format_wait(w.trace, w.span)) +
                "replay: " + html_escaped(w.replay_command) + "\n</pre>\n";
    }
    for (std::size_t i = 0; i < report.counterexamples.size(); ++i) {
        const Counterexample& c = report.counterexamples[i];
        html +=
            "<h2 class=\"violation\">" +
            html_escaped(counterexample_heading(c.violation, i, report.counterexamples.size())) +
            "</h2>\n";
        if (i < drawings.size()) html += drawing_html(drawings[i]);
        // A report is read beside the model: every step names the model's line that made it.
        // The trace is coloured as on a terminal: its violating row is red.
        html += "<pre>" + html_escaped(format_violation(c.violation)) +
                coloured(format_trace(c.trace, /*colour=*/true, /*locations=*/true, full_trace,
                                      kPageColumns)) +
                "replay: " + html_escaped(c.replay_command) + "\n</pre>\n";
    }
    return html + "</body>\n</html>\n";
}

} // namespace lockcheck::detail
