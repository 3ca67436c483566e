// A user's model run as the user ran it (issue 40): ../shared/repro/isize_seqcount.cpp, ported
// to model_state<>() (tests/isize_seqcount_model.cpp, in the lockcheck_isize binary). Its
// unlocked-extend variant, the extending write's i_size_write() without i_rwsem, loses a
// seqcount increment and leaves the reader spinning: a hang, reported end to end from the
// command line, trace drawn.
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck::detail::testing;

TEST_GROUP(IsizeSeqcount){};

TEST(IsizeSeqcount, the_unlocked_extend_hang_runs_from_the_command_line_with_a_drawn_trace) {
    const TempDir dir;
    const std::string svg = dir / "hang.svg";
    const Run run =
        run_binary(LOCKCHECK_ISIZE_BINARY, {"isize-seqcount", "--variant", "unlocked-extend",
                                            "--trace", svg, "--no-timing"});
    CHECK_EQUAL_TEXT(1, run.exit_code, run.err.c_str());
    CHECK_TEXT(contains(run.out, "VIOLATION (hang)"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "stat0"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "expected      violation (hang): as declared"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "replay: "), run.out.c_str());
    CHECK_TEXT(contains(read_file(svg), "<svg"), "no drawing written");
    // The replay line (after the program's name) replays it.
    const std::size_t at = run.out.find("replay: ");
    CHECK(at != std::string::npos);
    std::istringstream line(run.out.substr(at, run.out.find('\n', at) - at));
    std::vector<std::string> replay{std::istream_iterator<std::string>(line), {}};
    CHECK(replay.size() > 2);
    replay.erase(replay.begin(), replay.begin() + 2); // "replay:" and the program
    CHECK_EQUAL("isize-seqcount", replay.front());
    const Run again = run_binary(LOCKCHECK_ISIZE_BINARY, replay);
    CHECK_EQUAL_TEXT(1, again.exit_code, again.err.c_str());
    CHECK_TEXT(contains(again.out, "VIOLATION (hang)"), again.out.c_str());
}

TEST(IsizeSeqcount, every_variant_gives_its_declared_verdict_from_the_command_line) {
    const Run run = run_binary(LOCKCHECK_ISIZE_BINARY, {"check-all", "--no-timing"});
    CHECK_EQUAL_TEXT(0, run.exit_code, run.out.c_str());
    CHECK_TEXT(contains(run.out, "check-all: 5 variants"), run.out.c_str());
}
