// Turning a saved report back into a replay request.
#include "replay_file.hpp"

#include <fstream>
#include <ostream>
#include <sstream>
#include <string>

#include "checker/model_registry.hpp"
#include "scheduler/one_line.hpp"

namespace lockcheck::detail::cli {

bool request_of(const RunReport& report, unsigned index, CheckRequest& r, std::string& error) {
    r.protocol = find_registered_model(report.summary.model);
    if (!r.protocol) {
        error = "no model '" + report.summary.model + "'";
        return false;
    }
    const auto variant = r.protocol->find_variant(report.summary.variant);
    if (!variant) {
        error = r.protocol->name + " has no variant '" + report.summary.variant + "'";
        return false;
    }
    r.variant = *variant;
    r.values = r.protocol->default_values();
    for (const auto& [name, value] : report.summary.parameters) {
        std::size_t k = 0;
        while (k < r.protocol->parameters.size() && r.protocol->parameters[k].name != name)
            ++k;
        if (k == r.protocol->parameters.size()) {
            error = r.protocol->name + " has no parameter --" + name;
            return false;
        }
        const Parameter& p = r.protocol->parameters[k];
        if (value < p.min || value > p.max) {
            error = "--" + name + " " + std::to_string(value) + " is outside " +
                    std::to_string(p.min) + ".." + std::to_string(p.max);
            return false;
        }
        r.values[k] = value;
    }
    if (index == 0 || index > report.counterexamples.size()) {
        error = "there is no counterexample " + std::to_string(index) + " (the report has " +
                std::to_string(report.counterexamples.size()) + ")";
        return false;
    }
    for (const auto& [name, value] :
         {std::pair{"depth", report.depth}, {"max_steps", report.max_steps}})
        if (value == 0 || value > kMaxDepth) {
            error = std::string(name) + " " + std::to_string(value) + " is outside 1.." +
                    std::to_string(kMaxDepth);
            return false;
        }
    r.options.depth = report.depth;
    r.options.max_steps = report.max_steps;
    r.options.spin_bound = report.spin_bound;
    // The replay checks what the run checked: a property switched off there may have let it
    // go on past where a check would have ended it.
    r.options.lockdep = report.summary.lockdep;
    r.options.races = report.summary.races;
    r.options.memory_model = report.summary.memory_model;
    for (const PropertyStats& p : report.summary.stats.properties)
        if (!p.checked && p.kind != PropertyKind::wait_bound) r.options.unchecked.push_back(p.name);
    // And its --max-wait bounds (a model's own max_wait() comes with the model).
    for (const WaitBound& b : report.summary.stats.wait_bounds)
        if (!b.declared) r.options.wait_bounds.push_back(b);
    r.replay = report.counterexamples[index - 1].schedule;
    return true;
}

bool replay_request(const std::string& text, unsigned index, CheckRequest& request,
                    std::string& error) {
    RunReport report;
    if (from_json(text, report, error) && request_of(report, index, request, error)) return true;
    // The report's own strings (a model's name, ...) are quoted in the reason.
    error = one_line(error);
    return false;
}

int run_replay_file(const std::string& path, unsigned index, const CheckRequest& shown,
                    std::ostream& out, std::ostream& err) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        err << "lockcheck: replay: cannot read " << one_line(path) << "\n";
        return kExitUsage;
    }
    std::ostringstream text;
    text << in.rdbuf();
    std::string error;
    CheckRequest r;
    if (!replay_request(text.str(), index, r, error)) {
        err << "lockcheck: replay: " << one_line(path) << ": " << error << "\n";
        return kExitUsage;
    }
    // A report whose bounds cut its own counterexample short says what no search found.
    if (const auto cut = bounds_cut_schedule(setup_of(r), *r.replay, r.options)) {
        err << "lockcheck: replay: " << one_line(path) << ": its "
            << (cut->by_steps ? "max_steps " + std::to_string(r.options.max_steps)
                              : "depth " + std::to_string(r.options.depth))
            << " cuts counterexample " << index << " at step " << cut->steps
            << ", before its schedule of " << r.replay->size() << " entries ends\n";
        return kExitUsage;
    }
    r.colour = shown.colour;
    r.locations = shown.locations;
    r.columns = shown.columns;
    r.timing = shown.timing;
    r.program = shown.program;
    r.command = shown.command;
    r.files = shown.files;
    return run_check(r, out, err);
}

} // namespace lockcheck::detail::cli
