// The files a run writes, end to end from the command line: --json saved by a run and replayed
// with `lockcheck replay FILE.json` gives the same counterexample, byte for byte, and the same
// drawing; --trace, --junit and --report produce their files; a report that does not fit, or a
// drawing format that does not exist, exits 2 with one line on stderr.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "checker/protocol.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::testing;

namespace {

namespace fs = std::filesystem;

// A directory of its own for each test (CTest runs groups in parallel), removed after.
class TempDir {
  public:
    TempDir() {
        char path[] = "/tmp/lockcheck-files-XXXXXX";
        CHECK_TEXT(mkdtemp(path) != nullptr, "cannot create a temporary directory");
        path_ = path;
    }
    ~TempDir() { fs::remove_all(path_); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string operator/(const std::string& name) const { return (path_ / name).string(); }

  private:
    fs::path path_;
};

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

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
            CHECK_TEXT(!read(dir / "a.dot").empty(), what.c_str());
            CHECK_EQUAL_TEXT(read(dir / "a.dot"), read(dir / "b.dot"), what.c_str());
            ++replayed;
        }
    }
    CHECK_TEXT(replayed > 0, "no broken variant to replay");
}

// The report keeps each step's line in the model, and the replay prints it as the run did.
TEST(ReportFiles, a_saved_json_report_replays_with_the_same_locations) {
    TempDir dir;
    const Run check = run_lockcheck({"buffered-write", "--locations", "--json", dir / "r.json"});
    CHECK_EQUAL_TEXT(1, check.exit_code, check.err.c_str());
    CHECK(contains(read(dir / "r.json"), "\"file\": \"buffered_write.cpp\""));
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
    CHECK(contains(read(dir / "t.svg"), "<svg"));
    CHECK(contains(read(dir / "j.xml"),
                   "<testcase classname=\"rename-pin\" name=\"no-pin renames=1 fsyncs=1\""));
    const std::string html = read(dir / "html/index.html");
    CHECK(contains(html, "<svg"));
    CHECK(contains(html, "trace (10 steps, 1 preemption, marked *)"));
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
