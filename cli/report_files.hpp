// The files a run writes besides its output: --trace (a drawing per counterexample), --json,
// --junit and --report DIR. Errors are values: a file that cannot be written is the user's
// input error, reported in one line.
#pragma once

#include <string>
#include <vector>

#include "reports/json_report.hpp"

namespace lockcheck::cli {

struct ReportFiles {
    std::string trace;  // .dot/.svg/.png/.pdf; counterexample N > 1 goes to NAME-N.EXT
    std::string json;   // the JSON report
    std::string junit;  // JUnit XML
    std::string report; // a directory for index.html and the drawings
    // --full-trace: traces and drawings show every step, none folded (the printed trace too).
    bool full_trace = false;
};

// Writes every file asked for; false with a one-line reason if one cannot be written.
bool write_report_files(const ReportFiles& files, const RunReport& report, std::string& error);
// check-all's files: every run in one JSON document and one JUnit suite judged against the
// declared verdicts (an empty path: not asked for).
bool write_check_all_files(const std::string& json, const std::string& junit,
                           const std::vector<RunReport>& runs, std::string& error);

} // namespace lockcheck::cli
