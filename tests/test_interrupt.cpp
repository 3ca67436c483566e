// SIGINT and SIGTERM stop a run between two executions, not in the middle of one: the real
// binary, sent the signal during a long search, prints the summary of what it ran with an
// "incomplete" verdict naming the signal, writes whole and valid JSON, JUnit and HTML files,
// and exits as a shell reports that signal (130, 143); during minimizing it reports the
// smallest counterexample found so far as not proven minimal; check-all stops after the
// variant running then, with the table so far. In the library, a stop request ends a search
// and minimizing before their next execution.
// Before CppUTest, whose operator new macros break the ICU headers libxml2 includes.
#include <libxml/parser.h>

#include <csignal>
#include <sstream>
#include <string>
#include <unistd.h>

#include "checker/minimize.hpp"
#include "cli/check_all.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "reports/json_report.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// A search that runs far longer than its progress line takes to appear (a second); the time
// limit only ends it if the signal never comes.
const std::vector<std::string> kLongSearch = {"lastzero", "--writers",    "12",  "--strategy",
                                              "dfs",      "--time-limit", "600s"};
// A first counterexample with 10 preemptions, in a model whose searches at bounds 0 and 1
// take some 20 s to prove that none smaller has fewer than 2.
const std::vector<std::string> kLongMinimizing = {
    "rename-pin", "--variant", "unsynced-log-edits", "--strategy", "random", "--renames", "3",
    "--fsyncs",   "3",         "--minimize-time",    "1h"};
// What the terminal shows once the search runs, and once minimizing does: the signal handlers
// are installed before either starts.
const std::string kSearching = "\rsearch: ";
const std::string kMinimizing = "\rminimizing";

// Whether the terminal got nothing but progress lines, the last one erased: no error.
bool only_progress(const std::string& terminal) {
    return terminal.ends_with("\r\x1b[K") && !contains(terminal, "lockcheck:");
}

bool well_formed_xml(const std::string& text) {
    xmlDoc* doc = xmlReadMemory(text.data(), static_cast<int>(text.size()), "junit.xml", "UTF-8",
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    xmlFreeDoc(doc);
    return doc != nullptr;
}

} // namespace

TEST_GROUP(Interrupt){};

TEST(Interrupt, sigint_stops_the_search_prints_the_summary_so_far_writes_the_files_and_exits_130) {
    TempDir dir;
    std::vector<std::string> args = kLongSearch;
    args.insert(args.end(),
                {"--json", dir / "run.json", "--junit", dir / "run.xml", "--report", dir / "html"});
    const Run run = run_lockcheck_interrupted(args, SIGINT, kSearching);
    CHECK_EQUAL_TEXT(130, run.exit_code, (run.out + run.err).c_str());
    CHECK_TEXT(contains(run.out, "== lockcheck summary =="), run.out.c_str());
    CHECK_TEXT(contains(run.out, "verdict       incomplete: SIGINT stopped the search after "),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "expected      verified: incomplete: no violation found, but "
                                 "SIGINT stopped the search"),
               run.out.c_str());
    CHECK_TEXT(only_progress(run.err), run.err.c_str());

    RunReport report;
    std::string error;
    CHECK_TEXT(from_json(read_file(dir / "run.json"), report, error), error.c_str());
    CHECK_EQUAL(std::string("SIGINT"), report.summary.stats.stopped_by);
    CHECK(report.summary.stats.executions > 0);
    CHECK(well_formed_xml(read_file(dir / "run.xml")));
    CHECK(contains(read_file(dir / "html/index.html"), "SIGINT stopped the search"));
}

TEST(Interrupt, sigterm_stops_the_search_as_sigint_does_and_exits_143) {
    const Run run = run_lockcheck_interrupted(kLongSearch, SIGTERM, kSearching);
    CHECK_EQUAL_TEXT(143, run.exit_code, (run.out + run.err).c_str());
    CHECK_TEXT(contains(run.out, "verdict       incomplete: SIGTERM stopped the search after "),
               run.out.c_str());
}

TEST(Interrupt, a_signal_while_minimizing_reports_the_best_so_far_as_not_proven_minimal) {
    const Run run = run_lockcheck_interrupted(kLongMinimizing, SIGINT, kMinimizing);
    CHECK_EQUAL_TEXT(130, run.exit_code, (run.out + run.err).c_str());
    CHECK_TEXT(contains(run.out, "not proven minimal: SIGINT stopped the search for a smaller "
                                 "one)"),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "verdict       VIOLATION (1 found)"), run.out.c_str());
    CHECK_TEXT(contains(run.out, "replay: "), run.out.c_str());
}

// check-all over every model takes well under a second on an idle machine: too short to
// signal reliably, so its loop is driven by a stop request set before it starts.
TEST(Interrupt, check_all_stops_after_the_variant_running_then_with_the_table_so_far) {
    StopRequest stop{SIGINT};
    cli::CheckAllRequest request;
    request.stop = &stop;
    std::vector<const Protocol*> models;
    std::string error;
    CHECK(cli::select_models(request, models, error));
    std::size_t variants = 0;
    for (const Protocol* p : models)
        variants += p->variants.size();
    std::ostringstream out, err;
    CHECK_EQUAL(130, cli::run_check_all(request, models, out, err));
    CHECK_TEXT(contains(out.str(), "incomplete (SIGINT)"), out.str().c_str());
    CHECK_TEXT(contains(out.str(), "check-all: 1 variants, 0 as declared, 0 differ, 1 incomplete\n"
                                   "check-all: SIGINT stopped it after 1 of " +
                                       std::to_string(variants) +
                                       " variants; the rest were not checked\n"),
               out.str().c_str());
    STRCMP_EQUAL("", err.str().c_str());
}

// With --jobs 2 two variants run side by side: each side stops after the one it was running,
// and the table has the first two, both incomplete.
TEST(Interrupt, check_all_side_by_side_stops_each_side_after_its_variant) {
    StopRequest stop{SIGINT};
    cli::CheckAllRequest request;
    request.stop = &stop;
    request.jobs = 2;
    const Protocol& p = *find_registered_model("rename-pin");
    std::ostringstream out, err;
    CHECK_EQUAL(130, cli::run_check_all(request, {&p}, out, err));
    CHECK_TEXT(contains(out.str(), "check-all: 2 variants, 0 as declared, 0 differ, 2 incomplete\n"
                                   "check-all: SIGINT stopped it after 2 of " +
                                       std::to_string(p.variants.size()) +
                                       " variants; the rest were not checked\n"),
               out.str().c_str());
    CHECK_TEXT(contains(out.str(), p.variants[0].name) && contains(out.str(), p.variants[1].name),
               out.str().c_str());
}

TEST(Interrupt, a_stop_request_ends_a_search_and_minimizing_before_their_next_execution) {
    const Protocol& p = *find_registered_model("rename-pin");
    const std::size_t variant = *p.find_variant("no-pin");
    const Setup setup = default_setup(p, variant);
    StopRequest stop{0};
    CheckOptions options;
    options.stop = &stop;
    const SearchResult found = check_model(setup, options);
    CHECK(found.stats.stopped_by.empty()); // never asked: the search runs to its violation

    stop = SIGINT;
    const SearchResult stopped = check_model(setup, Search::dfs, options);
    CHECK_EQUAL(std::string("SIGINT"), stopped.stats.stopped_by);
    CHECK_EQUAL(1u, stopped.stats.executions);

    const Minimized m = minimize(setup, found.findings.front(), 2, 17, options, MinimizeLimits{});
    CHECK(!m.minimal);
    CHECK_EQUAL(std::string("SIGINT"), m.stopped_by);
    CHECK_EQUAL(0u, m.executions);
    CHECK(m.finding.schedule == found.findings.front().schedule);
}
