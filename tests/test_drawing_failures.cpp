// Drawings that cannot be made never take a run down: a seqcount reader spinning on an odd count
// after a lost update (the hang whose drawing aborted lockcheck inside Graphviz's GTS router) is
// drawn in every format, and a renderer that dies is one warning line, the run's verdict, text
// trace, JSON report and exit code as they would have been.
#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>

#include "cli/check_command.hpp"
#include "harness.hpp"
#include "seqcount_hang.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Checked {
    int exit_code = -1;
    std::string out, err;
};

// `lockcheck isize-seqcount --no-timing` as the command line runs it, minimizing included,
// writing `files`.
Checked check_seqcount(const cli::ReportFiles& files) {
    static const Protocol model = seqcount_hang_model();
    cli::CheckRequest r;
    r.protocol = &model;
    r.search.search = kDefaultSearch;
    r.values = model.default_values();
    r.options.depth = model.depth_for(0);
    r.files = files;
    r.timing = false; // two runs print the same bytes
    std::ostringstream out, err;
    Checked c;
    c.exit_code = cli::run_check(r, out, err);
    c.out = out.str();
    c.err = err.str();
    return c;
}

} // namespace

TEST_GROUP(DrawingFailures){};

// Every turn of the reader's spin loop drawn (--full-trace) is the layout GTS aborted on; the
// folded drawing in one format besides.
TEST(DrawingFailures, a_seqcount_reader_spinning_after_a_lost_update_is_drawn_in_every_format) {
    const std::pair<const char*, bool> drawings[] = {
        {"t.dot", true}, {"t.svg", true}, {"t.png", true}, {"t.pdf", true}, {"t.svg", false}};
    for (const auto& [name, full] : drawings) {
        TempDir dir;
        cli::ReportFiles files;
        files.trace = dir / name;
        files.full_trace = full;
        const Checked c = check_seqcount(files);
        const std::string what = std::string(name) + (full ? " --full-trace" : "");
        CHECK_EQUAL_TEXT(1, c.exit_code, (what + ": " + c.err).c_str());
        CHECK_TEXT(contains(c.out, "VIOLATION (hang)"), c.out.c_str());
        CHECK_EQUAL_TEXT(std::string(), c.err, what.c_str());
        CHECK_TEXT(read_file(dir / name).size() > 1000, what.c_str());
    }
}

TEST(DrawingFailures, a_renderer_that_dies_is_a_warning_and_the_run_stands) {
    TempDir dir;
    cli::ReportFiles files;
    files.json = dir / "r.json";
    const Checked drawn_by_none = check_seqcount(files);
    files.trace = dir / "t.svg";
    files.report = dir / "report";
    files.render = [](Agraph_s*, const std::string&) { std::abort(); };
    const Checked c = check_seqcount(files);
    CHECK_EQUAL_TEXT(drawn_by_none.exit_code, c.exit_code, c.err.c_str());
    CHECK_EQUAL(1, c.exit_code);
    CHECK_EQUAL(drawn_by_none.out, c.out);
    // One line per drawing that could not be made: --trace's and the report's.
    CHECK_EQUAL_TEXT(2, std::count(c.err.begin(), c.err.end(), '\n'), c.err.c_str());
    CHECK_TEXT(c.err.rfind("lockcheck: warning: cannot draw", 0) == 0, c.err.c_str());
    CHECK_TEXT(contains(c.err, "died of SIGABRT"), c.err.c_str());
    CHECK_TEXT(contains(read_file(dir / "r.json"), "\"exit_code\": 1"), "no JSON report");
    CHECK_EQUAL(std::string("r.json report "), dir.listing());
    const std::string html = read_file(dir / "report/index.html");
    CHECK_TEXT(contains(html, "VIOLATION (hang)"), "the report lost its trace");
    CHECK_TEXT(contains(html, "could not be drawn"), "the report does not say why no drawing");
    CHECK_EQUAL(std::string("index.html "), dir.listing("report"));
}
