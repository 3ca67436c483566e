// `lockcheck check-all [MODEL...] [--SIZE N...]`: the command for CI. Every variant of every
// registered model (or of the models named) is checked at its default sizes, or those given,
// and depth with the default search, or stored states where the model asks for them, and its
// verdict judged against the one the variant declares. Returns the exit code:
// 0 only if every variant gave its declared verdict, 1 if one differs, 3 if none differs but
// some could not be judged (a limit stopped them, or a depth-cut search found nothing); a
// signal (SIGINT, SIGTERM) stops it after the variant running then, with 128 + its number.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "check_command.hpp"
#include "checker/protocol.hpp"
#include "progress_line.hpp"

namespace lockcheck::detail::cli {

struct CheckAllRequest {
    std::vector<std::string> models; // by name; empty: every registered model
    // --SIZE N, in the order of the models' declarations: each applies to every model checked
    // that has a size of that name (the others run at their defaults).
    std::vector<std::pair<std::string, int>> sizes;
    std::string junit;     // a JUnit file: a test case per variant
    std::string json;      // a JSON file: every variant's run report
    double time_limit = 0; // seconds, per variant (0: none)
    // The counterexamples of a variant that is not as declared are shown minimized (false:
    // --no-minimize), within minimize_time of its search (--minimize-time), as a check of that
    // variant alone minimizes them.
    bool minimize = true;
    MinimizeTime minimize_time;
    bool timing = true; // false: --no-timing, no times in any output
    unsigned jobs = 1;  // --jobs
    // --memory-model: each variant is judged by the verdict it declares under it.
    MemoryModel memory_model = MemoryModel::sc;
    bool unwind_tasks = false; // --unwind-tasks
    bool checkpoints = true;   // false: --no-checkpoints
    bool colour = false;
    std::string program = "lockcheck"; // the command's name, for replay lines
    const StopRequest* stop = nullptr; // set by a signal: stop after the variant running then
    std::string command;               // the whole command line, as the JSON records it
};

// The registered models `request` names; false with a one-line reason for a name unknown, a
// size that none of them has, or a size's value outside the range of a model that has it.
bool select_models(const CheckAllRequest& request, std::vector<const Protocol*>& models,
                   std::string& error);
// The search check-all runs on `model`'s variants under `memory_model`: DFS storing every state
// where the model asks for it under sc (Protocol::check_stores_states), else the default.
SearchOptions check_all_search(const Protocol& model, MemoryModel memory_model);
// The options that make `lockcheck MODEL` search as `search` does: "" for the default,
// " --strategy dfs --state-cache".
std::string search_flags(const SearchOptions& search);
// Checks every variant of `models` (request.models is not read again).
// `progress`, if given, shows each variant's search while it runs.
int run_check_all(const CheckAllRequest& request, const std::vector<const Protocol*>& models,
                  std::ostream& out, std::ostream& err, ProgressLine* progress = nullptr);

} // namespace lockcheck::detail::cli
