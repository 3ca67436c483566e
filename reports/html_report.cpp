// HTML around the text reports and the Graphviz drawings; it formats nothing of its own.
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
                               "h2.violation{color:#b00}";

} // namespace

std::string to_html(const RunReport& report, const std::vector<std::string>& drawings) {
    const Summary& s = report.summary;
    const std::string title = "lockcheck " + s.model + " --variant " + s.variant;
    std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<title>" +
                       escaped(title) + "</title>\n<style>" + kStyle +
                       "</style>\n</head>\n<body>\n<h1>" + escaped(title) + "</h1>\n<p>" +
                       escaped(verdict(s)) + "</p>\n<h2>Summary</h2>\n<pre>" +
                       escaped(format_summary(s)) + "</pre>\n";
    for (std::size_t i = 0; i < report.counterexamples.size(); ++i) {
        const Counterexample& c = report.counterexamples[i];
        html += "<h2 class=\"violation\">Counterexample " + std::to_string(i + 1) + ": " +
                escaped(std::string(kind_name(c.violation.kind))) + ", " +
                escaped(c.violation.property) + "</h2>\n";
        if (i < drawings.size())
            html += "<div class=\"drawing\">\n" + svg_element(drawings[i]) + "</div>\n";
        html += "<pre>" + escaped(format_violation(c.violation) + format_trace(c.trace)) +
                "replay: " + escaped(c.replay_command) + "\n</pre>\n";
    }
    return html + "</body>\n</html>\n";
}

} // namespace lockcheck
