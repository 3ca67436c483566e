// The files a run writes besides its output: --trace (a drawing per counterexample), --json,
// --junit and --report DIR. Errors are values: a file that cannot be written is the user's
// input error, reported in one line, found before the search where it can be; and a run
// writes all its files or none (each goes to a temporary file beside it, renamed at the end).
// A drawing that cannot be made is not such an error: it is a warning, and the rest is written.
#pragma once

#include <string>
#include <vector>

#include "reports/comparison.hpp"
#include "reports/graph.hpp"
#include "reports/json_report.hpp"

namespace lockcheck::detail::cli {

struct ReportFiles {
    std::string trace;  // .dot/.svg/.png/.pdf; counterexample N > 1 goes to NAME-N.EXT
    std::string json;   // the JSON report
    std::string junit;  // JUnit XML
    std::string report; // a directory for index.html and the drawings
    // --full-trace: traces and drawings show every step, none folded (the printed trace too).
    bool full_trace = false;
    // What lays out and writes each drawing, in a child process: Graphviz, unless a test puts
    // one that fails.
    RenderGraph render = &render_with_graphviz;
};

// "lockcheck rename-pin --json 'my run.json'": argv as a shell would take it back.
std::string command_line(int argc, const char* const* argv);
// One word as a shell takes it back: as it is when it needs no quoting, else in single quotes.
std::string shell_word(const std::string& word);

// Before the search: whether every file asked for can be written (its directory takes a new
// file, and it is not a directory); creates the --report directory. False with a one-line
// reason if one cannot.
bool check_report_files(const ReportFiles& files, std::string& error);
// The same for check-all's files (an empty path: not asked for).
bool check_check_all_files(const std::string& json, const std::string& junit, std::string& error);

// Writes every file asked for; false with a one-line reason if one cannot be written, and
// then none is: a file that was there before is left as it was. A drawing that cannot be made
// (Graphviz fails, or dies) is left out with a one-line reason in `warnings` while the rest is
// written: the report's page says so where the drawing would be, and a drawing an earlier run
// left under that name is removed.
bool write_report_files(const ReportFiles& files, const RunReport& report, std::string& error,
                        std::vector<std::string>& warnings);
// check-all's files: every run in one JSON document and one JUnit suite judged against the
// declared verdicts (an empty path: not asked for).
bool write_check_all_files(const std::string& json, const std::string& junit,
                           const CheckAllReport& check_all, std::string& error);
// compare's files: its JSON document, and a --report directory with the table in index.html
// and each side's own report, worst-wait drawing included, in DIR/VARIANT/ (an empty path:
// not asked for). Drawings that cannot be made are warnings, as for write_report_files.
bool write_compare_files(const std::string& json, const std::string& report,
                         const CompareReport& comparison, std::string& error,
                         std::vector<std::string>& warnings);

} // namespace lockcheck::detail::cli
