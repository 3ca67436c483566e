// The counterexample graph, read back with cgraph: every broken variant's counterexample has a
// node per step in a lane per task, lanes in task order, time flowing down, the violating step
// alone in red and the broken property in the caption; 60 steps fit a screen, no box on another;
// SVG, PNG and PDF render; a deadlock shows its wait-for cycle; an unknown extension is refused.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include <graphviz/cgraph.h>

#include "checker/protocol.hpp"
#include "harness.hpp"
#include "reports/graph.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Counterexample {
    std::string what; // "rename-pin no-pin"
    Trace trace;
    Violation violation;
};

// The first counterexample of a variant, found by the protocol's default search at its default
// depth and sizes (as `lockcheck MODEL --variant V` finds it), and replayed into a trace.
Counterexample counterexample_of(const Protocol& p, std::size_t variant) {
    const Setup setup = default_setup(p, variant);
    CheckOptions options;
    options.depth = p.depth_for(variant);
    Counterexample out{p.name + " " + p.variants[variant].name, {}, {}};
    const SearchResult result = check_model(setup, kDefaultSearch, options);
    if (result.findings.empty()) return out;
    ReplayResult rr = replay(setup, result.findings.front().schedule, options);
    if (rr.ok && rr.outcome.violation) {
        out.trace = std::move(rr.trace);
        out.violation = *rr.outcome.violation;
    }
    return out;
}

// Searched once for the whole group: the searches are most of its time.
const std::vector<Counterexample>& broken_variants() {
    static const std::vector<Counterexample> all = [] {
        std::vector<Counterexample> out;
        for (const Protocol& p : protocol_models())
            for (std::size_t i = 0; i < p.variants.size(); ++i)
                if (p.variants[i].expect.expects_violation) out.push_back(counterexample_of(p, i));
        return out;
    }();
    return all;
}

Counterexample no_pin() {
    const Protocol* p = find_registered_model("rename-pin");
    return counterexample_of(*p, *p->find_variant("no-pin"));
}

// A file in the temporary directory, removed when the test ends.
class TempFile {
  public:
    explicit TempFile(const std::string& extension) {
        std::string name =
            (std::filesystem::temp_directory_path() / ("lockcheck-graph-XXXXXX" + extension))
                .string();
        const int fd = mkstemps(name.data(), static_cast<int>(extension.size()));
        if (fd >= 0) close(fd);
        path_ = name;
    }
    ~TempFile() { std::filesystem::remove(path_); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

// A .dot file read back with cgraph.
class DotFile {
  public:
    explicit DotFile(const std::string& path) {
        if (FILE* f = std::fopen(path.c_str(), "r")) {
            graph_ = agread(f, nullptr);
            std::fclose(f);
        }
    }
    ~DotFile() {
        if (graph_) agclose(graph_);
    }
    DotFile(const DotFile&) = delete;
    DotFile& operator=(const DotFile&) = delete;
    Agraph_t* graph() const { return graph_; }

  private:
    Agraph_t* graph_ = nullptr;
};

std::string attr(void* obj, const char* name) {
    const char* value = agget(obj, const_cast<char*>(name));
    return value ? value : "";
}

Agnode_t* node(Agraph_t* g, const std::string& name) {
    return agnode(g, const_cast<char*>(name.c_str()), 0);
}

std::vector<Agnode_t*> nodes_of_class(Agraph_t* g, const std::string& cls) {
    std::vector<Agnode_t*> out;
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n))
        if (attr(n, "class") == cls) out.push_back(n);
    return out;
}

// "x,y" -> {x, y}
std::vector<double> numbers(const std::string& text) {
    std::vector<double> out;
    const char* p = text.c_str();
    char* end = nullptr;
    for (double v = std::strtod(p, &end); end != p; v = std::strtod(p, &end)) {
        out.push_back(v);
        p = *end == ',' ? end + 1 : end;
    }
    return out;
}

void check_drawing(const Counterexample& c, Agraph_t* g) {
    const char* what = c.what.c_str();
    // The caption names the broken property (and the model's line that broke it, if known).
    CHECK_EQUAL_TEXT("VIOLATION (" + std::string(kind_name(c.violation.kind)) + ") at step " +
                         std::to_string(c.violation.step) + ": " + c.violation.headline(),
                     attr(g, "label"), what);
    // A node per step, each named after its step.
    CHECK_EQUAL_TEXT(c.trace.steps.size(), nodes_of_class(g, "step").size(), what);
    for (const TraceStep& s : c.trace.steps)
        CHECK_TEXT(node(g, "s" + std::to_string(s.step)), what);
    // A lane per task, named after it.
    CHECK_EQUAL_TEXT(c.trace.tasks.size(), nodes_of_class(g, "lane").size(), what);
    for (std::size_t t = 0; t < c.trace.tasks.size(); ++t) {
        Agnode_t* lane = node(g, "lane" + std::to_string(t));
        CHECK_TEXT(lane, what);
        CHECK_EQUAL_TEXT(c.trace.tasks[t], attr(lane, "label"), what);
    }
    // Exactly one red-filled step, and it is the violating one; none for a final check, which
    // breaks after every step.
    std::vector<std::string> red;
    for (Agnode_t* n : nodes_of_class(g, "step"))
        if (attr(n, "style").find("filled") != std::string::npos && attr(n, "color") == "red")
            red.emplace_back(agnameof(n));
    if (c.violation.kind == ViolationKind::final_check) {
        CHECK_EQUAL_TEXT(0u, red.size(), what);
    } else {
        CHECK_EQUAL_TEXT(1u, red.size(), what);
        CHECK_EQUAL_TEXT("s" + std::to_string(c.violation.step), red.front(), what);
    }
    // A node for each task still there at the end.
    CHECK_EQUAL_TEXT(c.trace.pending.size(), nodes_of_class(g, "pending").size(), what);
}

// Where dot put node `name`: x, y (y grows upwards).
std::vector<double> position(Agraph_t* g, const std::string& name, const std::string& what) {
    Agnode_t* n = node(g, name);
    CHECK_TEXT(n, (what + ": no node " + name).c_str());
    const std::vector<double> xy = numbers(attr(n, "pos"));
    CHECK_EQUAL_TEXT(2u, xy.size(), (what + ": " + name + " has no position").c_str());
    return xy;
}

// Lanes stand side by side in task order, each step in its lane's column, and every step is
// below the one before it.
void check_layout(const Counterexample& c, Agraph_t* g) {
    std::vector<double> columns; // x of each lane
    for (std::size_t t = 0; t < c.trace.tasks.size(); ++t) {
        const std::string lane = c.what + " lane " + std::to_string(t);
        const std::vector<double> pos = position(g, "lane" + std::to_string(t), c.what);
        if (t > 0) CHECK_TEXT(columns.back() < pos[0], lane.c_str());
        columns.push_back(pos[0]);
    }
    double above = 1e9;
    for (const TraceStep& s : c.trace.steps) {
        const std::vector<double> pos = position(g, "s" + std::to_string(s.step), c.what);
        const std::string step = c.what + " step " + std::to_string(s.step);
        CHECK_TEXT(std::abs(pos[0] - columns[s.task_id]) < 1, step.c_str());
        CHECK_TEXT(pos[1] < above, step.c_str());
        above = pos[1];
    }
}

// A counterexample made up for its length: 60 steps of three tasks taking turns in runs of four,
// with realistic labels, a sync edge into every other run, a preemption, and two tasks left
// pending, one blocked on the other (a box two lines tall).
Counterexample sixty_steps() {
    Counterexample c{"synthetic 60 steps", {}, {}};
    c.trace.tasks = {"writer0", "writer1", "fsync0"};
    const struct {
        const char* operation;
        const char* object;
    } operations[] = {{"mutex_lock", "log_mutex"},
                      {"test_and_clear_bit", "parent.bflags"},
                      {"atomic_dec_and_test", "log_writers"},
                      {"prepare_to_wait_exclusive", "log_writer_wait"},
                      {"spin_unlock", "inode.i_lock"}};
    TaskId task = 0;
    for (std::uint32_t step = 1; step <= 60; ++step) {
        const bool turn = step > 1 && step % 4 == 1;
        if (turn) task = (task + 1) % 3;
        TraceStep s;
        s.step = step;
        s.task_id = task;
        s.task = c.trace.tasks[task];
        s.operation = operations[step % 5].operation;
        s.object = operations[step % 5].object;
        if (step % 5 == 1) s.args = {1};
        if (step % 2) s.value = step % 3;
        s.state = "= 1";
        s.preempted = step == 29; // writer1 takes over from a writer0 that could go on
        if (turn && step % 8 == 1) s.synced_from = step - 2;
        c.trace.steps.push_back(s);
    }
    c.trace.pending = {{1, "writer1", "schedule", "log_writer_wait", true, "fsync0"},
                       {2, "fsync0", "mutex_unlock", "log_mutex", false, ""}};
    c.violation = {
        ViolationKind::hang,
        "hang",
        "hang: no task can run and nothing can wake writer1 in schedule(log_writer_wait)",
        60,
        {}};
    return c;
}

// A node's box: left, bottom, right, top, in points.
std::vector<double> box(Agnode_t* n) {
    const std::vector<double> xy = numbers(attr(n, "pos"));
    const double w = std::strtod(attr(n, "width").c_str(), nullptr) * 72 / 2;
    const double h = std::strtod(attr(n, "height").c_str(), nullptr) * 72 / 2;
    if (xy.size() != 2 || w <= 0 || h <= 0) return {};
    return {xy[0] - w, xy[1] - h, xy[0] + w, xy[1] + h};
}

// Draws every broken variant's counterexample as DOT and hands it, read back, to `check`.
void for_each_drawing(void (*check)(const Counterexample&, Agraph_t*)) {
    CHECK_TEXT(!broken_variants().empty(), "no shipped variant is declared broken");
    for (const Counterexample& c : broken_variants()) {
        CHECK_TEXT(!c.trace.steps.empty(), (c.what + ": no counterexample").c_str());
        TempFile dot(".dot");
        write_trace_graph(c.trace, c.violation, dot.path(), /*full=*/true);
        DotFile read(dot.path());
        CHECK_TEXT(read.graph(), (c.what + ": the .dot does not read back").c_str());
        check(c, read.graph());
    }
}

} // namespace

TEST_GROUP(TraceGraph){};

TEST(TraceGraph, every_broken_variant_draws_a_node_per_step_a_lane_per_task_and_its_violation) {
    for_each_drawing(&check_drawing);
}

TEST(TraceGraph, every_broken_variant_puts_lanes_in_task_order_and_each_step_below_the_last) {
    for_each_drawing(&check_layout);
}

// A 1080-pixel screen at 96 dpi shows 810 pt; the drawing, caption and all, keeps below 780.
// A lane is a column no box of another lane reaches into (its lifeline runs there), and no two
// boxes of a lane overlap.
TEST(TraceGraph, a_60_step_trace_fits_a_screen_and_each_lane_is_a_column_of_separate_boxes) {
    const Counterexample c = sixty_steps();
    TempFile dot(".dot");
    write_trace_graph(c.trace, c.violation, dot.path(), /*full=*/true);
    DotFile read(dot.path());
    Agraph_t* g = read.graph();
    CHECK(g);
    check_drawing(c, g);
    check_layout(c, g);
    const std::vector<double> bb = numbers(attr(g, "bb"));
    CHECK_EQUAL(4u, bb.size());
    CHECK_TEXT(bb[3] - bb[1] <= 780,
               ("drawn " + std::to_string(bb[3] - bb[1]) + " pt tall").c_str());
    struct Placed {
        std::string name;
        std::size_t lane;
        std::vector<double> box;
    };
    std::vector<Placed> placed;
    for (std::size_t t = 0; t < c.trace.tasks.size(); ++t)
        placed.push_back({"lane" + std::to_string(t), t, {}});
    for (const TraceStep& s : c.trace.steps)
        placed.push_back({"s" + std::to_string(s.step), s.task_id, {}});
    for (const PendingTask& p : c.trace.pending)
        placed.push_back({"p" + std::to_string(p.task_id), p.task_id, {}});
    for (Placed& p : placed) {
        p.box = box(node(g, p.name));
        CHECK_EQUAL_TEXT(4u, p.box.size(), (p.name + " has no box").c_str());
    }
    for (const Placed& a : placed)
        for (const Placed& b : placed) {
            const std::string what = a.name + " and " + b.name;
            if (a.lane < b.lane) CHECK_TEXT(a.box[2] <= b.box[0], (what + " meet").c_str());
            if (a.lane != b.lane || a.name >= b.name) continue;
            const bool apart = a.box[2] <= b.box[0] || b.box[2] <= a.box[0] ||
                               a.box[3] <= b.box[1] || b.box[3] <= a.box[1];
            CHECK_TEXT(apart, (what + " overlap").c_str());
        }
}

TEST(TraceGraph, svg_png_and_pdf_render_as_what_their_extension_says) {
    const Counterexample c = no_pin();
    const struct {
        const char* extension;
        const char* magic; // near the start of every such file
    } formats[] = {{".svg", "<svg"}, {".png", "\x89PNG"}, {".pdf", "%PDF"}};
    for (const auto& f : formats) {
        TempFile file(f.extension);
        write_trace_graph(c.trace, c.violation, file.path());
        std::ifstream in(file.path(), std::ios::binary);
        std::string start(512, '\0');
        in.read(start.data(), static_cast<std::streamsize>(start.size()));
        start.resize(static_cast<std::size_t>(in.gcount()));
        CHECK_TEXT(contains(start, f.magic), f.extension);
    }
}

TEST(TraceGraph, a_deadlock_draws_its_wait_for_cycle_between_the_blocked_tasks) {
    const Protocol* p = find_registered_model("buffered-write");
    const Counterexample c = counterexample_of(*p, *p->find_variant("relock-before-dio-end"));
    CHECK_EQUAL(ViolationKind::deadlock, c.violation.kind);
    CHECK_EQUAL(2u, c.trace.pending.size());
    TempFile dot(".dot");
    write_trace_graph(c.trace, c.violation, dot.path());
    DotFile read(dot.path());
    Agraph_t* g = read.graph();
    CHECK(g);
    // Each blocked task, drawn red, points at the other: one edge with a head at each end.
    for (const PendingTask& blocked : c.trace.pending) {
        CHECK_TEXT(blocked.blocked && !blocked.holder.empty(), blocked.task.c_str());
        CHECK_EQUAL("red", attr(node(g, "p" + std::to_string(blocked.task_id)), "color"));
    }
    std::vector<std::string> waits;
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n))
        for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e))
            if (attr(e, "class") == "wait-for")
                waits.push_back(std::string(agnameof(agtail(e))) + " -> " + agnameof(aghead(e)) +
                                " " + attr(e, "dir"));
    CHECK_EQUAL(1u, waits.size());
    CHECK_EQUAL("p0 -> p1 both", waits.front());
    CHECK_EQUAL("truncate", c.trace.pending[0].holder);
    CHECK_EQUAL("write0", c.trace.pending[1].holder);
}

// The edges of class `cls`, "TAIL -> HEAD" each.
std::vector<std::string> edges_of_class(Agraph_t* g, const std::string& cls) {
    std::vector<std::string> out;
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n))
        for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e))
            if (attr(e, "class") == cls)
                out.push_back(std::string(agnameof(agtail(e))) + " -> " + agnameof(aghead(e)));
    return out;
}

// A use-after-free, and a double-free: an edge from the kfree() to the step that used the
// memory (or freed it again), drawn as reads-from edges are, across the lanes.
TEST(TraceGraph, a_use_after_free_draws_an_edge_from_the_kfree_to_the_use) {
    struct object {
        explicit object(const std::string& name) : count(name + ".count") {}
        atomic_t count;
    };
    const std::pair<const char*, void (*)(object*)> uses[] = {
        {"atomic_inc", [](object* obj) { atomic_inc(&obj->count); }},
        {"kfree", [](object* obj) { kfree(obj); }}};
    for (const auto& [what, use] : uses) {
        const Setup setup = [use] {
            auto* obj = kmalloc<object>("obj", "obj");
            spawn("user", [obj, use] {
                atomic_read(&obj->count);
                use(obj);
            });
            spawn("freer", [obj] { kfree(obj); });
        };
        const SearchResult r = check_model(setup);
        const Violation& v = only_violation(r, what);
        CHECK_EQUAL_TEXT(ViolationKind::use_after_free, v.kind, what);
        ReplayResult rr = replay(setup, r.findings.front().schedule, {});
        CHECK_TEXT(rr.ok && rr.outcome.violation, rr.error.c_str());
        const TraceStep* freed = nullptr; // the kfree() before the use (or the second one)
        for (const TraceStep& s : rr.trace.steps)
            if (s.operation == "kfree" && s.step < rr.outcome.violation->step) freed = &s;
        CHECK_TEXT(freed, what);
        TempFile dot(".dot");
        write_trace_graph(rr.trace, *rr.outcome.violation, dot.path());
        DotFile read(dot.path());
        CHECK(read.graph());
        const std::vector<std::string> edges = edges_of_class(read.graph(), "freed");
        CHECK_EQUAL_TEXT(1u, edges.size(), what);
        CHECK_EQUAL_TEXT("s" + std::to_string(freed->step) + " -> s" +
                             std::to_string(rr.outcome.violation->step),
                         edges.front(), what);
    }
}

TEST(TraceGraph, an_unknown_extension_is_refused_naming_it_and_the_valid_ones) {
    const Counterexample c = no_pin();
    const std::string path =
        (std::filesystem::temp_directory_path() / "lockcheck-graph-refused.txt").string();
    try {
        write_trace_graph(c.trace, c.violation, path);
        FAIL("a .txt path was accepted");
    } catch (const std::invalid_argument& e) {
        const std::string message = e.what();
        CHECK_TEXT(contains(message, "'.txt'"), message.c_str());
        CHECK_TEXT(contains(message, ".dot, .svg, .png, .pdf"), message.c_str());
        CHECK_TEXT(message.find('\n') == std::string::npos, message.c_str());
    }
    CHECK(!std::filesystem::exists(path));
}

TEST(TraceGraph, a_file_graphviz_cannot_write_is_a_runtime_error) {
    const Counterexample c = no_pin();
    CHECK_THROWS(std::runtime_error,
                 write_trace_graph(c.trace, c.violation, "/nonexistent-directory/trace.svg"));
}

// The model's line of each step is in its tooltip (a second line in every box would double the
// drawing's height), after the object's state; an SVG viewer shows it on hover.
TEST(TraceGraph, each_step_names_the_models_line_in_its_tooltip) {
    const Counterexample c = no_pin();
    TempFile dot(".dot");
    write_trace_graph(c.trace, c.violation, dot.path(), /*full=*/true);
    DotFile read(dot.path());
    Agraph_t* g = read.graph();
    CHECK(g);
    for (const TraceStep& s : c.trace.steps) {
        const std::string where = s.location.text();
        CHECK_TEXT(where.starts_with("rename_pin.cpp:"), where.c_str());
        const std::string tip = attr(node(g, "s" + std::to_string(s.step)), "tooltip");
        CHECK_TEXT(tip.ends_with("\\n" + where), tip.c_str());
    }
    TempFile svg(".svg");
    write_trace_graph(c.trace, c.violation, svg.path(), /*full=*/true);
    std::ifstream in(svg.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK_TEXT(contains(text, "&#10;" + c.trace.steps.front().location.text() + "\""),
               text.substr(0, 2000).c_str());
}

TEST(TraceGraph, a_pending_task_names_the_line_it_waits_at_in_its_tooltip) {
    const Protocol* p = find_registered_model("buffered-write");
    const Counterexample c = counterexample_of(*p, *p->find_variant("relock-before-dio-end"));
    TempFile dot(".dot");
    write_trace_graph(c.trace, c.violation, dot.path());
    DotFile read(dot.path());
    CHECK(read.graph());
    CHECK_EQUAL(2u, c.trace.pending.size());
    for (const PendingTask& t : c.trace.pending) {
        CHECK_EQUAL("buffered_write.cpp", t.location.file);
        CHECK_EQUAL(t.location.text(),
                    attr(node(read.graph(), "p" + std::to_string(t.task_id)), "tooltip"));
    }
}

// Folded, a drawing keeps every step: as its own box, or counted in a lane's "... N steps ..."
// box or a loop's turns box (its tooltip counts them); the violating step stays a box of its
// own, red.
TEST(TraceGraph, a_folded_drawing_counts_every_step_it_does_not_draw) {
    for (const Counterexample& c : broken_variants()) {
        const char* what = c.what.c_str();
        TempFile dot(".dot");
        write_trace_graph(c.trace, c.violation, dot.path());
        DotFile read(dot.path());
        Agraph_t* g = read.graph();
        CHECK_TEXT(g, what);
        std::size_t steps = nodes_of_class(g, "step").size();
        for (Agnode_t* n : nodes_of_class(g, "folded")) {
            const std::string label = attr(n, "label");
            CHECK_TEXT(label.starts_with("... ") && label.ends_with(" ..."), label.c_str());
            steps += std::strtoul(label.c_str() + 4, nullptr, 10);
        }
        for (Agnode_t* n : nodes_of_class(g, "turns")) {
            const std::string tooltip = attr(n, "tooltip");
            steps += std::strtoul(tooltip.c_str() + tooltip.find('(') + 1, nullptr, 10);
        }
        CHECK_EQUAL_TEXT(c.trace.steps.size(), steps, what);
        if (c.violation.kind != ViolationKind::final_check)
            CHECK_EQUAL_TEXT("red", attr(node(g, "s" + std::to_string(c.violation.step)), "color"),
                             what);
    }
}

// cil-push hotplug: the final check finds an item on no checkpoint. Its drawing outlines what
// put it there (the item added to cpu1's list, cpu1 going offline, the push's walk of the
// online CPUs), not the xc_ctx_lock operations of the last step.
TEST(TraceGraph, a_final_check_outlines_the_steps_that_changed_what_it_read) {
    const Protocol* p = find_registered_model("cil-push");
    const Counterexample c = counterexample_of(*p, *p->find_variant("hotplug"));
    TempFile dot(".dot");
    write_trace_graph(c.trace, c.violation, dot.path());
    DotFile read(dot.path());
    Agraph_t* g = read.graph();
    CHECK(g);
    std::vector<std::string> outlined;
    for (Agnode_t* n : nodes_of_class(g, "step"))
        if (attr(n, "color") == "red") outlined.push_back(attr(n, "label"));
    const auto outlines = [&outlined](const std::string& part) {
        return std::any_of(outlined.begin(), outlined.end(),
                           [&part](const std::string& l) { return contains(l, part); });
    };
    CHECK_TEXT(outlines("list_add_tail(xc_pcp@cpu1.p_cil)"), c.what.c_str());
    CHECK_TEXT(outlines("remove_cpu(1, cpu_online_mask)"), c.what.c_str());
    CHECK_TEXT(outlines("cpumask_next("), c.what.c_str());
    CHECK_TEXT(!outlines("xc_ctx_lock"), c.what.c_str());
}
