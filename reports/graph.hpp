// The counterexample as a Graphviz drawing: a lane per task, time flowing down, the waits and
// reads tying the lanes together, the violating step in red. cgraph builds it, we place its
// nodes, the Graphviz library routes and renders it (never printing DOT text or running dot).
#pragma once

#include <string>

#include "checker/trace.hpp"
#include "scheduler/violation.hpp"

struct Agraph_s; // cgraph's Agraph_t

namespace lockcheck::detail {

// The last stage of a drawing: lays out `graph`, whose nodes are pinned where they go, and
// writes it to `path` in the format its extension names; throws std::runtime_error if it
// cannot. It runs in a child process (reports/child_process.hpp), which may die.
using RenderGraph = void (*)(Agraph_s* graph, const std::string& path);
// Graphviz's: neato -n2 routes the edges around the boxes, a gvc plugin renders.
void render_with_graphviz(Agraph_s* graph, const std::string& path);

// Writes the counterexample as a graph; the format follows the file's extension: .dot (with
// the layout's coordinates), .svg, .png, .pdf. Throws std::invalid_argument with a one-line
// message naming the extension and the valid ones, and std::runtime_error if Graphviz cannot
// render or write the file. Not thread-safe: Graphviz keeps global state. `render` makes the
// drawing in a child process: a library that aborts ends that child, never the caller, and is
// a runtime_error naming the signal and the library's last words. Graphviz's GTS router aborts
// on some layouts of edges that leave boxes by their sides; such a drawing is made again with
// edges between the boxes' centres, which Graphviz routes without it.
//
// What the drawing promises to tools that read the .dot: step N is node "sN" with
// class="step", and the violating step alone has style "filled" and color "red" (none for a
// final check, which breaks after every step); the other steps the violation names or whose
// changes the broken property read have color "red" unfilled; unless `full`, each run of steps
// the violation does not depend on is one node per lane, "fR_T" for row R, lane T, with
// class="folded", labelled "... N steps ...", and a loop's repeated turns (trace_rows()) are
// likewise "fR_T" with class="turns", labelled "... N more turns of the same loop ...", their
// tooltip "steps A-B (M steps)" (M of them task T's); task T's lane is headed by node "laneT"
// (class="lane", labelled with its name) and every node of the lane has its x; a step's tooltip
// ends with the model's line that made it ("rename_pin.cpp:142 btrfs_sync_log"); a
// use-after-free (or a double-free) has an edge of class="freed" from the kfree() step it cites
// to the violating step; a task unfinished at the end is node "pT" (class="pending", its
// tooltip the line of what it was about to do), and a blocked one has an edge of
// class="wait-for" to the node of the task it waits for (one edge with dir=both when two tasks
// wait for each other).
void write_trace_graph(const Trace& trace, const Violation& violation, const std::string& path,
                       bool full = false, RenderGraph render = &render_with_graphviz);
// The execution where the named operation of `wait` waited, drawn as a counterexample is,
// titled with the wait; the steps it waited are folded in none, and each one's blocking chain
// is drawn: a node "wSTEP_T" (class="waited") in the lane of each task T of the chain, with an
// edge of class="wait-for" to the node of the task it waited for in the same row, if any.
void write_wait_graph(const Trace& trace, const OpSpan& wait, const std::string& path,
                      bool full = false, RenderGraph render = &render_with_graphviz);
// Empty if write_trace_graph draws `path`'s format, else why not (the message it would throw):
// lets a caller refuse a bad file name before the work of a check.
std::string graph_format_problem(const std::string& path);

} // namespace lockcheck::detail
