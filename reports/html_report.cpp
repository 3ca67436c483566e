// HTML around the text reports and the Graphviz drawings; it formats nothing of its own but
// the table of properties, whose names it gives whole.
#include "html_report.hpp"

namespace lockcheck {

namespace {

std::string escaped(const std::string& text) {
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

// The <svg> element of an SVG document, without the XML prolog and doctype before it.
std::string svg_element(const std::string& document) {
    const auto at = document.find("<svg");
    return at == std::string::npos ? "" : document.substr(at);
}

constexpr const char* kStyle = "body{font-family:sans-serif;margin:2em}"
                               "pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:90%}"
                               ".drawing{overflow-x:auto;border:1px solid #ddd;margin:1em 0}"
                               "h2.violation{color:#b00}"
                               "table{border-collapse:collapse}"
                               "td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left}"
                               ".differs,.note{color:#b00}.incomplete{color:#a60}";

// "--renames 1 --fsyncs 1": the sizes as the command line takes them.
std::string size_options(const Summary& s) {
    std::string text;
    for (const auto& [name, value] : s.parameters)
        text += " --" + name + " " + std::to_string(value);
    return text;
}

// Every property with its whole name and how often the search evaluated it.
std::string properties_table(const std::vector<PropertyStats>& properties) {
    std::string html = "<h2>Properties</h2>\n<table>\n<tr><th>kind</th><th>property</th>"
                       "<th>evaluations</th><th>note</th></tr>\n";
    for (const PropertyStats& p : properties)
        html += "<tr><td>" + escaped(property_kind_text(p.kind)) + "</td><td>" + escaped(p.name) +
                "</td><td>" + std::to_string(p.evaluations) + "</td><td class=\"note\">" +
                escaped(property_note(p)) + "</td></tr>\n";
    return html + "</table>\n";
}

} // namespace

std::string to_html(const RunReport& report, const std::vector<std::string>& drawings,
                    bool full_trace) {
    const Summary& s = report.summary;
    const std::string title = "lockcheck " + s.model + " --variant " + s.variant + size_options(s);
    std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<title>" +
                       escaped(title) + "</title>\n<style>" + kStyle +
                       "</style>\n</head>\n<body>\n<h1>" + escaped(title) + "</h1>\n<p>" +
                       escaped(verdict(s)) + "</p>\n";
    if (s.judgement)
        html += "<p class=\"" + std::string(agreement_name(s.judgement->agreement)) +
                "\">expected " + escaped(s.judgement->text) + "</p>\n";
    html += "<h2>Summary</h2>\n<pre>" + escaped(format_summary(s)) + "</pre>\n";
    if (!s.stats.properties.empty()) html += properties_table(s.stats.properties);
    for (std::size_t i = 0; i < report.counterexamples.size(); ++i) {
        const Counterexample& c = report.counterexamples[i];
        html += "<h2 class=\"violation\">Counterexample " + std::to_string(i + 1) + ": " +
                escaped(std::string(kind_name(c.violation.kind))) + ", " +
                escaped(c.violation.property) + "</h2>\n";
        if (i < drawings.size())
            html += "<div class=\"drawing\">\n" + svg_element(drawings[i]) + "</div>\n";
        // A report is read beside the model: every step names the model's line that made it.
        html += "<pre>" +
                escaped(format_violation(c.violation) +
                        format_trace(c.trace, /*colour=*/false, /*locations=*/true, full_trace)) +
                "replay: " + escaped(c.replay_command) + "\n</pre>\n";
    }
    return html + "</body>\n</html>\n";
}

} // namespace lockcheck
