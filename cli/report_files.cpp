// Writing the report files of a run.
#include "report_files.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "reports/graph.hpp"
#include "reports/html_report.hpp"
#include "reports/junit.hpp"

namespace lockcheck::cli {

namespace {

namespace fs = std::filesystem;

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// trace.svg, trace-2.svg, trace-3.svg...
std::string numbered(const std::string& path, std::size_t index) {
    if (index == 0) return path;
    const fs::path p(path);
    return (p.parent_path() /
            (p.stem().string() + "-" + std::to_string(index + 1) + p.extension().string()))
        .string();
}

void write_report_dir(const std::string& dir, const RunReport& report, bool full_trace) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
    std::vector<std::string> drawings;
    for (std::size_t i = 0; i < report.counterexamples.size(); ++i) {
        const Counterexample& c = report.counterexamples[i];
        const std::string svg =
            (fs::path(dir) / ("counterexample-" + std::to_string(i + 1) + ".svg")).string();
        write_trace_graph(c.trace, c.violation, svg, full_trace);
        drawings.push_back(read_text(svg));
    }
    write_text((fs::path(dir) / "index.html").string(), to_html(report, drawings, full_trace));
}

} // namespace

bool write_report_files(const ReportFiles& files, const RunReport& report, std::string& error) {
    try {
        if (!files.trace.empty())
            for (std::size_t i = 0; i < report.counterexamples.size(); ++i)
                write_trace_graph(report.counterexamples[i].trace,
                                  report.counterexamples[i].violation, numbered(files.trace, i),
                                  files.full_trace);
        if (!files.json.empty()) write_text(files.json, to_json(report));
        if (!files.junit.empty()) write_text(files.junit, to_junit({report}));
        if (!files.report.empty()) write_report_dir(files.report, report, files.full_trace);
    } catch (const std::exception& e) {
        error = e.what();
        return false;
    }
    return true;
}

bool write_check_all_files(const std::string& json, const std::string& junit,
                           const std::vector<RunReport>& runs, std::string& error) {
    try {
        if (!json.empty()) write_text(json, to_json(runs));
        if (!junit.empty())
            write_text(junit, to_junit(runs, JUnitJudging::against_declared_verdict));
    } catch (const std::exception& e) {
        error = e.what();
        return false;
    }
    return true;
}

} // namespace lockcheck::cli
