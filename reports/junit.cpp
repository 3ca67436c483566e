// Writing JUnit XML: the elements and attributes CI reporters read, and escaping that keeps
// the document well-formed whatever bytes a model's names and messages hold.
#include "junit.hpp"

#include <cstdio>
#include <optional>
#include <string_view>

namespace lockcheck::detail {

namespace {

// The length of the character at s[i] if it is UTF-8 that XML 1.0 can carry, else 0: no
// control characters but tab and line breaks, no overlong forms, surrogates, U+FFFE or U+FFFF.
std::size_t xml_char_length(std::string_view s, std::size_t i) {
    const auto byte = [&s](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b = byte(i);
    if (b < 0x80) return b >= 0x20 || b == '\t' || b == '\n' || b == '\r' ? 1 : 0;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF; // the range of the second byte
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        if (b == 0xE0) lo = 0xA0;
        if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        if (b == 0xF0) lo = 0x90;
        if (b == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
    if (b == 0xEF && byte(i + 1) == 0xBF && byte(i + 2) >= 0xBE) return 0;
    return n;
}

// An attribute value also loses its tabs and line breaks to attribute-value normalization
// unless they are written as character references.
enum class Place { text, attribute };

// What markup must write instead of the character `c` in `place`, or nullptr: `c` as it is.
const char* reference(char c, Place place) {
    switch (c) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\'':
        return "&apos;";
    case '\r':
        return "&#13;"; // a parser would read a raw one as '\n'
    case '\n':
        return place == Place::attribute ? "&#10;" : nullptr;
    case '\t':
        return place == Place::attribute ? "&#9;" : nullptr;
    default:
        return nullptr;
    }
}

// Bytes XML cannot carry at all, not even as references, are written as "\xNN".
std::string escape(std::string_view s, Place place) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = xml_char_length(s, i);
        if (n == 0) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(s[i]));
            out += hex;
            ++i;
        } else {
            const char* ref = n == 1 ? reference(s[i], place) : nullptr;
            if (ref)
                out += ref;
            else
                out.append(s, i, n);
            i += n;
        }
    }
    return out;
}

std::string attribute(const char* name, std::string_view value) {
    return std::string(" ") + name + "=\"" + escape(value, Place::attribute) + "\"";
}

std::string seconds(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", s);
    return text;
}

std::optional<Agreement> agreement(const RunReport& r, JUnitJudging judging) {
    if (judging == JUnitJudging::any_violation_fails || !r.summary.judgement) return std::nullopt;
    return r.summary.judgement->agreement;
}

bool failed(const RunReport& r, JUnitJudging judging) {
    const auto a = agreement(r, judging);
    return a ? *a == Agreement::differs : r.summary.violations > 0;
}

// A run that found nothing but did not look everywhere (a limit stopped it, the depth bound
// cut executions, it sampled): neither a pass nor a failure, however it is judged (judged
// against its declaration, it is exactly the run whose agreement is incomplete).
bool skipped(const RunReport& r) {
    return r.summary.violations == 0 && !incompleteness(r.summary).empty();
}

// "expected verified: got violation (deadlock)\n\n" when judged against the declaration.
std::string expected_text(const RunReport& r, JUnitJudging judging) {
    return agreement(r, judging) ? "expected " + r.summary.judgement->text + "\n\n" : "";
}

std::string failure(const std::string& message, const std::string& type, const std::string& text) {
    return "      <failure" + attribute("message", message) + attribute("type", type) + ">" +
           escape(text, Place::text) + "</failure>\n";
}

// A <failure> per counterexample, its message the violation's headline and its type the kind
// (what CI lists show), its text the violation as the command line prints it (violation,
// trace, replay command). Without one (the run kept none) the verdict says what failed.
std::string failure_elements(const RunReport& r, JUnitJudging judging) {
    const std::string expected = expected_text(r, judging);
    if (r.counterexamples.empty()) return failure(verdict(r.summary), "violation", expected);
    std::string out;
    for (const Counterexample& c : r.counterexamples)
        out += failure(c.violation.headline(), std::string(kind_name(c.violation.kind)),
                       expected + format_violation(c.violation) + format_trace(c.trace) +
                           "replay: " + c.replay_command + "\n\n");
    return out;
}

// "atomic renames=1 fsyncs=1": runs of one variant at other sizes are other test cases.
std::string case_name(const Summary& s) {
    const std::string sizes = sizes_text(s.parameters);
    return sizes.empty() ? s.variant : s.variant + " " + sizes;
}

std::string testcase(const RunReport& r, JUnitJudging judging) {
    const std::string outcome =
        failed(r, judging) ? failure_elements(r, judging)
        : skipped(r)       ? "      <skipped" +
                           attribute("message", "incomplete: " + incompleteness(r.summary)) + "/>\n"
                     : "";
    return "    <testcase" + attribute("classname", r.summary.model) +
           attribute("name", case_name(r.summary)) +
           attribute("time", seconds(r.summary.stats.elapsed_seconds)) + ">\n" + outcome +
           "      <system-out>" + escape(format_summary(r.summary), Place::text) +
           "</system-out>\n    </testcase>\n";
}

} // namespace

std::string to_junit(const std::vector<RunReport>& runs, JUnitJudging judging) {
    std::size_t failures = 0, skips = 0;
    double time = 0;
    std::string cases;
    for (const RunReport& r : runs) {
        failures += failed(r, judging);
        skips += skipped(r);
        time += r.summary.stats.elapsed_seconds;
        cases += testcase(r, judging);
    }
    const std::string totals = attribute("tests", std::to_string(runs.size())) +
                               attribute("failures", std::to_string(failures)) +
                               attribute("errors", "0") + attribute("time", seconds(time));
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites" +
           attribute("name", "lockcheck") + totals + ">\n  <testsuite" +
           attribute("name", "lockcheck") + totals + attribute("skipped", std::to_string(skips)) +
           ">\n" + cases + "  </testsuite>\n</testsuites>\n";
}

} // namespace lockcheck::detail
