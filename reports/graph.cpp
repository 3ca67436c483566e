// Drawing a trace with Graphviz: cgraph builds the graph, dot lays it out, a gvc plugin picked
// by the file's extension renders it. The contract for readers of the .dot is in graph.hpp;
// the looks and the layout constraints that keep lanes straight and time flowing down are here.
#include "graph.hpp"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <vector>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "text.hpp"

namespace lockcheck {

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

// The context and the graph, released in the order Graphviz needs (layout, graph, context).
struct Graphviz {
    GVC_t* gvc = gvContext();
    Agraph_t* graph = agopen(const_cast<char*>("trace"), Agdirected, nullptr);
    Graphviz() = default;
    Graphviz(const Graphviz&) = delete;
    Graphviz& operator=(const Graphviz&) = delete;
    ~Graphviz() {
        gvFreeLayout(gvc, graph); // a no-op if there is no layout
        agclose(graph);
        gvFreeContext(gvc);
    }
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

// As the text report prints an operation: mutex_lock(log_mutex) -> 1, set_bit(1, log_tree).
std::string pending_label(const PendingTask& p) {
    if (p.operation.empty()) return "unfinished";
    const std::string op = label(p.operation + "(" + p.object + ")");
    if (!p.blocked) return "next: " + op;
    return "blocked in " + op + (p.holder.empty() ? "" : "\\nwaits for " + label(p.holder));
}

constexpr const char* kRed = "red";
constexpr const char* kViolationFill = "#ffc8c8";
constexpr const char* kSyncColour = "#3060c0";
constexpr const char* kGrey = "#808080";
constexpr const char* kLaneFill = "#ececec";

void set_defaults(Agraph_t* g) {
    // Monospace, small and tight: a 60-step trace should fit a screen.
    agattr(g, AGRAPH, chars("fontname"), chars("Courier"));
    agattr(g, AGRAPH, chars("fontsize"), chars("10"));
    agattr(g, AGRAPH, chars("nodesep"), chars("0.25"));
    agattr(g, AGRAPH, chars("ranksep"), chars("0.05"));
    agattr(g, AGNODE, chars("shape"), chars("box"));
    agattr(g, AGNODE, chars("style"), chars("rounded"));
    agattr(g, AGNODE, chars("fontname"), chars("Courier"));
    agattr(g, AGNODE, chars("fontsize"), chars("9"));
    agattr(g, AGNODE, chars("height"), chars("0.16"));
    agattr(g, AGNODE, chars("margin"), chars("0.08,0.01"));
    agattr(g, AGNODE, chars("class"), chars(""));
    agattr(g, AGEDGE, chars("arrowsize"), chars("0.5"));
    agattr(g, AGEDGE, chars("color"), chars(kGrey));
    agattr(g, AGEDGE, chars("class"), chars(""));
}

Agedge_t* edge(Agraph_t* g, Agnode_t* from, Agnode_t* to) {
    return agedge(g, from, to, nullptr, 1);
}

// The drawing is a grid: row 0 names the tasks, row i holds step i, a last row what the
// unfinished tasks were about to do; column t is task t's lane, a filler standing in wherever
// the task did nothing. The lanes are not clusters, as dot reorders clusters freely and drops
// ordering constraints between them: here, in every row, invisible same-rank edges from each
// lane to the next pin the columns in task order, and each lane's lifeline (edges from row to
// row, heavy so they stay straight) keeps the rows in time order.
class TraceDrawing {
  public:
    TraceDrawing(Agraph_t* g, const Trace& trace, const Violation& violation)
        : g_(g), trace_(trace) {
        for (const TraceStep& s : trace.steps)
            if (s.step == violation.step) violating_ = &s;
        set_defaults(g);
        set(g, "label",
            label("VIOLATION (" + std::string(kind_name(violation.kind)) + ") at step " +
                  std::to_string(violation.step) + ": " + violation.message));
        set(g, "labelloc", "t");
        set(g, "fontcolor", kRed);
        add_rows();
        add_lifelines();
        add_syncs();
        add_waits();
    }

  private:
    void add_rows() {
        row({}, [this](std::size_t t) { return lane_head(t); });
        for (const TraceStep& s : trace_.steps)
            row("s" + std::to_string(s.step),
                [&](std::size_t t) { return t == s.task_id ? step_node(s) : nullptr; });
        if (trace_.pending.empty()) return;
        row("p", [this](std::size_t t) -> Agnode_t* {
            for (const PendingTask& p : trace_.pending)
                if (p.task_id == t) return pending_node(p);
            return nullptr;
        });
    }

    // A row named `name`: the node each lane draws there, or a filler keeping the lane's place.
    template <class Draw> void row(const std::string& name, Draw draw) {
        const std::size_t r = grid_.size();
        Agraph_t* rank = agsubg(g_, chars(("row" + std::to_string(r)).c_str()), 1);
        set(rank, "rank", "same");
        std::vector<Agnode_t*> cells;
        for (std::size_t t = 0; t < trace_.tasks.size(); ++t) {
            Agnode_t* n = draw(t);
            if (n) {
                last_drawn_[t] = r;
            } else {
                n = agnode(g_, chars(("f" + std::to_string(t) + "_" + name).c_str()), 1);
                // A sliver of the lifeline: edges end at a node's border, and an invisible
                // point would leave a gap in the line at every row.
                set(n, "label", "");
                set(n, "fixedsize", "true");
                set(n, "width", "0.014");
                set(n, "height", "0.04");
                set(n, "style", "filled");
                set(n, "color", kGrey);
                set(n, "penwidth", "0");
            }
            agsubnode(rank, n, 1);
            if (!cells.empty()) set(edge(g_, cells.back(), n), "style", "invis");
            cells.push_back(n);
        }
        grid_.push_back(std::move(cells));
    }

    static bool is_filler(Agnode_t* n) { return std::string(agget(n, chars("class"))).empty(); }

    Agnode_t* lane_head(std::size_t t) {
        Agnode_t* n = agnode(g_, chars(("lane" + std::to_string(t)).c_str()), 1);
        set(n, "label", label(trace_.tasks[t]));
        set(n, "class", "lane");
        set(n, "style", "filled");
        set(n, "fillcolor", kLaneFill);
        set(n, "color", kGrey);
        last_drawn_.push_back(0);
        return n;
    }

    Agnode_t* step_node(const TraceStep& s) {
        assert(s.task_id < trace_.tasks.size());
        Agnode_t* n = agnode(g_, chars(("s" + std::to_string(s.step)).c_str()), 1);
        steps_[s.step] = n;
        std::string text = label("#" + std::to_string(s.step) + " " + operation_text(s));
        // A preemption is a scheduling choice the bug may hinge on: a heavier border.
        if (s.preempted) {
            assert(&s != &trace_.steps.front());
            text += "\\npreempts " + label((&s - 1)->task);
            set(n, "penwidth", "2");
        }
        set(n, "label", text);
        set(n, "class", "step");
        if (!s.object.empty()) {
            // "log_writers = 1", "log_mutex: held by fsync0"
            const char* sep = s.state.rfind("= ", 0) == 0 ? " " : ": ";
            set(n, "tooltip", label(s.object + sep + s.state));
        }
        if (&s == violating_) {
            set(n, "style", "rounded,filled");
            set(n, "fillcolor", kViolationFill);
            set(n, "color", kRed);
            set(n, "penwidth", "2");
        } else if (violating_ && !s.object.empty() && s.object == violating_->object) {
            set(n, "color", kRed);
        }
        return n;
    }

    Agnode_t* pending_node(const PendingTask& p) {
        Agnode_t* n = agnode(g_, chars(("p" + std::to_string(p.task_id)).c_str()), 1);
        pending_[p.task] = n;
        set(n, "label", pending_label(p));
        set(n, "class", "pending");
        set(n, "color", p.blocked ? kRed : kGrey);
        set(n, "fontcolor", p.blocked ? kRed : kGrey);
        if (!p.blocked) set(n, "style", "rounded,dashed");
        return n;
    }

    // Program order: each lane's line from its name down to the last thing the task did;
    // below that, the lane only keeps its place.
    void add_lifelines() {
        for (std::size_t t = 0; t < trace_.tasks.size(); ++t) {
            for (std::size_t r = 1; r < grid_.size(); ++r) {
                Agedge_t* e = edge(g_, grid_[r - 1][t], grid_[r][t]);
                set(e, "weight", "100"); // straight
                set(e, "class", "program-order");
                if (is_filler(grid_[r][t])) set(e, "arrowhead", "none");
                if (r <= last_drawn_[t]) continue;
                set(e, "style", "invis");
                set(grid_[r][t], "style", "invis");
            }
        }
    }

    // What let a step go on, or the write it read: dashed, across lanes, moving nothing.
    void add_syncs() {
        for (const TraceStep& s : trace_.steps) {
            auto from = steps_.find(s.synced_from);
            if (!s.synced_from || from == steps_.end()) continue;
            Agedge_t* e = edge(g_, from->second, steps_.at(s.step));
            set(e, "style", "dashed");
            set(e, "color", kSyncColour);
            set(e, "constraint", "false");
            set(e, "weight", "0");
            set(e, "class", "sync");
        }
    }

    Agedge_t* wait_for(Agnode_t* waiter, Agnode_t* holder) {
        for (Agedge_t* e = agfstout(g_, waiter); e; e = agnxtout(g_, e))
            if (aghead(e) == holder && std::string(agget(e, chars("class"))) == "wait-for")
                return e;
        return nullptr;
    }

    // Who waits for whom at the end: from a blocked task to its holder's pending node, or, if
    // the holder finished, to the last thing it did. A deadlock shows as a cycle.
    void add_waits() {
        for (const PendingTask& p : trace_.pending) {
            if (!p.blocked || p.holder.empty()) continue;
            Agnode_t* holder = nullptr;
            if (auto it = pending_.find(p.holder); it != pending_.end())
                holder = it->second;
            else if (auto t = std::find(trace_.tasks.begin(), trace_.tasks.end(), p.holder);
                     t != trace_.tasks.end())
                holder = grid_[last_drawn_[t - trace_.tasks.begin()]][t - trace_.tasks.begin()];
            if (!holder) continue;
            Agnode_t* waiter = pending_.at(p.task);
            // Two tasks waiting for each other: one edge with two heads, as dot cannot route
            // two edges between the same nodes of a row when they are not neighbours.
            if (Agedge_t* back = wait_for(holder, waiter)) {
                set(back, "dir", "both");
                continue;
            }
            Agedge_t* e = edge(g_, waiter, holder);
            set(e, "color", kRed);
            set(e, "penwidth", "2");
            set(e, "constraint", "false");
            set(e, "weight", "0"); // never an ordering constraint between the lanes
            set(e, "class", "wait-for");
        }
    }

    Agraph_t* g_;
    const Trace& trace_;
    const TraceStep* violating_ = nullptr;
    std::vector<std::vector<Agnode_t*>> grid_; // [row][task]
    std::vector<std::size_t> last_drawn_;      // by task: the last row it has a node in
    std::map<std::uint32_t, Agnode_t*> steps_; // by step number
    std::map<std::string, Agnode_t*> pending_; // by task name
};

} // namespace

void write_trace_graph(const Trace& trace, const Violation& violation, const std::string& path) {
    const char* renderer = renderer_for(path);
    if (!renderer) throw std::invalid_argument(graph_format_problem(path));
    GraphvizMessages messages;
    Graphviz gv;
    const TraceDrawing drawing(gv.graph, trace, violation);
    const auto fail = [&](const char* stage) {
        return std::runtime_error("cannot " + std::string(stage) + " the trace graph '" + path +
                                  "': " + messages.line());
    };
    if (gvLayout(gv.gvc, gv.graph, "dot") != 0 || messages.failed()) throw fail("lay out");
    if (gvRenderFilename(gv.gvc, gv.graph, renderer, path.c_str()) != 0 || messages.failed())
        throw fail("write");
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

} // namespace lockcheck
