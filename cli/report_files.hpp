// The files a run writes besides its output: --trace (a drawing per counterexample), --json,
// --junit and --report DIR. Errors are values: a file that cannot be written is the user's
// input error, reported in one line.
#pragma once

#include <string>
#include <vector>

#include "reports/json_report.hpp"

namespace lockcheck::cli {

// "lockcheck rename-pin --json 'my run.json'": argv as a shell would take it back.
std::string command_line(int argc, const char* const* argv);

struct ReportFiles {
    std::string trace;  // .dot/.svg/.png/.pdf; counterexample N > 1 goes to NAME-N.EXT
    std::string json;   // the JSON report
    std::string junit;  // JUnit XML
    std::string report; // a directory for index.html and the drawings
};

// Writes every file asked for; false with a one-line reason if one cannot be written.
bool write_report_files(const ReportFiles& files, const RunReport& report, std::string& error);
// check-all's files: every run in one JSON document and one JUnit suite judged against the
// declared verdicts (an empty path: not asked for).
bool write_check_all_files(const std::string& json, const std::string& junit,
                           const CheckAllReport& check_all, std::string& error);

} // namespace lockcheck::cli
