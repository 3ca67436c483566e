// Names of violation kinds, as reports print them and variant tables declare them; a
// violation's headline; and the call sites (file, line, function) that steps and violations name.
#include "violation.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "enum_names.hpp"

namespace lockcheck::detail {

namespace {
constexpr std::array<std::string_view, 23> kKindNames = {
    "check-failed", "invariant",       "final-check",       "deadlock",  "hang",
    "lock-misuse",  "sleep-in-atomic", "lock-held-at-exit", "exception", "stack-overflow",
    "no-progress",  "lock-order",      "list-corruption",   "preempt",   "data-race",
    "refcount",     "use-after-free",  "invalid-free",      "crash",     "exit",
    "livelock",     "wait-bound",      "irq-flags",
};
static_assert(kKindNames.size() == static_cast<std::size_t>(ViolationKind::irq_flags) + 1,
              "a name for every kind");
} // namespace

std::string_view kind_name(ViolationKind kind) {
    return kKindNames[static_cast<int>(kind)];
}

bool survivable(ViolationKind kind) {
    return kind == ViolationKind::data_race || kind == ViolationKind::lock_order ||
           kind == ViolationKind::wait_bound;
}

bool parse_kind(std::string_view name, ViolationKind& kind) {
    return parse_enum_name(kKindNames, name, kind);
}

std::string Violation::objects_line(const std::vector<std::string>& objects) {
    std::string line =
        objects.size() == 1 ? "field used after the free:" : "fields used after the free:";
    for (const std::string& o : objects)
        line += " " + o + (&o == &objects.back() ? "" : ",");
    return line;
}

void Violation::merge_objects(const Violation& again) {
    bool added = false;
    for (const std::string& o : again.objects) {
        const auto at = std::lower_bound(objects.begin(), objects.end(), o);
        if (at != objects.end() && *at == o) continue;
        objects.insert(at, o);
        added = true;
    }
    if (added && !details.empty()) details.front() = objects_line(objects);
}

std::string Violation::headline() const {
    return location.known() ? message + " (" + location.text() + ")" : message;
}

std::string CallSite::text() const {
    return known() ? file + ":" + std::to_string(line) + " " + function : std::string();
}

CallSite call_site(const std::source_location& location) {
    const std::string_view path = location.file_name();
    const std::size_t slash = path.rfind('/');
    return CallSite{std::string(slash == std::string_view::npos ? path : path.substr(slash + 1)),
                    location.line(), bare_function_name(location.function_name())};
}

namespace {
// "operator", not the start of a longer identifier ("operator_count").
bool is_operator(std::string_view text) {
    constexpr std::string_view kOperator = "operator";
    if (!text.starts_with(kOperator) || text.size() == kOperator.size()) return false;
    const char next = text[kOperator.size()];
    return !(std::isalnum(static_cast<unsigned char>(next)) || next == '_');
}
} // namespace

std::string bare_function_name(std::string_view pretty) {
    // What a template was instantiated with: GCC's " [with T = int]", clang's " [T = int]".
    if (const std::size_t with = pretty.find(" ["); with != std::string_view::npos)
        pretty = pretty.substr(0, with);
    // One pass over the text, cutting it into components at "::" and at spaces (after the
    // return type, before qualifiers) outside brackets. The component before a parameter list
    // is a function; a lambda written in it is GCC's component "<lambda(...)>", or clang's
    // "(anonymous class)" (clang 17 on: "(lambda at FILE:LINE:COLUMN)") followed by the
    // component of its operator().
    std::string name;
    std::size_t start = 0;     // where the component being read begins
    int depth = 0;             // inside (), <>, [] or {}
    bool lambda_class = false; // the component read last was clang's lambda
    bool lambda_call = false;  // the one being read is that lambda's operator()
    for (std::size_t i = 0; i < pretty.size(); ++i) {
        if (depth == 0 && i == start) {
            const std::string_view rest = pretty.substr(i);
            lambda_call = lambda_class;
            lambda_class = rest.starts_with("(anonymous class)") || rest.starts_with("(lambda at ");
            if (lambda_class || rest.starts_with("<lambda")) {
                name += name.empty() ? "<lambda>" : "::<lambda>";
            } else if (is_operator(rest)) {
                // Its symbol may hold brackets or a space: skip to its parameter list.
                const std::size_t open = rest.starts_with("operator()")
                                             ? i + std::string_view("operator()").size()
                                             : pretty.find('(', i);
                if (open == std::string_view::npos) break;
                i = open;
            }
        }
        const char c = pretty[i];
        if (c == '(' && depth == 0 && i > start && !lambda_call) {
            std::string_view function = pretty.substr(start, i - start);
            // An explicit specialization names its arguments: "f<int>(int)".
            if (!is_operator(function) && function.back() == '>')
                function = function.substr(0, function.find('<'));
            name = function;
        }
        if (c == '(' || c == '<' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == '>' || c == ']' || c == '}') {
            --depth;
        } else if (depth == 0 && c == ' ') {
            start = i + 1;
        } else if (depth == 0 && c == ':' && i + 1 < pretty.size() && pretty[i + 1] == ':') {
            start = ++i + 1;
        }
    }
    return name;
}

} // namespace lockcheck::detail
