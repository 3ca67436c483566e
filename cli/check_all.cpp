// check-all: one search per variant, a table of what each declared and got, the minimized
// counterexample of every variant that differs, and the report files CI reads.
#include "check_all.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <system_error>
#include <thread>

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
    std::string search_flags; // how to run the same search alone: "", " --strategy dfs ..."
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
        {"model", "variant", "sizes", "expected", "got", "judged", "search", "executions", "time"}};
    for (const Row& row : rows) {
        const Summary& s = row.report.summary;
        auto [expected, got] = expected_and_got(row.report);
        cells.push_back({s.model, s.variant, sizes_text(s.parameters), std::move(expected),
                         std::move(got), std::string(agreement_name(s.judgement->agreement)),
                         s.strategy, std::to_string(s.stats.executions),
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

// Searches `requests` in order, `jobs` threads' worth: most variants' searches are too short
// to gain from threads of their own (starting them costs more than they share), so up to `jobs`
// variants run side by side, each on jobs / that many threads; each takes the next variant not
// yet started, so the rows are always the first variants, in order. A signal stops the ones
// running (each in the table, incomplete) and each side starts no more; so does a model whose
// set-up throws, which is rethrown here (the first in order, if several did).
std::vector<Row> check_side_by_side(std::vector<CheckRequest>& requests, unsigned jobs,
                                    const StopRequest* stop, ProgressLine* progress) {
    const unsigned lanes =
        static_cast<unsigned>(std::clamp<std::size_t>(requests.size(), 1, std::max(jobs, 1u)));
    for (CheckRequest& r : requests)
        r.options.jobs = std::max(1u, jobs / lanes);
    std::vector<std::optional<Row>> done(requests.size());
    std::vector<std::exception_ptr> errors(requests.size());
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    const auto lane = [&](ProgressLine* line) {
        do {
            const std::size_t i = next++;
            if (i >= requests.size()) return;
            CheckRequest& r = requests[i];
            r.progress = line;
            if (line)
                line->context.label =
                    r.protocol->name + " --variant " + r.protocol->variants[r.variant].name + ": ";
            try {
                std::ostringstream printed;
                Row row{search(r, printed), printed.str(), search_flags(r.search)};
                // What checking this variant alone exits with.
                row.report.exit_code = exit_code_of(row.report.summary);
                done[i] = std::move(row);
            } catch (...) {
                errors[i] = std::current_exception();
                failed = true;
            }
        } while (!failed && !(stop && *stop));
    };
    std::vector<std::unique_ptr<ProgressLine>> lines;
    std::vector<std::thread> threads;
    try {
        for (unsigned l = 1; l < lanes; ++l) {
            lines.push_back(progress ? progress->beside() : nullptr);
            threads.emplace_back(lane, lines.back().get());
        }
    } catch (const std::system_error&) {
        // A side that cannot start (no memory for its stack) leaves its variants to the others.
    }
    lane(progress);
    for (std::thread& t : threads)
        t.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
    std::vector<Row> rows;
    for (std::optional<Row>& row : done)
        if (row) rows.push_back(std::move(*row));
    return rows;
}

} // namespace

SearchOptions check_all_search(const Protocol& model, MemoryModel memory_model) {
    SearchOptions search;
    search.search = kDefaultSearch;
    // The stateful searches are checked against DFS under sc; under lkmm, DPOR.
    if (model.check_stores_states && memory_model == MemoryModel::sc) {
        search.search = Search::dfs;
        search.state_cache = true;
    }
    return search;
}

std::string search_flags(const SearchOptions& search) {
    if (search.state_cache) return " --strategy dfs --state-cache";
    return search.search == kDefaultSearch
               ? ""
               : std::string(" --strategy ") + search_name(search.search);
}

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
    // Every variant's request first: one the options do not fit is refused before any search.
    std::vector<CheckRequest> requests;
    for (const Protocol* p : models)
        for (std::size_t v = 0; v < p->variants.size(); ++v) {
            CheckRequest r;
            r.protocol = p;
            r.variant = v;
            r.values = p->default_values();
            for (const auto& [name, value] : request.sizes)
                if (const std::optional<std::size_t> i = size_index(*p, name)) r.values[*i] = value;
            r.search = check_all_search(*p, request.memory_model);
            r.options.depth = p->depth_for(v);
            if (std::string error; !choose_wait_search(r, false, error)) {
                err << "lockcheck: " << error << "\n";
                return kExitUsage;
            }
            r.options.time_limit = request.time_limit;
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
            requests.push_back(std::move(r));
        }
    std::vector<Row> rows = check_side_by_side(requests, request.jobs, request.stop, progress);
    const auto stopped = [&request] { return request.stop && *request.stop; };

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
            << row.search_flags << sizes_given(request.sizes, s)
            << (request.memory_model == MemoryModel::sc
                    ? ""
                    : std::string(" --memory-model ") + memory_model_name(request.memory_model))
            << "\n";
    }
    out << "\ncheck-all: " << rows.size() << " variants, " << rows.size() - differs - incomplete
        << " as declared, " << differs << " differ, " << incomplete << " incomplete\n";
    if (stopped())
        out << "check-all: " << signal_name(*request.stop) << " stopped it after " << rows.size()
            << " of " << requests.size() << " variants; the rest were not checked\n";

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
