// The machine-readable reports: a JSON report read back gives every field it was written
// with, says its verdict and exit code, validates against the shipped schema, two runs of one
// check differ only in elapsed time, and bad documents are refused naming the field at fault;
// the JUnit XML parses with a real XML parser (libxml2), has a test case per run, a failure
// per violation and a skip per run that could not look everywhere, and carries any text
// unharmed; the HTML report tells its counterexamples apart.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "checker/protocol.hpp"
#include "cli/check_command.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "reports/html_report.hpp"
#include "reports/json_report.hpp"
#include "reports/junit.hpp"
#include "seqcount_hang.hpp"

// Before CppUTest, whose operator new macros break the ICU headers libxml2 includes.
#include <libxml/parser.h>
#include <libxml/xpath.h>

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// What the command line would report for `lockcheck MODEL --variant VARIANT` at the default
// sizes, search and depth, without minimizing: each finding replayed into its full trace.
RunReport check_variant(const std::string& model, const std::string& variant) {
    const Protocol& p = *find_registered_model(model);
    cli::CheckRequest request;
    request.protocol = &p;
    request.search.search = kDefaultSearch;
    request.variant = *p.find_variant(variant);
    request.values = p.default_values();
    request.options.depth = p.depth_for(request.variant);
    const Setup setup = [&request] { request.protocol->setup(request.variant, request.values); };
    const SearchResult result = check_model(setup, request.search.search, request.options);

    RunReport r;
    r.summary.model = model;
    r.summary.variant = variant;
    r.summary.strategy = search_name(request.search.search);
    r.summary.bound = "depth " + std::to_string(request.options.depth);
    r.summary.stats = result.stats;
    r.summary.violations = result.findings.size();
    for (std::size_t i = 0; i < p.parameters.size(); ++i)
        r.summary.parameters.emplace_back(p.parameters[i].name, request.values[i]);
    r.summary.judgement = judge(p.variants[request.variant].expect, result.findings, r.summary);
    r.depth = request.options.depth;
    for (const Finding& f : result.findings) {
        ReplayResult rr = replay(setup, f.schedule, request.options);
        CHECK_TEXT(rr.ok, rr.error.c_str());
        r.summary.counterexamples.push_back({.preemptions = rr.trace.preemptions(),
                                             .steps = rr.outcome.steps,
                                             .minimized = false,
                                             .found_preemptions = rr.trace.preemptions(),
                                             .found_steps = rr.outcome.steps});
        r.counterexamples.push_back({f.violation, f.schedule, std::move(rr.trace),
                                     cli::replay_command(request, f.schedule)});
    }
    return r;
}

// --- field-by-field comparison, naming the field that differs ---

// Declared before the templates, so that a vector's elements find their overload.
void same(const CallSite& e, const CallSite& a, const std::string& at);
void same(const Counters& e, const Counters& a, const std::string& at);
void same(const LockHolds& e, const LockHolds& a, const std::string& at);
void same(const OpWaits& e, const OpWaits& a, const std::string& at);
void same(const CounterexampleSize& e, const CounterexampleSize& a, const std::string& at);
void same(const TraceStep& e, const TraceStep& a, const std::string& at);
void same(const PendingTask& e, const PendingTask& a, const std::string& at);
void same(const Counterexample& e, const Counterexample& a, const std::string& at);
void same(const std::pair<std::string, int>& e, const std::pair<std::string, int>& a,
          const std::string& at);
void same(const PropertyStats& e, const PropertyStats& a, const std::string& at);

template <class T> void same(const T& expected, const T& actual, const std::string& field) {
    CHECK_EQUAL_TEXT(expected, actual, field.c_str());
}

void same(const std::optional<std::int64_t>& expected, const std::optional<std::int64_t>& actual,
          const std::string& field) {
    same(expected.has_value(), actual.has_value(), field + " (present)");
    if (expected && actual) same(*expected, *actual, field);
}

template <class T>
void same(const std::vector<T>& expected, const std::vector<T>& actual, const std::string& field) {
    same(expected.size(), actual.size(), field + ".size()");
    for (std::size_t i = 0; i < expected.size() && i < actual.size(); ++i)
        same(expected[i], actual[i], field + "[" + std::to_string(i) + "]");
}

void same(const CallSite& e, const CallSite& a, const std::string& at) {
    same(e.file, a.file, at + ".file");
    same(e.line, a.line, at + ".line");
    same(e.function, a.function, at + ".function");
}

void same(const Counters& e, const Counters& a, const std::string& at) {
    same(e.sleeps, a.sleeps, at + ".sleeps");
    same(e.wakeups, a.wakeups, at + ".wakeups");
    same(e.spins, a.spins, at + ".spins");
}

void same(const LockHolds& e, const LockHolds& a, const std::string& at) {
    same(e.lock, a.lock, at + ".lock");
    same(e.stats.acquisitions, a.stats.acquisitions, at + ".acquisitions");
    same(e.stats.contended, a.stats.contended, at + ".contended");
    same(e.stats.sleeps, a.stats.sleeps, at + ".sleeps");
    same(e.stats.holds, a.stats.holds, at + ".holds");
    same(e.stats.steps, a.stats.steps, at + ".steps");
    same(e.stats.longest, a.stats.longest, at + ".longest");
}

void same(const OpWaits& e, const OpWaits& a, const std::string& at) {
    same(e.op, a.op, at + ".op");
    same(e.count, a.count, at + ".count");
    same(e.total, a.total, at + ".total");
    same(e.worst, a.worst, at + ".worst");
    same(format_schedule(e.worst_schedule), format_schedule(a.worst_schedule),
         at + ".worst_schedule");
}

void same(const PropertyStats& e, const PropertyStats& a, const std::string& at) {
    same(std::string(property_kind_name(e.kind)), std::string(property_kind_name(a.kind)),
         at + ".kind");
    same(e.name, a.name, at + ".name");
    same(e.evaluations, a.evaluations, at + ".evaluations");
    same(e.after_release, a.after_release, at + ".after_release");
    same(e.release, a.release, at + ".release");
}

void same(const std::optional<Judgement>& e, const std::optional<Judgement>& a,
          const std::string& at) {
    same(e.has_value(), a.has_value(), at + " (present)");
    if (!e || !a) return;
    same(e->expected.expects_violation, a->expected.expects_violation, "expected.verdict");
    same(e->expected.kind, a->expected.kind, "expected.kind");
    same(e->expected.property, a->expected.property, "expected.property");
    same(std::string(agreement_name(e->agreement)), std::string(agreement_name(a->agreement)),
         at + ".agreement");
    same(e->text, a->text, at + ".text");
}

void same(const SearchStats& e, const SearchStats& a, const std::string& at) {
    same(e.executions, a.executions, at + ".executions");
    same(e.cut, a.cut, at + ".cut");
    same(e.sleep_blocked, a.sleep_blocked, at + ".sleep_blocked");
    same(e.steps, a.steps, at + ".steps");
    same(e.deepest, a.deepest, at + ".deepest");
    same(e.tasks, a.tasks, at + ".tasks");
    same(e.stopped_by, a.stopped_by, at + ".stopped_by");
    same(e.elapsed_seconds, a.elapsed_seconds, at + ".elapsed_seconds");
    same(e.minimizing_seconds, a.minimizing_seconds, at + ".minimizing_seconds");
    same(e.threads, a.threads, at + ".threads");
    same(e.total, a.total, at + ".total");
    same(e.most, a.most, at + ".most");
    same(e.holds, a.holds, at + ".holds");
    same(e.ops, a.ops, at + ".ops");
    same(e.properties, a.properties, at + ".properties");
}

void same(const CounterexampleSize& e, const CounterexampleSize& a, const std::string& at) {
    same(e.preemptions, a.preemptions, at + ".preemptions");
    same(e.steps, a.steps, at + ".steps");
    same(e.minimized, a.minimized, at + ".minimized");
    same(e.minimal, a.minimal, at + ".minimal");
    same(e.minimize_stopped_by, a.minimize_stopped_by, at + ".minimize_stopped_by");
    same(e.found_preemptions, a.found_preemptions, at + ".found_preemptions");
    same(e.found_steps, a.found_steps, at + ".found_steps");
}

void same(const Violation& e, const Violation& a, const std::string& at) {
    same(e.kind, a.kind, at + ".kind");
    same(e.property, a.property, at + ".property");
    same(e.message, a.message, at + ".message");
    same(e.step, a.step, at + ".step");
    same(e.details, a.details, at + ".details");
    same(e.location, a.location, at + ".location");
}

void same(const TraceStep& e, const TraceStep& a, const std::string& at) {
    same(e.step, a.step, at + ".step");
    same(e.task_id, a.task_id, at + ".task_id");
    same(e.task, a.task, at + ".task");
    same(e.operation, a.operation, at + ".operation");
    same(e.object, a.object, at + ".object");
    same(e.args, a.args, at + ".args");
    same(e.value, a.value, at + ".value");
    same(e.state, a.state, at + ".state");
    same(e.preempted, a.preempted, at + ".preempted");
    same(e.synced_from, a.synced_from, at + ".synced_from");
    same(e.location, a.location, at + ".location");
}

void same(const PendingTask& e, const PendingTask& a, const std::string& at) {
    same(e.task_id, a.task_id, at + ".task_id");
    same(e.task, a.task, at + ".task");
    same(e.operation, a.operation, at + ".operation");
    same(e.object, a.object, at + ".object");
    same(e.blocked, a.blocked, at + ".blocked");
    same(e.holder, a.holder, at + ".holder");
    same(e.location, a.location, at + ".location");
}

void same(const Trace& e, const Trace& a, const std::string& at) {
    same(e.tasks, a.tasks, at + ".tasks");
    same(e.steps, a.steps, at + ".steps");
    same(e.pending, a.pending, at + ".pending");
}

void same(const Counterexample& e, const Counterexample& a, const std::string& at) {
    same(e.violation, a.violation, at + ".violation");
    same(e.schedule, a.schedule, at + ".schedule");
    same(e.trace, a.trace, at + ".trace");
    same(e.replay_command, a.replay_command, at + ".replay_command");
}

void same(const std::pair<std::string, int>& e, const std::pair<std::string, int>& a,
          const std::string& at) {
    same(e.first, a.first, at + ".name");
    same(e.second, a.second, at + ".value");
}

void same(const RunReport& e, const RunReport& a) {
    same(e.summary.model, a.summary.model, "model");
    same(e.summary.variant, a.summary.variant, "variant");
    same(e.summary.strategy, a.summary.strategy, "strategy");
    same(e.summary.bound, a.summary.bound, "bound");
    same(e.summary.stats, a.summary.stats, "stats");
    same(e.summary.violations, a.summary.violations, "violations");
    same(e.summary.sampled, a.summary.sampled, "sampled");
    same(e.summary.preemption_bound.value_or(~0u), a.summary.preemption_bound.value_or(~0u),
         "preemption_bound");
    same(e.summary.pct_depth, a.summary.pct_depth, "pct.depth");
    same(e.summary.pct_steps, a.summary.pct_steps, "pct.steps");
    same(e.summary.one_thread, a.summary.one_thread, "one_thread");
    same(e.summary.counterexamples, a.summary.counterexamples, "counterexample_sizes");
    same(e.summary.judgement, a.summary.judgement, "judgement");
    same(e.summary.parameters, a.summary.parameters, "parameters");
    same(e.depth, a.depth, "depth");
    same(e.counterexamples, a.counterexamples, "counterexamples");
    same(e.command, a.command, "command");
    same(e.exit_code, a.exit_code, "exit_code");
}

RunReport read_back(const RunReport& written) {
    RunReport read;
    std::string error;
    CHECK_TEXT(from_json(to_json(written), read, error), error.c_str());
    return read;
}

// A report that reaches every corner of the schema that real runs rarely do: extreme
// integers, an empty schedule, strings in other scripts and with quotes and escapes.
RunReport corner_cases() {
    RunReport r;
    r.summary = {.model = "mödel \"quoted\" \\ back/slash",
                 .variant = "tab\there\nnewline",
                 .parameters = {{"negative", -3}, {"big", std::numeric_limits<int>::max()}},
                 .strategy = "dpor",
                 .bound = "depth 4294967295",
                 .stats = {},
                 .violations = 2,
                 .counterexamples = {{1, 2, true, false, {}, 3, 4}, {0, 0, false, true, {}, 0, 0}},
                 .sampled = true,
                 .preemption_bound = 2,
                 .pct_depth = 3,
                 .pct_steps = 200,
                 .judgement = Judgement{Expectation::violation(ViolationKind::data_race, "p \"q\""),
                                        Agreement::differs, "violation (data-race): got ∀"},
                 .shard = Shard{2, 5},
                 .keep_going = true};
    r.summary.stats.tasks = 64;
    r.summary.stats.stopped_by = "--time-limit";
    r.summary.stats.executions = std::numeric_limits<std::uint64_t>::max();
    r.summary.stats.elapsed_seconds = 0.1 + 0.2; // not exactly representable in decimal
    r.summary.stats.minimizing_seconds = 0.1;
    r.summary.stats.threads = 3; // not the default 1, which a missing field would read as
    r.summary.one_thread = "dpor --preemptions";
    r.summary.counterexamples.front().minimize_stopped_by = "--minimize-time 10x";
    r.summary.stats.deepest = std::numeric_limits<std::uint32_t>::max();
    r.summary.stats.most.spins = 7;
    r.summary.stats.holds = {{"a.lock", {3, 1, 2, 3, 9, 5}}, {"b.lock", {1, 0, 0, 1, 1, 1}}};
    r.summary.stats.ops = {{"fsync", 4, 10, 7, {1, 0, 1}}, {"r\u00e9name", 1, 0, 0, {}}};
    r.summary.stats.properties = {
        {PropertyKind::invariant, "", 0, 0, ""},
        {PropertyKind::final_check, "fin\u00e4l", std::numeric_limits<std::uint64_t>::max(), 0, ""},
        {PropertyKind::check, "c", 24, 24, "spin_unlock(table_lock)"}};
    r.depth = std::numeric_limits<std::uint32_t>::max();
    r.command = "lockcheck 'mödel \"quoted\"' --json 'a b.json'";
    r.exit_code = 255;
    Trace t;
    t.tasks = {"t0", "t1"};
    t.steps.push_back({.step = 1,
                       .task_id = 1,
                       .task = "t1",
                       .operation = "set_bit",
                       .object = "",
                       .args = {std::numeric_limits<std::int64_t>::min(), -1, 0},
                       .value = std::numeric_limits<std::int64_t>::max(),
                       .state = "",
                       .preempted = true,
                       .synced_from = 0,
                       .location = {"mödel \"x\".cpp", std::numeric_limits<std::uint32_t>::max(),
                                    "operator()::<lambda>"}});
    TraceStep bare; // no task name, operation, object, arguments or state
    bare.step = 2;
    bare.value = -5;
    t.steps.push_back(bare);
    PendingTask blocked;
    blocked.task = "t0";
    blocked.blocked = true;
    blocked.holder = "t1";
    blocked.location = {"m.cpp", 1, "f"};
    t.pending.push_back(blocked);
    r.counterexamples.push_back(
        {{ViolationKind::preempt, "p", "m", 2, {"d1", "d2"}, {"m.cpp", 7, "g"}}, {}, t, ""});
    r.counterexamples.push_back({{ViolationKind::lock_order, "q", "n", 0, {}}, {63, 0}, {}, "x"});
    return r;
}

// --- parsing the XML with libxml2 ---

using XmlDoc = std::unique_ptr<xmlDoc, decltype(&xmlFreeDoc)>;

XmlDoc parse_xml(const std::string& text) {
    XmlDoc doc(xmlReadMemory(text.data(), static_cast<int>(text.size()), "junit.xml", "UTF-8",
                             XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING),
               &xmlFreeDoc);
    const xmlError* e = xmlGetLastError();
    const std::string why = std::string("not well-formed XML: ") + (e ? e->message : "") + text;
    CHECK_TEXT(doc != nullptr, why.c_str());
    return doc;
}

// The value of an XPath expression, as XPath's string() or number() gives it.
std::string xpath_string(xmlDoc* doc, const std::string& expr) {
    std::unique_ptr<xmlXPathContext, decltype(&xmlXPathFreeContext)> ctx(xmlXPathNewContext(doc),
                                                                         &xmlXPathFreeContext);
    const std::string wrapped = "string(" + expr + ")";
    std::unique_ptr<xmlXPathObject, decltype(&xmlXPathFreeObject)> result(
        xmlXPathEvalExpression(reinterpret_cast<const xmlChar*>(wrapped.c_str()), ctx.get()),
        &xmlXPathFreeObject);
    CHECK_TEXT(result && result->stringval, expr.c_str());
    return reinterpret_cast<const char*>(result->stringval);
}

long xpath_count(xmlDoc* doc, const std::string& expr) {
    return std::stol(xpath_string(doc, "count(" + expr + ")"));
}

} // namespace

TEST_GROUP(Reports){};

TEST(Reports, json_reports_of_broken_variants_read_back_field_by_field) {
    // An invariant broken by a preemption, and a deadlock that leaves tasks pending.
    const RunReport reports[] = {check_variant("rename-pin", "no-pin"),
                                 check_variant("buffered-write", "relock-before-dio-end")};
    // The round trip must cover optional values both ways, trace links and pending tasks.
    std::vector<TraceStep> steps;
    std::vector<PendingTask> pending;
    for (const RunReport& r : reports) {
        CHECK_EQUAL(1U, r.counterexamples.size());
        const Trace& t = r.counterexamples[0].trace;
        steps.insert(steps.end(), t.steps.begin(), t.steps.end());
        pending.insert(pending.end(), t.pending.begin(), t.pending.end());
        same(r, read_back(r));
    }
    CHECK(std::any_of(steps.begin(), steps.end(), [](auto& s) { return s.value.has_value(); }));
    CHECK(std::any_of(steps.begin(), steps.end(), [](auto& s) { return !s.value.has_value(); }));
    CHECK(std::any_of(steps.begin(), steps.end(), [](auto& s) { return s.preempted; }));
    CHECK(std::any_of(steps.begin(), steps.end(), [](auto& s) { return s.synced_from != 0; }));
    CHECK(std::any_of(pending.begin(), pending.end(), [](auto& p) { return !p.holder.empty(); }));
    CHECK(!reports[1].counterexamples[0].violation.details.empty());
    CHECK(!reports[0].summary.stats.holds.empty());
    for (const RunReport& r : reports) {
        CHECK(!r.summary.parameters.empty());
        CHECK(r.summary.judgement.has_value());
    }
    CHECK(!reports[0].summary.stats.properties.empty());
    // Every step and pending task names its line in the model's file.
    CHECK(std::all_of(steps.begin(), steps.end(), [](auto& s) {
        return s.location.file.ends_with(".cpp") && s.location.line > 0;
    }));
    CHECK(std::all_of(pending.begin(), pending.end(),
                      [](auto& p) { return p.location.file == "buffered_write.cpp"; }));
}

TEST(Reports, a_json_report_carries_the_expectation_the_judgement_and_the_properties) {
    const std::string json = to_json(check_variant("rename-pin", "no-pin"));
    const std::string expected = "  \"expected\": {\n"
                                 "    \"verdict\": \"violation\",\n"
                                 "    \"kind\": \"invariant\",\n"
                                 "    \"property\": \"committed log never holds the unlink of an "
                                 "old name without the link of its new name\"\n"
                                 "  },\n"
                                 "  \"judgement\": {\n"
                                 "    \"agreement\": \"as-declared\",\n"
                                 "    \"text\": \"violation (invariant): as declared\"\n"
                                 "  },\n";
    CHECK_TEXT(contains(json, expected), json.c_str());
    CHECK_TEXT(contains(json, "    \"properties\": [\n"
                              "      {\n"
                              "        \"kind\": \"invariant\",\n"
                              "        \"name\": \"committed log never holds the unlink of an old "
                              "name without the link of its new name\",\n"
                              "        \"evaluations\": "),
               json.c_str());
    // A replay declares nothing: both are null.
    RunReport replayed;
    const std::string none = to_json(replayed);
    CHECK_TEXT(contains(none, "  \"expected\": null,\n  \"judgement\": null,\n"), none.c_str());
    same(replayed, read_back(replayed));
}

TEST(Reports, a_json_report_written_before_version_1_3_reads_without_its_fields) {
    RunReport written = check_variant("rename-pin", "no-pin");
    std::string json = to_json(written);
    // Cut the fields 1.3 added: "expected" and "judgement", and stats.properties.
    const std::size_t expected = json.find("  \"expected\"");
    json.erase(expected, json.find("  \"sampled\"") - expected);
    const std::size_t properties = json.find(",\n    \"properties\"");
    json.erase(properties, json.find("\n  },\n  \"counterexample_sizes\"") - properties);
    CHECK_TEXT(!contains(json, "properties") && !contains(json, "judgement"), json.c_str());
    RunReport read;
    std::string error;
    CHECK_TEXT(from_json(json, read, error), (error + "\n" + json).c_str());
    CHECK(!read.summary.judgement.has_value());
    CHECK(read.summary.stats.properties.empty());
    written.summary.judgement.reset();
    written.summary.stats.properties.clear();
    same(written, read);
}

TEST(Reports, the_html_report_shows_the_sizes_the_judgement_and_every_property_whole) {
    const RunReport r = check_variant("rename-pin", "no-pin");
    const std::string html = to_html(r, {});
    CHECK_TEXT(
        contains(html, "<h1>lockcheck rename-pin --variant no-pin --renames 1 --fsyncs 1 --rounds 1"
                       "</h1>"),
        html.c_str());
    CHECK_TEXT(contains(html, "<p class=\"as-declared\">expected violation (invariant): as "
                              "declared</p>"),
               html.c_str());
    CHECK_TEXT(contains(html, "sizes         renames=1 fsyncs=1 rounds=1\n"), html.c_str());
    // The summary cuts the invariant's name; the table has it whole, with its count.
    const PropertyStats& invariant = r.summary.stats.properties.front();
    CHECK_TEXT(contains(html, "<tr><td>invariant</td><td>committed log never holds the unlink of "
                              "an old name without the link of its new name</td><td>" +
                                  std::to_string(invariant.evaluations) + "</td>"),
               html.c_str());
    CHECK_TEXT(contains(html, "<td>final check</td><td>log_writers is back to zero</td>"),
               html.c_str());
}

TEST(Reports, the_html_report_shows_the_command_the_sizes_and_the_declared_verdict) {
    RunReport r = check_variant("rename-pin", "no-pin");
    r.command = "build/lockcheck rename-pin --variant no-pin --report 'my report'";
    const std::string html = to_html(r, {});
    CHECK_TEXT(contains(html, "<tr><th>command</th><td><code>build/lockcheck rename-pin --variant "
                              "no-pin --report 'my report'</code></td></tr>\n"
                              "<tr><th>model</th><td>rename-pin</td></tr>\n"
                              "<tr><th>variant</th><td>no-pin</td></tr>\n"
                              "<tr><th>sizes</th><td>renames=1 fsyncs=1 rounds=1</td></tr>\n"
                              "<tr><th>declared</th><td>violation (invariant): committed log never "
                              "holds the unlink of an old name without the link of its new "
                              "name</td></tr>\n"),
               html.c_str());
    CHECK_TEXT(contains(html, "<tr><th>lockcheck</th><td>" + std::string(kLockcheckVersion)),
               html.c_str());
}

TEST(Reports, the_html_report_heads_each_counterexample_apart_and_reds_its_violating_row) {
    // Two deadlocks: one kind, one property, two cycles.
    RunReport r = check_variant("buffered-write", "relock-before-dio-end");
    Counterexample other = r.counterexamples.front();
    other.violation.message = "deadlock: wait-for cycle truncate -> write0 -> truncate";
    r.counterexamples.push_back(other);
    const std::string html = to_html(r, {});
    for (std::size_t i = 0; i < 2; ++i) {
        std::string message = r.counterexamples[i].violation.message;
        for (std::size_t at = 0; (at = message.find('>', at)) != std::string::npos;)
            message.replace(at, 1, "&gt;");
        const std::string heading = "<h2 class=\"violation\">Counterexample " +
                                    std::to_string(i + 1) + " of 2: " + message + "</h2>";
        CHECK_TEXT(contains(html, heading), heading.c_str());
    }
    // The last row of each trace, the violating step, is red; no other row is.
    const TraceStep& last = r.counterexamples.front().trace.steps.back();
    const std::size_t red = html.find("<span class=\"sgr31\">");
    CHECK_TEXT(red != std::string::npos, html.c_str());
    const std::string row = html.substr(red, html.find('\n', red) - red);
    CHECK_TEXT(contains(row, std::to_string(last.step) + " ") && contains(row, last.operation) &&
                   contains(row, "</span>"),
               row.c_str());
    std::size_t rows = 0;
    for (std::size_t at = 0; (at = html.find("class=\"sgr31\"", at)) != std::string::npos; ++at)
        ++rows;
    CHECK_EQUAL(2u, rows);
}

TEST(Reports, the_html_report_traces_each_step_with_the_models_line) {
    const RunReport r = check_variant("rename-pin", "no-pin");
    const std::string html = to_html(r, {});
    CHECK_TEXT(contains(html, "state after the step") && contains(html, " location\n"),
               html.c_str());
    const TraceStep& last = r.counterexamples.front().trace.steps.back();
    // The last row is the violating one, red: its location ends the row's span.
    CHECK_TEXT(contains(html, last.location.text() + "</span>\n"), html.c_str());
    // The full trace, folding nothing, names the line of every step.
    const std::string full = to_html(r, {}, /*full_trace=*/true);
    CHECK_TEXT(contains(full, "rename_pin.cpp:199 btrfs_sync_log\n"), full.c_str());
}

// A counterexample whose swim lanes are wider than a window 1400 pixels wide (three lanes of 40
// columns, the state, the location: 240 columns) is a list on the page, each row within the 170
// columns such a window shows of the page's 12 px monospace, ending in the step's function.
TEST(Reports, the_html_reports_trace_shows_each_steps_function_in_a_1400_pixel_window) {
    const Protocol model = seqcount_hang_model();
    cli::CheckRequest request;
    request.protocol = &model;
    request.search.search = kDefaultSearch;
    request.values = model.default_values();
    request.options.depth = model.depth_for(0);
    std::ostringstream out;
    const std::string html = to_html(cli::search(request, out), {});
    CHECK_TEXT(contains(html, "pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}"),
               "the trace's font is not the size its width is counted in");
    const std::size_t begin = html.find("trace (");
    CHECK(begin != std::string::npos);
    std::string text; // the trace as the page shows it: no tags, entities as characters
    for (std::size_t i = begin; i < html.find("</pre>", begin); ++i) {
        if (html[i] == '<') {
            i = html.find('>', i);
            continue;
        }
        text += html[i];
    }
    for (const auto& [entity, character] :
         {std::pair{"&gt;", ">"}, {"&lt;", "<"}, {"&quot;", "\""}, {"&amp;", "&"}})
        for (std::size_t at = text.find(entity); at != std::string::npos; at = text.find(entity))
            text.replace(at, std::string(entity).size(), character);
    std::istringstream lines(text);
    std::size_t rows = 0;
    for (std::string line; std::getline(lines, line);) {
        const bool header = line.starts_with("  step");
        const bool step = line.size() > 6 && std::isdigit(static_cast<unsigned char>(line[5])) &&
                          !contains(line, "more turns");
        if (!header && !step) continue;
        CHECK_TEXT(line.size() <= 170, line.c_str());
        if (!step) continue;
        ++rows;
        const std::size_t at = line.rfind("seqcount_hang.cpp:");
        CHECK_TEXT(at != std::string::npos, line.c_str());
        const std::string function = line.substr(line.find(' ', at) + 1);
        // "i_size_write", "seqcount_hang_model::<lambda>::<lambda>": a name, whole.
        CHECK_TEXT(!function.empty() && function.find(' ') == std::string::npos, line.c_str());
    }
    CHECK(rows >= 19);
}

TEST(Reports, a_json_violation_and_its_steps_carry_their_location) {
    const RunReport r = check_variant("buffered-write", "unlocked");
    CHECK_EQUAL(1U, r.counterexamples.size());
    const Violation& v = r.counterexamples[0].violation;
    CHECK_EQUAL(ViolationKind::check_failed, v.kind);
    CHECK_EQUAL("buffered_write.cpp", v.location.file);
    CHECK_EQUAL("btrfs_dirty_pages", v.location.function);
    const std::string json = to_json(r);
    // The violation's, as the document prints it.
    const std::string location = "\"location\": {\n"
                                 "          \"file\": \"buffered_write.cpp\",\n"
                                 "          \"line\": " +
                                 std::to_string(v.location.line) +
                                 ",\n"
                                 "          \"function\": \"btrfs_dirty_pages\"\n"
                                 "        }";
    CHECK_TEXT(contains(json, location), json.c_str());
    same(r, read_back(r));
}

// Reports written before 1.3 have no "location": it reads back as unknown, and a document
// without one is written back with null.
TEST(Reports, a_json_report_without_locations_reads_back_with_none) {
    RunReport r = check_variant("buffered-write", "relock-before-dio-end");
    for (Counterexample& c : r.counterexamples) {
        c.violation.location = {};
        for (TraceStep& s : c.trace.steps)
            s.location = {};
        for (PendingTask& p : c.trace.pending)
            p.location = {};
    }
    const std::string with_nulls = to_json(r);
    CHECK_TEXT(contains(with_nulls, "\"location\": null"), with_nulls.c_str());
    // "location" is the last member of its object: drop it with the comma before it.
    std::string without = with_nulls;
    const std::string null_location = "\"location\": null";
    for (std::size_t at; (at = without.find(null_location)) != std::string::npos;) {
        const std::size_t comma = without.rfind(',', at);
        without.erase(comma, at + null_location.size() - comma);
    }
    CHECK_TEXT(!contains(without, "location"), without.c_str());
    RunReport read;
    std::string error;
    CHECK_TEXT(from_json(without, read, error), error.c_str());
    same(r, read);
    CHECK_EQUAL(with_nulls, to_json(read));
}

TEST(Reports, a_json_report_keeps_extreme_integers_and_any_text) {
    const RunReport written = corner_cases();
    same(written, read_back(written));
}

TEST(Reports, a_json_report_starts_with_its_schema_and_version_and_ends_with_a_newline) {
    const std::string json = to_json(check_variant("rename-pin", "atomic"));
    CHECK_TEXT(json.rfind("{\n  \"schema\": \"lockcheck-report\",\n  \"version\": 1,\n", 0) == 0,
               json.c_str());
    CHECK_EQUAL('\n', json.back());
}

TEST(Reports, a_json_report_says_its_minor_version_the_lockcheck_and_the_command_that_wrote_it) {
    RunReport r = check_variant("rename-pin", "no-pin");
    r.command = "lockcheck rename-pin --variant no-pin --json r.json";
    const std::string json = to_json(r);
    const std::string head =
        "  \"version\": 1,\n  \"minor_version\": " + std::to_string(kReportMinorVersion) +
        ",\n  \"lockcheck_version\": \"" + kLockcheckVersion + "\",\n  \"command\": \"" +
        r.command + "\",\n";
    CHECK_TEXT(contains(json, head), json.c_str());
}

TEST(Reports, a_json_report_says_the_verdict_and_the_exit_code_beside_the_declared_one) {
    RunReport r = check_variant("rename-pin", "no-pin");
    r.exit_code = 1;
    const std::string json = to_json(r);
    CHECK_TEXT(contains(json, "  \"violations\": 1,\n  \"verdict\": \"violation\",\n"
                              "  \"exit_code\": 1,\n  \"expected\": {\n"
                              "    \"verdict\": \"violation\",\n    \"kind\": \"invariant\","),
               json.c_str());
    // Every verdict line has its name, decided in the verdict line's order.
    const auto verdict_in_json = [](const Summary& s) {
        RunReport run;
        run.summary = s;
        const std::string doc = to_json(run);
        const std::size_t at = doc.find("\"verdict\": \"") + 12;
        return doc.substr(at, doc.find('"', at) - at);
    };
    Summary s;
    CHECK_EQUAL(std::string("verified"), verdict_in_json(s));
    s.stats.executions = 3;
    s.stats.cut = 2;
    CHECK_EQUAL(std::string("no-violation-within-depth"), verdict_in_json(s));
    s.preemption_bound = 1;
    CHECK_EQUAL(std::string("no-violation-within-preemptions"), verdict_in_json(s));
    s.sampled = true;
    CHECK_EQUAL(std::string("no-violation-in-sample"), verdict_in_json(s));
    s.stats.stopped_by = "--time-limit";
    CHECK_EQUAL(std::string("incomplete"), verdict_in_json(s));
    s.violations = 1;
    CHECK_EQUAL(std::string("violation"), verdict_in_json(s));
}

TEST(Reports, a_report_reaching_every_corner_of_the_schema_validates_against_it) {
    const std::string path = "/tmp/lockcheck-test-corner-" + std::to_string(::getpid()) + ".json";
    {
        std::ofstream out(path, std::ios::binary);
        out << to_json(corner_cases());
    }
    const std::string errors = schema_errors({path});
    std::remove(path.c_str());
    CHECK_TEXT(errors.empty(), errors.c_str());
}

TEST(Reports, two_runs_of_one_check_differ_only_in_elapsed_time) {
    RunReport first = check_variant("rename-pin", "no-pin");
    RunReport second = check_variant("rename-pin", "no-pin");
    first.summary.stats.elapsed_seconds = second.summary.stats.elapsed_seconds = 0;
    CHECK_EQUAL(to_json(first), to_json(second));
}

TEST(Reports, bytes_that_are_not_utf8_are_written_as_replacement_characters) {
    RunReport r;
    r.summary.model = "bad\xff";
    RunReport read;
    std::string error;
    CHECK_TEXT(from_json(to_json(r), read, error), error.c_str());
    CHECK_EQUAL(std::string("bad\xef\xbf\xbd"), read.summary.model);
}

TEST(Reports, fields_a_later_minor_version_adds_are_ignored) {
    std::string json = to_json(check_variant("rename-pin", "no-pin"));
    json.insert(json.find("\"model\""), "\"added_later\": {\"x\": [1]},\n  ");
    RunReport read;
    std::string error;
    CHECK_TEXT(from_json(json, read, error), error.c_str());
    CHECK_EQUAL(std::string("no-pin"), read.summary.variant);
}

TEST(Reports, a_bad_json_report_is_refused_with_a_one_line_reason_naming_the_field) {
    const std::string good = to_json(check_variant("rename-pin", "no-pin"));
    // `from` (first occurrence in the good report) replaced by `to`; `from` empty: `to` whole.
    // `error` is how the reason starts: the JSON parser's own words follow the position.
    struct Bad {
        std::string from, to, error;
    };
    const Bad bads[] = {
        {"", "", "not JSON: parse error at line 1, column 1: "},
        {"", "{\"schema\": ", "not JSON: parse error at line 1, column 12: "},
        // A number no double holds is refused, not thrown (fuzz/fuzz_replay_json aborted on it).
        {"\"elapsed_seconds\": ", "\"elapsed_seconds\": 1e999, \"x\": ",
         "not JSON: number overflow parsing '1e999'"},
        {"", "[1, 2]", "the document: expected an object"},
        {"", "{\"version\": 1}", "schema: missing"},
        {"\"lockcheck-report\"", "\"lockcheck-trace\"",
         "schema: \"lockcheck-trace\" is not \"lockcheck-report\""},
        {"\"version\": 1", "\"version\": 2",
         "version: 2 is not supported (this lockcheck reads 1)"},
        {"\"version\": 1", "\"version\": \"1\"",
         "version: \"1\" is not supported (this lockcheck reads 1)"},
        {"\"version\": 1", "\"version\": 1.0",
         "version: 1.0 is not supported (this lockcheck reads 1)"},
        {"\"depth\"", "\"deep\"", "depth: missing"},
        {"\"violation\": {\n        \"kind\": \"invariant\"",
         "\"violation\": {\n        \"kind\": \"starvation\"",
         "counterexamples[0].violation.kind: \"starvation\" is not a violation kind"},
        {"\"kind\": \"invariant\"", "\"kind\": \"starvation\"",
         "expected.kind: \"starvation\" is not a violation kind"},
        {"\"expected\": {\n    \"verdict\": \"violation\"",
         "\"expected\": {\n    \"verdict\": \"broken\"",
         "expected.verdict: \"broken\" is not \"verified\" or \"violation\""},
        {"\"agreement\": \"as-declared\"", "\"agreement\": \"agreed\"",
         "judgement.agreement: \"agreed\" is not an agreement"},
        {"\"judgement\": {", "\"judgement\": null, \"x\": {", "judgement: expected an object"},
        {"\"kind\": \"final-check\"", "\"kind\": \"assertion\"",
         "stats.properties[1].kind: \"assertion\" is not a property kind"},
        {"\"after_release\": 0", "\"after_release\": false",
         "stats.properties[0].after_release: expected an integer from 0 to 18446744073709551615"},
        {"\"schedule\": \"", "\"schedule\": \"0.x",
         "counterexamples[0].schedule: step 2: 'x0' is not a task id (0..63)"},
        {"\"preempted\": false", "\"preempted\": 0",
         "counterexamples[0].trace.steps[0].preempted: expected true or false"},
        {"\"task_id\": 0", "\"task_id\": 65536",
         "counterexamples[0].trace.steps[0].task_id: expected an integer from 0 to 65535"},
        {"\"value\": 1", "\"value\": 4294967296",
         "parameters[0].value: expected an integer from -2147483648 to 2147483647"},
        {"\"value\": null", "\"value\": \"1\"",
         "counterexamples[0].trace.steps[0].value: expected an integer from "
         "-9223372036854775808 to 9223372036854775807"},
        {"\"executions\": ", "\"executions\": -",
         "stats.executions: expected an integer from 0 to 18446744073709551615"},
        {"\"tasks\": [", "\"tasks\": [3, ", "counterexamples[0].trace.tasks[0]: expected a string"},
        {"\"stats\": {", "\"stats\": [], \"x\": {", "stats: expected an object"},
        {"\"file\": \"rename_pin.cpp\"", "\"file\": \"\"",
         "counterexamples[0].trace.steps[0].location.file: expected a file name"},
        {"\"line\": ", "\"line\": -",
         "counterexamples[0].trace.steps[0].location.line: expected an integer from 0 to "
         "4294967295"},
    };
    for (const Bad& b : bads) {
        std::string text = b.to;
        if (!b.from.empty()) {
            text = good;
            const std::size_t at = text.find(b.from);
            CHECK_TEXT(at != std::string::npos, b.from.c_str());
            text.replace(at, b.from.size(), b.to);
        }
        RunReport report;
        report.summary.model = "untouched";
        std::string error;
        CHECK_TEXT(!from_json(text, report, error), b.error.c_str());
        CHECK_EQUAL(b.error, error.substr(0, b.error.size()));
        CHECK_EQUAL(std::string::npos, error.find('\n'));
        CHECK_EQUAL(std::string("untouched"), report.summary.model);
    }
}

TEST(Reports, junit_has_a_test_case_per_run_and_a_failure_per_broken_run) {
    const RunReport verified = check_variant("rename-pin", "atomic");
    const RunReport broken = check_variant("rename-pin", "no-pin");
    const std::string xml = to_junit({verified, broken});
    const XmlDoc doc = parse_xml(xml);
    xmlDoc* d = doc.get();
    CHECK_EQUAL(1L, xpath_count(d, "/testsuites/testsuite[@name='lockcheck']"));
    CHECK_EQUAL(2L, xpath_count(d, "/testsuites/testsuite/testcase"));
    CHECK_EQUAL(1L, xpath_count(d, "//failure"));
    CHECK_EQUAL(std::string("2"), xpath_string(d, "/testsuites/testsuite/@tests"));
    CHECK_EQUAL(std::string("1"), xpath_string(d, "/testsuites/testsuite/@failures"));

    const std::string ok = "/testsuites/testsuite/testcase[1]";
    CHECK_EQUAL(std::string("rename-pin"), xpath_string(d, ok + "/@classname"));
    // A test case per variant and sizes: runs at other sizes are other cases.
    CHECK_EQUAL(std::string("atomic renames=1 fsyncs=1 rounds=1"), xpath_string(d, ok + "/@name"));
    CHECK_EQUAL(0L, xpath_count(d, ok + "/failure"));
    CHECK_EQUAL(format_summary(verified.summary), xpath_string(d, ok + "/system-out"));

    const std::string bad = "/testsuites/testsuite/testcase[2]";
    CHECK_EQUAL(std::string("no-pin renames=1 fsyncs=1 rounds=1"), xpath_string(d, bad + "/@name"));
    const double time = std::stod(xpath_string(d, bad + "/@time"));
    CHECK(std::fabs(time - broken.summary.stats.elapsed_seconds) <= 0.0005);
    const Counterexample& c = broken.counterexamples[0];
    CHECK_EQUAL(std::string("invariant"), xpath_string(d, bad + "/failure/@type"));
    CHECK_EQUAL(c.violation.message, xpath_string(d, bad + "/failure/@message"));
    const std::string failure = xpath_string(d, bad + "/failure");
    CHECK_TEXT(contains(failure, format_violation(c.violation) + format_trace(c.trace)),
               failure.c_str());
    CHECK_TEXT(contains(failure, "replay: " + c.replay_command), failure.c_str());
}

TEST(Reports, junit_skips_a_run_that_found_nothing_but_did_not_look_everywhere) {
    RunReport cut = check_variant("rename-pin", "atomic");
    cut.summary.stats.cut = 3;
    RunReport limited = check_variant("rename-pin", "atomic");
    limited.summary.stats.stopped_by = "--max-executions 10";
    const RunReport complete = check_variant("rename-pin", "atomic");
    CHECK_EQUAL(0u, complete.summary.stats.cut);
    const XmlDoc doc = parse_xml(to_junit({cut, limited, complete}));
    xmlDoc* d = doc.get();
    CHECK_EQUAL(std::string("2"), xpath_string(d, "/testsuites/testsuite/@skipped"));
    CHECK_EQUAL(std::string("0"), xpath_string(d, "/testsuites/testsuite/@failures"));
    CHECK_EQUAL(std::string("incomplete: 3 executions were cut by the depth bound"),
                xpath_string(d, "//testcase[1]/skipped/@message"));
    CHECK_EQUAL(std::string("incomplete: --max-executions 10 stopped the search"),
                xpath_string(d, "//testcase[2]/skipped/@message"));
    CHECK_EQUAL(0L, xpath_count(d, "//testcase[3]/skipped"));
}

TEST(Reports, junit_gives_each_violation_of_a_run_its_own_failure) {
    RunReport r = check_variant("rename-pin", "no-pin");
    const RunReport deadlock = check_variant("buffered-write", "relock-before-dio-end");
    r.counterexamples.push_back(deadlock.counterexamples.front());
    r.summary.violations = 2;
    const XmlDoc doc = parse_xml(to_junit({r}));
    xmlDoc* d = doc.get();
    CHECK_EQUAL(std::string("1"), xpath_string(d, "/testsuites/testsuite/@failures"));
    CHECK_EQUAL(2L, xpath_count(d, "//testcase/failure"));
    for (std::size_t i = 0; i < 2; ++i) {
        const Counterexample& c = r.counterexamples[i];
        const Counterexample& other = r.counterexamples[1 - i];
        const std::string at = "//testcase/failure[" + std::to_string(i + 1) + "]";
        CHECK_EQUAL(std::string(kind_name(c.violation.kind)), xpath_string(d, at + "/@type"));
        CHECK_EQUAL(c.violation.headline(), xpath_string(d, at + "/@message"));
        const std::string text = xpath_string(d, at);
        CHECK_TEXT(contains(text, format_violation(c.violation) + format_trace(c.trace)),
                   text.c_str());
        CHECK_TEXT(contains(text, "replay: " + c.replay_command), text.c_str());
        CHECK_TEXT(!contains(text, "replay: " + other.replay_command), text.c_str());
    }
}

TEST(Reports, junit_carries_markup_characters_and_control_characters_unharmed) {
    RunReport r;
    r.summary.model = "model<&\"'>";
    r.summary.variant = "ü ∀ 𝄞"; // two-, three- and four-byte UTF-8
    r.summary.violations = 1;
    const std::string message = "a <&\"'> b\tc\r\nd ]]> e";
    r.counterexamples.push_back(
        {{ViolationKind::check_failed, "p", message, 0, {"x\x01y\x7f", "bad\xff\xc0\xed\xa0\x80"}},
         {0},
         {},
         "lockcheck --replay '<&>'"});
    const XmlDoc doc = parse_xml(to_junit({r}));
    xmlDoc* d = doc.get();
    CHECK_EQUAL(r.summary.model, xpath_string(d, "//testcase/@classname"));
    CHECK_EQUAL(r.summary.variant, xpath_string(d, "//testcase/@name"));
    CHECK_EQUAL(message, xpath_string(d, "//failure/@message"));
    CHECK_EQUAL(std::string("check-failed"), xpath_string(d, "//failure/@type"));
    const std::string text = xpath_string(d, "//failure");
    // Bytes XML cannot carry at all are spelled out; the rest arrives as it was.
    CHECK_TEXT(contains(text, "x\\x01y\x7f"), text.c_str());
    CHECK_TEXT(contains(text, "bad\\xff\\xc0\\xed\\xa0\\x80"), text.c_str());
    CHECK_TEXT(contains(text, message), text.c_str());
    CHECK_TEXT(contains(text, "lockcheck --replay '<&>'"), text.c_str());
}

TEST(Reports, junit_fails_a_run_with_violations_even_without_counterexamples) {
    RunReport r;
    r.summary.violations = 2;
    const XmlDoc doc = parse_xml(to_junit({r}));
    CHECK_EQUAL(std::string("violation"), xpath_string(doc.get(), "//failure/@type"));
    CHECK_EQUAL(std::string("VIOLATION (2 found)"), xpath_string(doc.get(), "//failure/@message"));
}
