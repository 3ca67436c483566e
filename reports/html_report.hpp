// The --report page: one self-contained index.html with what was run (the exact command line,
// the sizes, the declared verdict), the run's summary and, for each counterexample, a heading
// that tells it from the others, its drawing (inline SVG) and its text trace with the
// violating row red, readable without a server.
#pragma once

#include <string>
#include <vector>

#include "json_report.hpp"

namespace lockcheck::detail {

// `text` with &, <, > and quotes as entities, for HTML text and attribute values.
std::string html_escaped(const std::string& text);

// Its traces name each step's line in the model and fit a window 1400 pixels wide: swim lanes
// where they fit, else a list that names each step's task (kPageColumns in the .cpp).
// `drawings[i]` is the SVG document of `report.counterexamples[i]` (empty: it could not be
// drawn, which the page says); `full_trace`: the traces fold no step. With report.worst_wait,
// a section shows it, drawn by `wait_drawing` (SVG; empty: not drawn).
std::string to_html(const RunReport& report, const std::vector<std::string>& drawings,
                    bool full_trace = false, const std::string& wait_drawing = "");

} // namespace lockcheck::detail
