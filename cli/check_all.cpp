// check-all: one search per variant, a table of what each declared and got, the minimized
// counterexample of every variant that differs, and the report files CI reads.
#include "check_all.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <ostream>
#include <sstream>

#include "check_command.hpp"
#include "checker/model_registry.hpp"
#include "did_you_mean.hpp"
#include "report_files.hpp"

namespace lockcheck::detail::cli {

namespace {

// One variant's search, judged, and what it printed (shown only when it differs).
struct Row {
    RunReport report;
    std::string printed;
};

// "violation (invariant)"; `named`: with the property, "violation (invariant \"no torn
// log\")", where the kind's name is not all of it.
std::string violation_text(ViolationKind kind, const std::string& property, bool named) {
    std::string text(kind_name(kind));
    if (named && property != text) text += " \"" + property + "\"";
    return "violation (" + text + ")";
}

std::string expected_text(const Expectation& e, bool named) {
    if (!e.expects_violation) return "verified";
    return violation_text(e.kind, e.property, named);
}

// What the run got, in the words of the expected column.
std::string got_text(const RunReport& report, bool named) {
    const Summary& s = report.summary;
    if (!report.counterexamples.empty()) {
        const Violation& v = report.counterexamples.front().violation;
        return violation_text(v.kind, v.property, named);
    }
    if (!s.stats.stopped_by.empty()) return "incomplete (" + s.stats.stopped_by + ")";
    if (s.stats.cut) return "none, " + std::to_string(s.stats.cut) + " cut by the depth";
    // Whatever else kept the search from looking everywhere (a table that filled).
    if (const std::string why = incompleteness(s); !why.empty()) return "none, but " + why;
    return "verified";
}

// The expected and got columns of a row: the kinds, and on a row that is not as declared
// where they read the same, the properties too, so that the row shows what differs.
std::pair<std::string, std::string> expected_and_got(const RunReport& report) {
    const Judgement& j = *report.summary.judgement;
    std::pair<std::string, std::string> texts = {expected_text(j.expected, false),
                                                 got_text(report, false)};
    if (j.agreement != Agreement::as_declared && texts.first == texts.second)
        texts = {expected_text(j.expected, true), got_text(report, true)};
    return texts;
}

std::string seconds(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f s", s);
    return text;
}

std::string pad(const std::string& s, std::size_t width) {
    return s + std::string(width > s.size() ? width - s.size() : 0, ' ');
}

// " --renames 2 --fsyncs 2": the sizes given that the run's model has, as its command takes them.
std::string sizes_given(const std::vector<std::pair<std::string, int>>& sizes, const Summary& s) {
    std::string text;
    for (const auto& [name, value] : s.parameters)
        if (std::any_of(sizes.begin(), sizes.end(),
                        [&](const auto& given) { return given.first == name; }))
            text += " --" + name + " " + std::to_string(value);
    return text;
}

// The table: a header and a row per variant, each column as wide as its longest entry.
void print_table(const std::vector<Row>& rows, std::ostream& out) {
    std::vector<std::vector<std::string>> cells = {
        {"model", "variant", "sizes", "expected", "got", "judged", "executions", "time"}};
    for (const Row& row : rows) {
        const Summary& s = row.report.summary;
        auto [expected, got] = expected_and_got(row.report);
        cells.push_back({s.model, s.variant, sizes_text(s.parameters), std::move(expected),
                         std::move(got), std::string(agreement_name(s.judgement->agreement)),
                         std::to_string(s.stats.executions),
                         s.timed ? seconds(s.stats.elapsed_seconds) : "-"});
    }
    std::vector<std::size_t> widths(cells.front().size(), 0);
    for (const auto& line : cells)
        for (std::size_t c = 0; c < line.size(); ++c)
            widths[c] = std::max(widths[c], line[c].size() + 2);
    for (const auto& line : cells) {
        std::string text;
        for (std::size_t c = 0; c < line.size(); ++c)
            text += c + 1 < line.size() ? pad(line[c], widths[c]) : line[c];
        out << text << "\n";
    }
}

// The index of `model`'s size `name`, if it has one.
std::optional<std::size_t> size_index(const Protocol& model, const std::string& name) {
    for (std::size_t i = 0; i < model.parameters.size(); ++i)
        if (model.parameters[i].name == name) return i;
    return std::nullopt;
}

// Whether every size given is one of some model's, within the range of each model that has
// it (refused as `lockcheck MODEL --SIZE N` refuses it); false with a one-line reason.
bool sizes_fit(const std::vector<std::pair<std::string, int>>& sizes,
               const std::vector<const Protocol*>& models, std::string& error) {
    for (const auto& [name, value] : sizes) {
        bool had = false;
        for (const Protocol* p : models) {
            const std::optional<std::size_t> i = size_index(*p, name);
            if (!i) continue;
            had = true;
            const Parameter& size = p->parameters[*i];
            if (value < size.min || value > size.max) {
                error = "--" + name + ": Value " + std::to_string(value) + " not in range " +
                        std::to_string(size.min) + " to " + std::to_string(size.max) + " (of " +
                        p->name + ")";
                return false;
            }
        }
        if (had) continue;
        // A size of a model not named: name its models; else the nearest size of those named.
        std::string owners;
        for (const Protocol& p : registered_models())
            if (size_index(p, name)) owners += (owners.empty() ? "" : ", ") + p.name;
        std::vector<std::string> theirs;
        for (const Protocol* p : models)
            for (const Parameter& size : p->parameters)
                theirs.push_back("--" + size.name);
        error = "check-all: no model checked has a size --" + name +
                (owners.empty() ? did_you_mean("--" + name, theirs)
                                : " (it is a size of " + owners + ")");
        return false;
    }
    return true;
}

} // namespace

bool select_models(const CheckAllRequest& request, std::vector<const Protocol*>& models,
                   std::string& error) {
    for (const std::string& name : request.models) {
        const Protocol* p = find_registered_model(name);
        if (!p) {
            error = "check-all: unknown model '" + name + "'";
            return false;
        }
        models.push_back(p);
    }
    if (request.models.empty())
        for (const Protocol& p : registered_models())
            models.push_back(&p);
    return sizes_fit(request.sizes, models, error);
}

int run_check_all(const CheckAllRequest& request, const std::vector<const Protocol*>& models,
                  std::ostream& out, std::ostream& err, ProgressLine* progress) {
    // A file that cannot be written is found before the searches, not after them.
    if (std::string error; !check_check_all_files(request.json, request.junit, error)) {
        err << "lockcheck: " << error << "\n";
        return kExitUsage;
    }
    std::vector<std::pair<const Protocol*, std::size_t>> variants;
    for (const Protocol* p : models)
        for (std::size_t v = 0; v < p->variants.size(); ++v)
            variants.emplace_back(p, v);
    const auto stopped = [&request] { return request.stop && *request.stop; };
    std::vector<Row> rows;
    for (const auto& [p, v] : variants) {
        CheckRequest r;
        r.protocol = p;
        r.variant = v;
        r.values = p->default_values();
        for (const auto& [name, value] : request.sizes)
            if (const std::optional<std::size_t> i = size_index(*p, name)) r.values[*i] = value;
        r.search.search = kDefaultSearch;
        r.options.depth = p->depth_for(v);
        if (std::string error; !choose_wait_search(r, false, error)) {
            err << "lockcheck: " << error << "\n";
            return kExitUsage;
        }
        r.options.time_limit = request.time_limit;
        r.options.jobs = request.jobs;
        r.options.memory_model = request.memory_model;
        r.options.unwind_tasks = request.unwind_tasks;
        r.options.checkpoints = request.checkpoints;
        r.timing = request.timing;
        // Only the counterexamples shown, of a variant not as declared, are minimized.
        r.minimize = request.minimize;
        r.minimize_as_declared = false;
        r.minimize_time = request.minimize_time;
        r.colour = request.colour;
        r.program = request.program;
        r.command = request.command;
        r.options.stop = request.stop;
        r.progress = progress;
        if (progress)
            progress->context.label = p->name + " --variant " + p->variants[v].name + ": ";
        std::ostringstream printed;
        rows.push_back(Row{search(r, printed), printed.str()});
        // What checking this variant alone exits with.
        rows.back().report.exit_code = exit_code_of(rows.back().report.summary);
        // The variant running when the signal came is in the table, incomplete.
        if (stopped()) break;
    }

    print_table(rows, out);
    std::size_t differs = 0, incomplete = 0;
    for (const Row& row : rows) {
        const Summary& s = row.report.summary;
        const Agreement a = s.judgement->agreement;
        if (a == Agreement::as_declared) continue;
        ++(a == Agreement::differs ? differs : incomplete);
        out << "\n== " << s.model << " --variant " << s.variant << ": expected "
            << s.judgement->text << "\n"
            << row.printed;
        if (a == Agreement::differs && !s.violations)
            out << "(a complete search of " << s.stats.executions
                << " executions found no violation)\n";
        for (const CounterexampleSize& size : s.counterexamples)
            out << "reported: " << size_text(size) << "\n";
        out << "check it alone: " << request.program << " " << s.model << " --variant " << s.variant
            << sizes_given(request.sizes, s)
            << (request.memory_model == MemoryModel::sc
                    ? ""
                    : std::string(" --memory-model ") + memory_model_name(request.memory_model))
            << "\n";
    }
    out << "\ncheck-all: " << rows.size() << " variants, " << rows.size() - differs - incomplete
        << " as declared, " << differs << " differ, " << incomplete << " incomplete\n";
    if (stopped())
        out << "check-all: " << signal_name(*request.stop) << " stopped it after " << rows.size()
            << " of " << variants.size() << " variants; the rest were not checked\n";

    CheckAllReport report{request.command,
                          stopped()    ? interrupted_exit_code(*request.stop)
                          : differs    ? kExitViolation
                          : incomplete ? kExitIncomplete
                                       : kExitOk,
                          {}};
    for (Row& row : rows)
        report.runs.push_back(std::move(row.report));
    std::string error;
    if (!write_check_all_files(request.json, request.junit, report, error)) {
        err << "lockcheck: " << error << "\n";
        return kExitUsage;
    }
    return report.exit_code;
}

} // namespace lockcheck::detail::cli
