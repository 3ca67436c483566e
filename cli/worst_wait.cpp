// The worst wait of a named operation, shown: the search counted it, a replay of the schedule
// it kept records which steps the operation waited and whom it waited for at each.
#include "worst_wait.hpp"

#include <algorithm>
#include <ostream>

#include "reports/text.hpp"

namespace lockcheck::detail::cli {

bool show_worst_wait(const CheckRequest& r, RunReport& report, std::ostream& out,
                     std::string& error) {
    const std::string& op = r.worst_wait;
    const OpWaits* found = report.summary.stats.find_op(op);
    if (!found) {
        error = unknown_operation("--worst-wait", op, r, report.summary.stats);
        return false;
    }
    ReplayResult rr = replay(setup_of(r), found->worst_schedule, r.options);
    const OpSpan* span = worst_span(rr.trace, op);
    if (!rr.ok || !span) {
        // The search counted it in this very schedule: only a model that is not deterministic
        // gets here.
        error = "--worst-wait: replaying the schedule of " + op +
                "'s worst wait did not finish it; the model is not deterministic";
        return false;
    }
    out << "worst wait of " << op << ": " << span->task << " waited " << span->waited
        << (span->waited == 1 ? " step" : " steps") << ", from step " << span->begun_after + 1
        << " to step " << span->ended_at << "\n"
        << format_trace(rr.trace, r.colour, r.locations, r.files.full_trace, r.columns, span)
        << format_wait(rr.trace, *span);
    // A reduction runs one order of independent steps, and a wait depends on every order.
    if (r.search.search == Search::dpor || r.search.search == Search::optimal_dpor)
        out << "note: " << search_name(r.search.search)
            << " explored one order of independent steps, so this is a lower bound on the "
               "worst wait (--strategy dfs tries every order)\n";
    const std::string command = replay_command(r, found->worst_schedule);
    out << "replay: " << command << "\n\n";
    const OpSpan shown = *span; // before the trace it lies in moves
    report.worst_wait = WorstWait{found->worst_schedule, std::move(rr.trace), shown, command};
    return true;
}

} // namespace lockcheck::detail::cli
