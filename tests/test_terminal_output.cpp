// Output on a terminal: traces fit its width (a list naming each step's task when the swim
// lanes are wider), and long output goes through a pager, as git's does; when stdout is not a
// terminal, the bytes are as they always were.
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"
#include "lockcheck_binary.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck::detail::testing;

namespace {

// The terminal's lines, without the carriage returns its line discipline adds.
std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

// Columns a line takes: UTF-8 continuation bytes take none.
std::size_t columns_of(const std::string& line) {
    std::size_t n = 0;
    for (char c : line)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

const std::vector<std::string> kHotplug = {"cil-push", "--variant", "hotplug", "--color", "never"};

// LOCKCHECK_PAGER for one test: a pager that marks each line it shows.
struct MarkingPager {
    MarkingPager(const char* command = "sed 's/^/paged: /'") {
        setenv("LOCKCHECK_PAGER", command, 1);
    }
    ~MarkingPager() { unsetenv("LOCKCHECK_PAGER"); }
};

} // namespace

TEST_GROUP(TerminalOutput){};

TEST(TerminalOutput, a_trace_wider_than_the_terminal_becomes_a_list_that_fits) {
    MarkingPager pager("cat");
    const Run run = run_lockcheck_on_terminal(kHotplug, 100, /*stdout_too=*/true);
    CHECK_EQUAL(1, run.exit_code);
    const std::vector<std::string> lines = lines_of(run.err);
    bool in_trace = false, list = false;
    for (const std::string& line : lines) {
        if (line.rfind("trace (", 0) == 0) in_trace = true;
        if (line.rfind("at the end", 0) == 0) in_trace = false;
        if (!in_trace) continue;
        list |= contains(line, "  step  task          operation");
        // An operation longer than its column pushes its own line on, and only that.
        if (!contains(line, "percpu_counter_add_batch"))
            CHECK_TEXT(columns_of(line) <= 100, line.c_str());
    }
    CHECK_TEXT(list, run.err.c_str());
    CHECK_TEXT(contains(run.err, "    15  cpuhp         remove_cpu(1, cpu_online_mask)"),
               run.err.c_str());
}

TEST(TerminalOutput, a_trace_that_fits_keeps_its_swim_lanes) {
    MarkingPager pager("cat");
    const Run run = run_lockcheck_on_terminal(kHotplug, 400, /*stdout_too=*/true);
    CHECK_TEXT(contains(run.err, "  step  commit0"), run.err.c_str());
}

TEST(TerminalOutput, long_output_goes_through_the_pager_unless_no_pager) {
    MarkingPager pager;
    const Run paged = run_lockcheck_on_terminal(kHotplug, 100, /*stdout_too=*/true);
    CHECK_EQUAL(1, paged.exit_code);
    CHECK_TEXT(contains(paged.err, "paged: VIOLATION (final-check)"), paged.err.c_str());
    CHECK_TEXT(contains(paged.err, "paged: verdict       VIOLATION (1 found)"), paged.err.c_str());
    std::vector<std::string> args = kHotplug;
    args.push_back("--no-pager");
    const Run direct = run_lockcheck_on_terminal(args, 100, /*stdout_too=*/true);
    CHECK_EQUAL(1, direct.exit_code);
    CHECK_FALSE(contains(direct.err, "paged: "));
    CHECK_TEXT(contains(direct.err, "verdict       VIOLATION (1 found)"), direct.err.c_str());
}

TEST(TerminalOutput, a_pager_that_cannot_start_does_not_swallow_the_output) {
    MarkingPager pager("/nonexistent/pager");
    const Run run = run_lockcheck_on_terminal(kHotplug, 100, /*stdout_too=*/true);
    CHECK_EQUAL(1, run.exit_code);
    CHECK_TEXT(contains(run.err, "verdict       VIOLATION (1 found)"), run.err.c_str());
}

TEST(TerminalOutput, output_to_a_file_is_unchanged_whatever_the_terminal_or_columns) {
    const Run plain = run_lockcheck(kHotplug);
    setenv("COLUMNS", "60", 1);
    MarkingPager pager;
    const Run with_columns = run_lockcheck(kHotplug);
    unsetenv("COLUMNS");
    CHECK_EQUAL(before_timing(plain.out), before_timing(with_columns.out));
    CHECK_TEXT(contains(plain.out, "  step  commit0"), plain.out.c_str());
    CHECK_FALSE(contains(plain.out, "paged: "));
}
