// Drawing a trace with Graphviz: cgraph builds the graph, we place its nodes on a grid of lanes
// and rows, Graphviz routes the edges and a gvc plugin picked by the file's extension renders
// it, in a child process. The contract for readers of the .dot is in graph.hpp; the looks and
// the grid are here.
#include "graph.hpp"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <vector>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "child_process.hpp"
#include "text.hpp"

namespace lockcheck::detail {

namespace {

struct Format {
    const char* extension;
    const char* renderer; // gvc's name for it
};

constexpr Format kFormats[] = {{".dot", "dot"}, {".svg", "svg"}, {".png", "png"}, {".pdf", "pdf"}};

std::string extension_of(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

// gvc's renderer for the file's extension, or null.
const char* renderer_for(const std::string& path) {
    const std::string ext = extension_of(path);
    for (const Format& f : kFormats)
        if (ext == f.extension) return f.renderer;
    return nullptr;
}

// Graphviz reports through one process-wide callback and keeps the worst level it saw. While
// a drawing is made, its messages are collected so that a failure can say why, instead of
// going to stderr.
std::string* g_messages = nullptr;

int collect(char* text) {
    if (g_messages) *g_messages += text;
    return 0;
}

class GraphvizMessages {
  public:
    GraphvizMessages() : previous_(agseterrf(&collect)) {
        g_messages = &text_;
        agreseterrors();
    }
    ~GraphvizMessages() {
        agseterrf(previous_);
        g_messages = nullptr;
    }
    GraphvizMessages(const GraphvizMessages&) = delete;
    GraphvizMessages& operator=(const GraphvizMessages&) = delete;

    bool failed() const { return agerrors() >= AGERR; }
    // What Graphviz said, on one line.
    std::string line() const {
        std::string out;
        for (char c : text_)
            if (c != '\n')
                out += c;
            else if (!out.empty() && out.back() != ' ')
                out += "; ";
        while (!out.empty() && (out.back() == ' ' || out.back() == ';'))
            out.pop_back();
        return out.empty() ? "Graphviz gave no reason" : out;
    }

  private:
    agusererrf previous_;
    std::string text_;
};

// One Graphviz context for every drawing of the process (a child's, see render()), never
// freed. Graphviz 2.42's pango plugin remembers the last font name it measured as a pointer
// into the context's font table and compares the next one with it: a context freed between two
// drawings made the second read freed memory (AddressSanitizer found it in the suite).
GVC_t* graphviz_context() {
    static GVC_t* const gvc = gvContext();
    return gvc;
}

// A graph and its layout, released in the order Graphviz needs (layout, graph).
struct Graph {
    Agraph_t* graph = agopen(const_cast<char*>("trace"), Agdirected, nullptr);
    Graph() = default;
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;
    ~Graph() {
        gvFreeLayout(graphviz_context(), graph); // a no-op if there is no layout
        agclose(graph);
    }
};

// Where an edge between two lanes meets its boxes. neato routes an edge that leaves a box by
// a side (a compass port) with its multispline router, which first triangulates every box with
// GTS's constrained Delaunay triangulation; GTS aborts the process (g_assert, "cdt.c:887
// remove_intersected_edge") on some degenerate arrangements, and a lane of boxes of one width
// and one height stacked 1.5 pt apart, such as a spin loop's turns, is one. An edge between
// box centres goes through neato's visibility-graph router instead, which no box layout breaks.
enum class EdgeEnds : std::uint8_t {
    facing_sides, // the looks we want: the edge runs down the space between the lanes
    centres,      // what is drawn when the first dies
};

// cgraph predates const: it copies the strings it is given but takes them as char*.
char* chars(const char* s) {
    return const_cast<char*>(s);
}

void set(void* obj, const char* name, const std::string& value) {
    agsafeset(obj, chars(name), chars(value.c_str()), chars(""));
}

// Graphviz reads \n, \l, \N... in a label as escapes: a backslash in the model's text must
// stay one. Escape each piece of text, then join lines with "\\n".
std::string label(const std::string& text) {
    std::string out;
    for (char ch : text) {
        if (ch == '\\') out += '\\';
        out += ch;
    }
    return out;
}

// Lines of text as one label or tooltip, each escaped.
std::string label_lines(const std::vector<std::string>& text) {
    std::string out;
    for (const std::string& line : text)
        out += (out.empty() ? "" : "\\n") + label(line);
    return out;
}

// As the text report prints an operation: mutex_lock(log_mutex) -> 1, set_bit(1, log_tree).
std::vector<std::string> pending_lines(const PendingTask& p) {
    if (p.operation.empty()) return {"unfinished"};
    const std::string op = p.operation + "(" + p.object + ")";
    if (!p.blocked) return {"next: " + op};
    if (p.holder.empty()) return {"blocked in " + op};
    return {"blocked in " + op, "waits for " + p.holder};
}

constexpr const char* kRed = "red";
constexpr const char* kViolationFill = "#ffc8c8";
constexpr const char* kSyncColour = "#3060c0";
constexpr const char* kStaleColour = "#c06000";
constexpr const char* kGrey = "#808080";
constexpr const char* kLaneFill = "#ececec";

// The grid's measures, in points. A row is a box one line tall (Graphviz rounds heights to whole
// points) and a sliver of lifeline: 60 steps stay under 1,000 pixels, where dot keeps rows at
// least ~20 pt apart. Text is 7.5 pt, 10 pixels at 96 dpi, which hints crisply. Widths are
// counted from the text, as Courier advances 0.6 em a character; counting 0.62 em keeps a
// label inside its lane whichever monospace font stands in for Courier.
constexpr double kFontSize = 7.5;
constexpr double kCharWidth = 0.62 * kFontSize;
constexpr double kLineHeight = 10;
constexpr double kMarginX = 3; // between a label and the sides of its box
constexpr double kRowGap = 1.5;
constexpr double kLaneGap = 48; // room for sync edges between two lanes to keep apart
constexpr double kPointsPerInch = 72;

std::string points(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
}

std::string inches(double value) {
    return points(value / kPointsPerInch);
}

void set_defaults(Agraph_t* g) {
    agattr(g, AGRAPH, chars("fontname"), chars("Courier"));
    agattr(g, AGRAPH, chars("fontsize"), chars("10"));
    // Route edges around the boxes, which stand kRowGap apart: the margin the router keeps
    // around each box must leave a way between them, or it draws every edge straight.
    agattr(g, AGRAPH, chars("splines"), chars("true"));
    agattr(g, AGRAPH, chars("esep"), chars("+0.5"));
    agattr(g, AGNODE, chars("shape"), chars("box"));
    agattr(g, AGNODE, chars("style"), chars("rounded"));
    agattr(g, AGNODE, chars("fontname"), chars("Courier"));
    agattr(g, AGNODE, chars("fontsize"), chars(points(kFontSize).c_str()));
    agattr(g, AGNODE, chars("width"), chars("0")); // as wide as its label
    agattr(g, AGNODE, chars("margin"), chars((inches(kMarginX) + ",0").c_str()));
    agattr(g, AGNODE, chars("class"), chars(""));
    agattr(g, AGEDGE, chars("arrowsize"), chars("0.5"));
    agattr(g, AGEDGE, chars("color"), chars(kGrey));
    agattr(g, AGEDGE, chars("class"), chars(""));
}

Agedge_t* edge(Agraph_t* g, Agnode_t* from, Agnode_t* to) {
    return agedge(g, from, to, nullptr, 1);
}

// The drawing is a grid: row 0 names the tasks, row i holds step i, a last row what the
// unfinished tasks were about to do; column t is task t's lane. We place every node ourselves
// and pin it there: Graphviz only routes the edges and renders.
class TraceDrawing {
  public:
    // A counterexample: `violating` is its step that broke the property (null: none did),
    // the title red. `freed_use`: the violation is a use-after-free (or a double-free), whose
    // cited kfree() an edge ties to it.
    TraceDrawing(Agraph_t* g, const Trace& trace, const std::string& title,
                 const TraceStep* violating, bool freed_use, bool full, EdgeEnds ends)
        : g_(g), trace_(trace), story_(story(trace)), full_(full), ends_(ends),
          violating_(violating), freed_use_(freed_use) {
        draw(title);
        set(g, "fontcolor", kRed);
    }
    // A named operation's wait: the steps it waited are boxes in its task's lane, each tied to
    // whom it waited for.
    TraceDrawing(Agraph_t* g, const Trace& trace, const std::string& title, const OpSpan& wait,
                 bool full, EdgeEnds ends)
        : g_(g), trace_(trace), story_(wait_story(trace, wait)), full_(full), ends_(ends),
          violating_(step_of(trace, trace.violating_step)), wait_(&wait) {
        draw(title);
    }

  private:
    void draw(const std::string& title) {
        set_defaults(g_);
        set(g_, "label", label(title));
        set(g_, "labelloc", "t");
        add_rows();
        pin();
        add_lifelines();
        add_syncs();
        add_waits();
        add_chains();
    }

    static const TraceStep* step_of(const Trace& trace, std::uint32_t step) {
        for (const TraceStep& s : trace.steps)
            if (step && s.step == step) return &s;
        return nullptr;
    }

    // What a node of the grid shows, as much as its size needs.
    struct Cell {
        Agnode_t* node = nullptr; // none where the task did nothing
        std::size_t lines = 0;
        std::size_t columns = 0; // characters on the longest line
    };
    struct Step {
        Agnode_t* node;
        TaskId task;
    };

    void add_rows() {
        grid_.emplace_back(trace_.tasks.size());
        for (std::size_t t = 0; t < trace_.tasks.size(); ++t)
            lane_head(t);
        for (const TraceRow& row : trace_rows(trace_, story_, full_)) {
            grid_.emplace_back(trace_.tasks.size());
            if (row.folded) {
                folded_nodes(row);
                continue;
            }
            const TraceStep& s = trace_.steps[row.first];
            step_node(s);
            if (wait_ && s.step > wait_->begun_after && s.step <= wait_->ended_at) waited_nodes(s);
        }
        if (trace_.pending.empty()) return;
        grid_.emplace_back(trace_.tasks.size());
        for (const PendingTask& p : trace_.pending)
            pending_node(p);
    }

    // Node `name` in the last row, in task t's lane.
    Agnode_t* put(std::size_t t, const std::string& name, const std::vector<std::string>& lines) {
        assert(t < trace_.tasks.size() && !lines.empty());
        Agnode_t* n = agnode(g_, chars(name.c_str()), 1);
        std::size_t columns = 0;
        for (const std::string& line : lines)
            columns = std::max(columns, line.size());
        set(n, "label", label_lines(lines));
        grid_.back()[t] = {n, lines.size(), columns};
        return n;
    }

    void lane_head(std::size_t t) {
        Agnode_t* n = put(t, "lane" + std::to_string(t), {trace_.tasks[t]});
        set(n, "class", "lane");
        set(n, "style", "filled");
        set(n, "fillcolor", kLaneFill);
        set(n, "color", kGrey);
    }

    void step_node(const TraceStep& s) {
        std::string text = "#" + std::to_string(s.step) + " " + operation_text(s);
        // A preemption is a scheduling choice the bug may hinge on: a heavier border, and
        // whom it preempted on the same line, as a second one would make the row taller.
        if (s.preempted) {
            assert(&s != &trace_.steps.front());
            text += " (preempts " + (&s - 1)->task + ")";
        }
        Agnode_t* n = put(s.task_id, "s" + std::to_string(s.step), {text});
        steps_[s.step] = {n, s.task_id};
        if (s.preempted) set(n, "penwidth", "2");
        set(n, "class", "step");
        // The object's state after the step ("log_writers = 1", "log_mutex: held by fsync0")
        // and the model's line that made it: a tooltip, as a second line in every box would
        // double the drawing's height.
        std::vector<std::string> tip;
        if (!s.object.empty())
            tip.push_back(s.object + (s.state.rfind("= ", 0) == 0 ? " " : ": ") + s.state);
        if (s.location.known()) tip.push_back(s.location.text());
        if (!tip.empty()) set(n, "tooltip", label_lines(tip));
        if (&s == violating_) {
            set(n, "style", "rounded,filled");
            set(n, "fillcolor", kViolationFill);
            set(n, "color", kRed);
            set(n, "penwidth", "2");
        } else if (story_.cause[static_cast<std::size_t>(&s - trace_.steps.data())]) {
            set(n, "color", kRed);
        }
    }

    // The shown wait's task, and each task of its blocking chain, waited while `s` was taken:
    // a red dashed box in its lane ("~ waits on log_mutex"), whose tooltip is the chain.
    void waited_nodes(const TraceStep& s) {
        const std::vector<WaitLink> chain = blocking_chain(s, wait_->task_id);
        for (const WaitLink& l : chain) {
            const std::string what = l.object.empty() ? "in " + l.operation : "on " + l.object;
            Agnode_t* n =
                put(l.task_id, "w" + std::to_string(s.step) + "_" + std::to_string(l.task_id),
                    {"~ waits " + what});
            set(n, "class", "waited");
            set(n, "style", "rounded,dashed");
            set(n, "color", kRed);
            set(n, "fontcolor", kRed);
            set(n, "tooltip", label(chain_text(chain)));
        }
        if (!chain.empty()) chains_.push_back({grid_.size() - 1, chain});
    }

    // Each link of a shown chain: from the waiting task's box to its holder's in the same row
    // (the step it took, or its own wait), where the holder has one.
    void add_chains() {
        for (const auto& [row, chain] : chains_)
            for (const WaitLink& l : chain) {
                if (!l.holder_id) continue;
                Agnode_t* holder = grid_[row][*l.holder_id].node;
                if (!holder) continue;
                Agedge_t* e = edge(g_, grid_[row][l.task_id].node, holder);
                facing_sides(e, l.task_id, *l.holder_id);
                set(e, "color", kRed);
                set(e, "class", "wait-for");
            }
    }

    // A run of steps the violation does not depend on, or a loop's repeated turns: one box in
    // each lane that has some (the turns' tooltip counts their steps).
    void folded_nodes(const TraceRow& row) {
        std::vector<std::size_t> count(trace_.tasks.size(), 0);
        for (std::size_t i = row.first; i <= row.last; ++i)
            ++count[trace_.steps[i].task_id];
        for (std::size_t t = 0; t < count.size(); ++t) {
            if (!count[t]) continue;
            Agnode_t* n = put(t, "f" + std::to_string(grid_.size() - 1) + "_" + std::to_string(t),
                              {row.turns ? turns_text(row.turns, /*ascii=*/true)
                                         : folded_text(count[t], "", /*ascii=*/true)});
            set(n, "class", row.turns ? "turns" : "folded");
            if (row.turns)
                set(n, "tooltip",
                    "steps " + std::to_string(trace_.steps[row.first].step) + "-" +
                        std::to_string(trace_.steps[row.last].step) + " (" +
                        std::to_string(count[t]) + " steps)");
            set(n, "style", "rounded,dashed");
            set(n, "color", kGrey);
            set(n, "fontcolor", kGrey);
        }
    }

    void pending_node(const PendingTask& p) {
        Agnode_t* n = put(p.task_id, "p" + std::to_string(p.task_id), pending_lines(p));
        set(n, "class", "pending");
        if (p.location.known()) set(n, "tooltip", label(p.location.text()));
        set(n, "color", p.blocked ? kRed : kGrey);
        set(n, "fontcolor", p.blocked ? kRed : kGrey);
        if (!p.blocked) set(n, "style", "rounded,dashed");
    }

    static double width_of(const Cell& c) { return c.columns * kCharWidth + 2 * kMarginX; }
    static double height_of(const Cell& c) { return c.lines * kLineHeight; }

    // Each lane as wide as its widest box, in task order; each row as tall as its tallest box,
    // in time order downwards; every box centred in its cell.
    void pin() {
        std::vector<double> x(trace_.tasks.size());
        double left = 0;
        for (std::size_t t = 0; t < x.size(); ++t) {
            double width = 0;
            for (const std::vector<Cell>& row : grid_)
                width = std::max(width, width_of(row[t]));
            x[t] = left + width / 2;
            left += width + kLaneGap;
        }
        double top = 0;
        for (const std::vector<Cell>& row : grid_) {
            double height = 0;
            for (const Cell& c : row)
                height = std::max(height, height_of(c));
            for (std::size_t t = 0; t < row.size(); ++t) {
                if (!row[t].node) continue;
                set(row[t].node, "height", inches(height_of(row[t])));
                set(row[t].node, "pos", points(x[t]) + "," + points(top - height / 2) + "!");
            }
            top -= height + kRowGap;
        }
    }

    // Program order: each lane's line from its name down to the last thing the task did.
    // Without arrowheads: two rows are too close for one, and time flows down anyway.
    void add_lifelines() {
        for (std::size_t t = 0; t < trace_.tasks.size(); ++t) {
            Agnode_t* above = nullptr;
            for (const std::vector<Cell>& row : grid_) {
                if (!row[t].node) continue;
                if (above) {
                    Agedge_t* e = edge(g_, above, row[t].node);
                    set(e, "arrowhead", "none");
                    set(e, "class", "program-order");
                }
                above = row[t].node;
            }
        }
    }

    // From the side of one box to the side of the other that faces it: the router then runs
    // the edge down the space between the lanes, not through a sliver between two rows to the
    // top or bottom of a box.
    void facing_sides(Agedge_t* e, std::size_t from, std::size_t to) {
        if (from == to || ends_ == EdgeEnds::centres) return;
        set(e, "tailport", from < to ? "e" : "w");
        set(e, "headport", from < to ? "w" : "e");
    }

    // An edge across lanes from step `from` (0: none) to `s`, unless either end is folded.
    void cross_lanes(std::uint32_t from_step, const TraceStep& s, const char* style,
                     const char* colour, const char* label, const char* cls) {
        auto from = steps_.find(from_step);
        if (!from_step || from == steps_.end() || !steps_.count(s.step)) return;
        Agedge_t* e = edge(g_, from->second.node, steps_.at(s.step).node);
        facing_sides(e, from->second.task, s.task_id);
        set(e, "style", style);
        set(e, "color", colour);
        if (label) set(e, "label", label);
        set(e, "class", cls);
    }

    // What let a step go on, or the write it read: dashed, across lanes. Under lkmm, the write
    // a read did not see yet: dotted, to the read. A use-after-free's kfree(): dashed red, to
    // the use (or the second kfree()).
    void add_syncs() {
        for (const TraceStep& s : trace_.steps)
            cross_lanes(s.synced_from, s, "dashed", kSyncColour, nullptr, "sync");
        for (const TraceStep& s : trace_.steps)
            cross_lanes(s.missed, s, "dotted", kStaleColour, "not yet seen", "stale");
        if (!violating_ || !freed_use_) return;
        for (std::uint32_t cited : trace_.cited)
            if (const TraceStep* s = step_of(trace_, cited); s && s->operation == "kfree")
                cross_lanes(cited, *violating_, "dashed", kRed, "freed", "freed");
    }

    Agedge_t* wait_for(Agnode_t* waiter, Agnode_t* holder) {
        for (Agedge_t* e = agfstout(g_, waiter); e; e = agnxtout(g_, e))
            if (aghead(e) == holder && std::string(agget(e, chars("class"))) == "wait-for")
                return e;
        return nullptr;
    }

    // Task t's pending node if it has one, else the last thing it did (or its name).
    Agnode_t* last_node(std::size_t t) const {
        for (auto row = grid_.rbegin(); row != grid_.rend(); ++row)
            if ((*row)[t].node) return (*row)[t].node;
        return nullptr;
    }

    // Who waits for whom at the end: from a blocked task to its holder's pending node, or, if
    // the holder finished, to the last thing it did. A deadlock shows as a cycle.
    void add_waits() {
        for (const PendingTask& p : trace_.pending) {
            const auto t = std::find(trace_.tasks.begin(), trace_.tasks.end(), p.holder);
            if (!p.blocked || t == trace_.tasks.end()) continue;
            const auto holder = static_cast<std::size_t>(t - trace_.tasks.begin());
            Agnode_t* waiter_node = last_node(p.task_id);
            Agnode_t* holder_node = last_node(holder);
            // Two tasks waiting for each other: one edge with two heads, as the router would
            // draw two edges between the same boxes on top of each other.
            if (Agedge_t* back = wait_for(holder_node, waiter_node)) {
                set(back, "dir", "both");
                continue;
            }
            Agedge_t* e = edge(g_, waiter_node, holder_node);
            facing_sides(e, p.task_id, holder);
            set(e, "color", kRed);
            set(e, "penwidth", "2");
            set(e, "class", "wait-for");
        }
    }

    Agraph_t* g_;
    const Trace& trace_;
    const Story story_;
    const bool full_;
    const EdgeEnds ends_;
    const TraceStep* violating_ = nullptr;
    const bool freed_use_ = false;
    const OpSpan* wait_ = nullptr;
    // The rows of the shown wait's steps, and its blocking chain at each.
    std::vector<std::pair<std::size_t, std::vector<WaitLink>>> chains_;
    std::vector<std::vector<Cell>> grid_; // [row][task]
    std::map<std::uint32_t, Step> steps_; // by step number
};

} // namespace

namespace {

// Makes the drawing `draw` puts on a graph and renders it into `path` with `render`, in a child
// process; if that child dies, once more with edges between box centres (see EdgeEnds).
template <class Draw>
void render(const std::string& path, RenderGraph render_graph, const Draw& draw) {
    if (!renderer_for(path)) throw std::invalid_argument(graph_format_problem(path));
    const auto attempt = [&](EdgeEnds ends) {
        return run_in_child([&] {
            Graph g;
            draw(g.graph, ends);
            render_graph(g.graph, path);
        });
    };
    ChildOutcome drawn = attempt(EdgeEnds::facing_sides);
    if (drawn.signal) drawn = attempt(EdgeEnds::centres);
    if (drawn.ok) return;
    if (!drawn.signal) throw std::runtime_error(drawn.message); // the renderer's own error
    throw std::runtime_error("cannot draw the trace graph '" + path + "': the renderer " +
                             drawn.message);
}

} // namespace

void render_with_graphviz(Agraph_t* graph, const std::string& path) {
    const char* renderer = renderer_for(path);
    if (!renderer) throw std::invalid_argument(graph_format_problem(path));
    GraphvizMessages messages;
    GVC_t* gvc = graphviz_context();
    const auto fail = [&](const char* stage) {
        return std::runtime_error("cannot " + std::string(stage) + " the trace graph '" + path +
                                  "': " + messages.line());
    };
    // neato -n2: every node stays where its "pos" pins it, in points; only edges are routed.
    if (gvLayout(gvc, graph, "nop2") != 0 || messages.failed()) throw fail("lay out");
    if (gvRenderFilename(gvc, graph, renderer, path.c_str()) != 0 || messages.failed())
        throw fail("write");
}

void write_trace_graph(const Trace& trace, const Violation& violation, const std::string& path,
                       bool full, RenderGraph render_graph) {
    // A final check breaks after every step: no step is the violating one.
    const TraceStep* violating = nullptr;
    if (violation.kind != ViolationKind::final_check)
        for (const TraceStep& s : trace.steps)
            if (s.step == violation.step) violating = &s;
    const std::string title = "VIOLATION (" + std::string(kind_name(violation.kind)) +
                              ") at step " + std::to_string(violation.step) + ": " +
                              violation.headline();
    render(path, render_graph, [&](Agraph_t* g, EdgeEnds ends) {
        return TraceDrawing(g, trace, title, violating,
                            violation.kind == ViolationKind::use_after_free, full, ends);
    });
}

void write_wait_graph(const Trace& trace, const OpSpan& wait, const std::string& path, bool full,
                      RenderGraph render_graph) {
    const std::string title =
        "worst wait of " + wait.op + ": " + wait.task + " waited " + std::to_string(wait.waited) +
        (wait.waited == 1 ? " step" : " steps") + ", from step " +
        std::to_string(wait.begun_after + 1) + " to step " + std::to_string(wait.ended_at);
    render(path, render_graph, [&](Agraph_t* g, EdgeEnds ends) {
        return TraceDrawing(g, trace, title, wait, full, ends);
    });
}

std::string graph_format_problem(const std::string& path) {
    if (renderer_for(path)) return "";
    std::string valid;
    for (const Format& f : kFormats)
        valid += std::string(valid.empty() ? "" : ", ") + f.extension;
    const std::string ext = extension_of(path);
    const std::string what =
        ext.empty() ? "it has no extension" : "unknown extension '" + ext + "'";
    return "cannot draw the trace as '" + path + "': " + what + " (use " + valid + ")";
}

} // namespace lockcheck::detail
