// A loop that went round the same way again and again (a hang's spin loop) shows its first and
// last turns and one row for the turns between, with their count, alike in the text trace, the
// drawing and the HTML report; --full-trace shows every turn.
#include <cctype>
#include <sstream>
#include <string>

#include <graphviz/cgraph.h>

#include "cli/check_command.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "seqcount_hang.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Shown {
    std::string out;  // the text trace and the summary
    std::string dot;  // the drawing
    std::string html; // the report's page
};

// `lockcheck isize-seqcount --trace t.dot --report report [--full-trace]`: the reader's 33 turns
// of READ_ONCE() and cpu_relax() are steps 15-80, step 81 its last read.
Shown seqcount_hang(bool full) {
    static const Protocol model = seqcount_hang_model();
    TempDir dir;
    cli::CheckRequest r;
    r.protocol = &model;
    r.search.search = kDefaultSearch;
    r.values = model.default_values();
    r.options.depth = model.depth_for(0);
    r.files.trace = dir / "t.dot";
    r.files.report = dir / "report";
    r.files.full_trace = full;
    r.timing = false;
    std::ostringstream out, err;
    CHECK_EQUAL_TEXT(1, cli::run_check(r, out, err), err.str().c_str());
    return {out.str(), read_file(dir / "t.dot"), read_file(dir / "report/index.html")};
}

// The lines of `text` that start with a step number ("    17-78  …", "    79  ...").
std::string step_column(const std::string& text) {
    std::istringstream lines(text);
    std::string column;
    for (std::string line; std::getline(lines, line);) {
        const std::size_t at = line.find_first_not_of(' ');
        if (at == std::string::npos || !std::isdigit(static_cast<unsigned char>(line[at])))
            continue;
        column += line.substr(at, line.find_first_of(" *", at) - at) + " ";
    }
    return column;
}

// The graph of a .dot text, closed at the end.
struct ReadGraph {
    explicit ReadGraph(const std::string& dot) : graph(agmemread(dot.c_str())) {}
    ~ReadGraph() {
        if (graph) agclose(graph);
    }
    ReadGraph(const ReadGraph&) = delete;
    ReadGraph& operator=(const ReadGraph&) = delete;
    Agraph_t* graph;
};

std::string attribute(Agnode_t* n, const char* name) {
    const char* value = agget(n, const_cast<char*>(name));
    return value ? value : "";
}

} // namespace

TEST_GROUP(LoopFolding){};

TEST(LoopFolding, a_spin_loops_repeated_turns_fold_alike_in_the_text_trace_drawing_and_report) {
    const Shown shown = seqcount_hang(/*full=*/false);
    const std::string text = text_before(shown.out, "replay: ");
    CHECK_TEXT(contains(text, "    17-78  \u2026 31 more turns of the same loop \u2026\n"),
               text.c_str());
    CHECK_EQUAL(std::string("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17-78 79 80 81 "),
                step_column(text));

    // The drawing: steps 15, 16 and 79-81 are boxes, 17-78 one box of the loop's turns.
    ReadGraph read(shown.dot);
    CHECK(read.graph);
    std::size_t turns = 0;
    for (Agnode_t* n = agfstnode(read.graph); n; n = agnxtnode(read.graph, n)) {
        if (attribute(n, "class") != "turns") continue;
        ++turns;
        CHECK_EQUAL(std::string("... 31 more turns of the same loop ..."), attribute(n, "label"));
        CHECK_EQUAL(std::string("steps 17-78 (62 steps)"), attribute(n, "tooltip"));
    }
    CHECK_EQUAL(1u, turns);
    for (int step = 1; step <= 81; ++step) {
        Agnode_t* n =
            agnode(read.graph, const_cast<char*>(("s" + std::to_string(step)).c_str()), 0);
        const bool folded = step >= 17 && step <= 78;
        CHECK_EQUAL_TEXT(folded, n == nullptr, std::to_string(step).c_str());
    }

    CHECK_TEXT(contains(shown.html, "31 more turns of the same loop"), "the report shows 66 rows");
    CHECK_TEXT(!contains(shown.html, "    20  "), "the report shows a folded turn");
}

TEST(LoopFolding, the_full_trace_shows_every_turn_of_the_loop) {
    const Shown shown = seqcount_hang(/*full=*/true);
    std::string every;
    for (int step = 1; step <= 81; ++step)
        every += std::to_string(step) + " ";
    CHECK_EQUAL(every, step_column(text_before(shown.out, "replay: ")));
    CHECK_TEXT(!contains(shown.out, "more turns"), shown.out.c_str());
    CHECK_TEXT(!contains(shown.dot, "more turns") && contains(shown.dot, "s47"), "folded drawing");
    CHECK_TEXT(!contains(shown.html, "more turns"), "folded report");
}
