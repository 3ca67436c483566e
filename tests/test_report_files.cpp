// The files a run writes, end to end from the command line: --json saved by a run and replayed
// with `lockcheck replay FILE.json` gives the same counterexample, byte for byte, and the same
// drawing; --trace, --junit and --report produce their files, and a reused --report directory
// keeps nothing of an earlier run; a report that does not fit (its depth cuts its own
// counterexample), or a drawing format that does not exist, exits 2 with one line on stderr;
// a file that cannot be written (or that its user made read-only) is refused before the
// search, and a run writes all its files or none.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "checker/protocol.hpp"
#include "cli/report_files.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

namespace fs = std::filesystem;

std::string counterexample(const std::string& output) {
    return text_before(output, "replay: ");
}

} // namespace

TEST_GROUP(ReportFiles){};

TEST(ReportFiles, a_saved_json_report_replays_to_the_same_trace_and_drawing_for_every_variant) {
    int replayed = 0;
    for (const Protocol& p : protocol_models()) {
        for (const Variant& v : p.variants) {
            if (!v.expect.expects_violation) continue;
            const std::string what = p.name + " --variant " + v.name;
            TempDir dir;
            const Run check = run_lockcheck(
                {p.name, "--variant", v.name, "--json", dir / "r.json", "--trace", dir / "a.dot"});
            CHECK_EQUAL_TEXT(1, check.exit_code, (what + ": " + check.err).c_str());
            const Run again = run_lockcheck({"replay", dir / "r.json", "--trace", dir / "b.dot"});
            CHECK_EQUAL_TEXT(1, again.exit_code, (what + ": " + again.err).c_str());
            CHECK_EQUAL_TEXT(counterexample(check.out),
                             text_before(again.out, "\n== lockcheck summary =="), what.c_str());
            CHECK_TEXT(!read_file(dir / "a.dot").empty(), what.c_str());
            CHECK_EQUAL_TEXT(read_file(dir / "a.dot"), read_file(dir / "b.dot"), what.c_str());
            ++replayed;
        }
    }
    CHECK_TEXT(replayed > 0, "no broken variant to replay");
}

// --trace FILE: the drawings of an earlier run with more counterexamples do not outlive it, nor
// FILE itself a run that draws nothing; files of other names next to them stay.
TEST(ReportFiles, a_rerun_leaves_no_drawing_of_an_earlier_run_under_its_trace_name) {
    TempDir dir;
    const Run both = run_lockcheck(
        {"tree-lock", "--variant", "unlock-no-wake", "--keep-going", "--trace", dir / "t.dot"});
    CHECK_EQUAL_TEXT(1, both.exit_code, both.err.c_str());
    CHECK_EQUAL(std::string("t-2.dot t.dot "), dir.listing());
    for (const char* other : {"t-1.dot", "t-x.dot", "t-02.dot", "u-3.dot", "t-3.svg"})
        std::ofstream(dir / other) << "not lockcheck's";
    const Run one =
        run_lockcheck({"tree-lock", "--variant", "unlock-no-wake", "--trace", dir / "t.dot"});
    CHECK_EQUAL_TEXT(1, one.exit_code, one.err.c_str());
    CHECK_EQUAL(std::string("t-02.dot t-1.dot t-3.svg t-x.dot t.dot u-3.dot "), dir.listing());
    const Run none = run_lockcheck({"tree-lock", "--trace", dir / "t.dot"});
    CHECK_EQUAL_TEXT(0, none.exit_code, none.err.c_str());
    CHECK_EQUAL(std::string("t-02.dot t-1.dot t-3.svg t-x.dot u-3.dot "), dir.listing());
}

// The report keeps each step's line in the model, and the replay prints it as the run did.
TEST(ReportFiles, a_saved_json_report_replays_with_the_same_locations) {
    TempDir dir;
    const Run check = run_lockcheck({"buffered-write", "--locations", "--json", dir / "r.json"});
    CHECK_EQUAL_TEXT(1, check.exit_code, check.err.c_str());
    CHECK(contains(read_file(dir / "r.json"), "\"file\": \"buffered_write.cpp\""));
    const Run again = run_lockcheck({"replay", dir / "r.json", "--locations"});
    CHECK_EQUAL_TEXT(1, again.exit_code, again.err.c_str());
    CHECK(contains(check.out, " buffered_write.cpp:"));
    CHECK_EQUAL(counterexample(check.out), text_before(again.out, "\n== lockcheck summary =="));
}

TEST(ReportFiles, trace_junit_and_report_write_their_files) {
    TempDir dir;
    const Run run = run_lockcheck({"rename-pin", "--variant", "no-pin", "--trace", dir / "t.svg",
                                   "--junit", dir / "j.xml", "--report", dir / "html"});
    CHECK_EQUAL_TEXT(1, run.exit_code, run.err.c_str());
    CHECK(contains(read_file(dir / "t.svg"), "<svg"));
    CHECK(
        contains(read_file(dir / "j.xml"),
                 "<testcase classname=\"rename-pin\" name=\"no-pin renames=1 fsyncs=1 rounds=1\""));
    const std::string html = read_file(dir / "html/index.html");
    CHECK(contains(html, "<svg"));
    CHECK(contains(html, "trace (14 steps, 1 preemption, marked *)"));
    CHECK(contains(html, "== lockcheck summary =="));
}

TEST(ReportFiles, each_counterexample_of_a_keep_going_run_gets_its_own_drawing) {
    TempDir dir;
    const Run run = run_lockcheck({"buffered-write", "--variant", "dio-begin-after-unlock",
                                   "--keep-going", "--trace", dir / "t.dot"});
    CHECK_EQUAL_TEXT(1, run.exit_code, run.err.c_str());
    CHECK(fs::exists(dir / "t.dot"));
    CHECK(fs::exists(dir / "t-2.dot"));
}

TEST(ReportFiles, what_cannot_be_replayed_or_drawn_exits_2_with_one_line) {
    TempDir dir;
    std::ofstream(dir / "not-a-report.json") << "{\"schema\": \"something else\"}";
    run_lockcheck({"rename-pin", "--variant", "no-pin", "--json", dir / "r.json"});
    const std::vector<std::vector<std::string>> cases = {
        {"replay", dir / "missing.json"},
        {"replay", dir / "not-a-report.json"},
        {"replay", dir / "r.json", "--counterexample", "2"},
        {"rename-pin", "--variant", "no-pin", "--trace", dir / "t.txt"},
        {"rename-pin", "--variant", "no-pin", "--json", dir / "no-such-dir/r.json"},
    };
    for (const auto& args : cases) {
        const Run run = run_lockcheck(args);
        const std::string what = args[0] + " " + args[1] + ": " + run.err;
        CHECK_EQUAL_TEXT(2, run.exit_code, what.c_str());
        CHECK_TEXT(is_one_line(run.err), what.c_str());
    }
    // A drawing format that does not exist is refused before the check runs.
    CHECK(run_lockcheck({"rename-pin", "--trace", dir / "t.txt"}).out.empty());
}

TEST(ReportFiles, a_saved_report_whose_bounds_cut_its_own_counterexample_is_refused) {
    // Its search could not have found what it holds: the report was edited, or is of another
    // build. Replayed, it would show a trace past its own bound.
    TempDir dir;
    run_lockcheck({"rename-pin", "--variant", "no-pin", "--json", dir / "r.json"});
    const std::string text = read_file(dir / "r.json");
    // Its counterexample takes 14 steps (and passes between its tasks once: depth 1).
    const std::string bound = "\"max_steps\": 1000,";
    CHECK_TEXT(contains(text, bound), text.c_str());
    std::string cut = text;
    cut.replace(cut.find(bound), bound.size(), "\"max_steps\": 5,");
    std::ofstream(dir / "cut.json") << cut;
    CHECK_EQUAL(1, run_lockcheck({"replay", dir / "r.json"}).exit_code);
    const Run run = run_lockcheck({"replay", dir / "cut.json"});
    CHECK_EQUAL_TEXT(2, run.exit_code, run.err.c_str());
    STRCMP_EQUAL("", run.out.c_str());
    CHECK_TEXT(is_one_line(run.err), run.err.c_str());
    CHECK_TEXT(contains(run.err, "cut.json: its max_steps 5 cuts counterexample 1 at step 5, "
                                 "before its schedule of 14 entries ends"),
               run.err.c_str());
}

TEST(ReportFiles, a_file_that_cannot_be_written_is_refused_before_the_search) {
    TempDir dir;
    std::ofstream(dir / "file") << "not a directory";
    const std::vector<std::vector<std::string>> outputs = {
        {"--json", dir / "no-such-dir/r.json"},
        {"--junit", dir / "file/j.xml"},
        {"--report", dir / "file/html"},
        {"--trace", dir / "no-such-dir/t.svg"},
        {"--json", dir / ""},
    };
    for (const auto& output : outputs) {
        // And a file that can be written, which must not be.
        std::vector<std::string> args = {"rename-pin", "--variant", "no-pin",
                                         output[0] == "--junit" ? "--json" : "--junit",
                                         dir / "good"};
        args.insert(args.end(), output.begin(), output.end());
        const Run run = run_lockcheck(args);
        const std::string what = output[0] + " " + output[1] + ": " + run.err + run.out;
        CHECK_EQUAL_TEXT(2, run.exit_code, what.c_str());
        CHECK_TEXT(is_one_line(run.err), what.c_str());
        CHECK_TEXT(contains(run.err, output[1]), what.c_str());
        // Nothing was searched, and the other file was not written.
        CHECK_TEXT(run.out.empty(), what.c_str());
        CHECK_TEXT(!fs::exists(dir / "good"), what.c_str());
    }
    const Run all =
        run_lockcheck({"check-all", "rename-pin", "--json", dir / "no-such-dir/a.json"});
    CHECK_EQUAL_TEXT(2, all.exit_code, all.err.c_str());
    CHECK_TEXT(is_one_line(all.err), all.err.c_str());
    CHECK_TEXT(all.out.empty(), all.out.c_str());
    CHECK_EQUAL("file ", dir.listing());
}

TEST(ReportFiles, a_file_made_read_only_is_refused_before_the_search_and_left_as_it_was) {
    // The files are written beside and renamed into place, which a read-only file does not
    // stop: refused as the first release refused it, for root too (the tests may run as root,
    // whom open() lets write it).
    TempDir dir;
    fs::create_directories(dir / "html");
    const std::vector<std::vector<std::string>> outputs = {
        {"--json", dir / "ro.json"},
        {"--junit", dir / "ro.xml"},
        {"--trace", dir / "ro.svg"},
        {"--report", dir / "html", dir / "html/index.html"},
    };
    for (const auto& output : outputs) {
        const std::string file = output.back();
        std::ofstream(file) << "old";
        fs::permissions(file,
                        fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
        // run_lockcheck_as: a --json file left as it was is no report to validate.
        const Run run = run_lockcheck_as(
            "lockcheck", {"rename-pin", "--variant", "no-pin", output[0], output[1]});
        const std::string what = output[0] + ": " + run.err + run.out;
        CHECK_EQUAL_TEXT(2, run.exit_code, what.c_str());
        CHECK_TEXT(is_one_line(run.err), what.c_str());
        CHECK_TEXT(contains(run.err, "cannot write " + file + ": Permission denied"), what.c_str());
        CHECK_TEXT(run.out.empty(), what.c_str());
        CHECK_EQUAL("old", read_file(file));
    }
    std::ofstream(dir / "all.json") << "old";
    fs::permissions(dir / "all.json", fs::perms::owner_read);
    const Run all =
        run_lockcheck_as("lockcheck", {"check-all", "rename-pin", "--json", dir / "all.json"});
    CHECK_EQUAL_TEXT(2, all.exit_code, all.err.c_str());
    CHECK_TEXT(contains(all.err, "Permission denied"), all.err.c_str());
    CHECK_EQUAL("old", read_file(dir / "all.json"));
}

TEST(ReportFiles, a_run_writes_all_its_files_or_none_and_leaves_an_old_one_whole) {
    TempDir dir;
    std::ofstream(dir / "r.json") << "old";
    RunReport report;
    report.summary.model = "m";
    cli::ReportFiles files;
    files.json = dir / "r.json";
    files.junit = dir / "no-such-dir/j.xml";
    std::string error;
    std::vector<std::string> warnings;
    CHECK(!cli::write_report_files(files, report, error, warnings));
    CHECK_TEXT(is_one_line(error + "\n") && contains(error, "no-such-dir/j.xml"), error.c_str());
    CHECK_EQUAL("old", read_file(dir / "r.json"));
    // No temporary file is left behind either.
    CHECK_EQUAL("r.json ", dir.listing());

    files.junit = dir / "j.xml";
    CHECK_TEXT(cli::write_report_files(files, report, error, warnings), error.c_str());
    CHECK(warnings.empty());
    CHECK(contains(read_file(dir / "r.json"), "\"model\": \"m\""));
    CHECK_EQUAL("j.xml r.json ", dir.listing());
}

TEST(ReportFiles, a_reused_report_directory_holds_nothing_of_an_earlier_run) {
    TempDir dir;
    const Run first = run_lockcheck({"buffered-write", "--variant", "dio-begin-after-unlock",
                                     "--keep-going", "--report", dir / "html"});
    CHECK_EQUAL_TEXT(1, first.exit_code, first.err.c_str());
    CHECK_TEXT(fs::exists(dir / "html/counterexample-2.svg"), dir.listing("html").c_str());
    const Run second =
        run_lockcheck({"rename-pin", "--variant", "no-pin", "--report", dir / "html"});
    CHECK_EQUAL_TEXT(1, second.exit_code, second.err.c_str());
    CHECK_EQUAL("counterexample-1.svg index.html ", dir.listing("html"));
    // The page names the command that wrote it, as a shell would take it back.
    const std::string html = read_file(dir / "html/index.html");
    CHECK_TEXT(contains(html, "<code>lockcheck rename-pin --variant no-pin --report " +
                                  dir / "html" + "</code>"),
               html.c_str());
}
