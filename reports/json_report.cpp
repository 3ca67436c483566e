// Writing and reading the JSON report with nlohmann-json. Field names and order are the
// schema of docs/json-schema.md: change them there first, and bump kReportVersion when a
// field is renamed or removed.
#include "json_report.hpp"

#include <limits>

#include <nlohmann/json.hpp>

#include "scheduler/one_line.hpp"

namespace lockcheck::detail {

const char* const kLockcheckVersion = LOCKCHECK_VERSION;

namespace {

// Ordered, so that the keys come out in the order written here, the schema's order.
using Json = nlohmann::ordered_json;

// --- writing ---

Json counters_json(const Counters& c) {
    return Json{{"sleeps", c.sleeps}, {"wakeups", c.wakeups}, {"spins", c.spins}};
}

Json stats_json(const SearchStats& s) {
    Json holds = Json::array(), properties = Json::array();
    for (const LockHolds& l : s.holds)
        holds.push_back(Json{{"lock", l.lock},
                             {"acquisitions", l.stats.acquisitions},
                             {"contended", l.stats.contended},
                             {"sleeps", l.stats.sleeps},
                             {"holds", l.stats.holds},
                             {"steps", l.stats.steps},
                             {"longest", l.stats.longest}});
    Json ops = Json::array();
    for (const OpWaits& w : s.ops)
        ops.push_back(Json{{"op", w.op},
                           {"count", w.count},
                           {"waited", w.total},
                           {"worst", w.worst},
                           {"worst_schedule", format_schedule(w.worst_schedule)}});
    Json wait_bounds = Json::array();
    for (const WaitBound& b : s.wait_bounds)
        wait_bounds.push_back(Json{{"op", b.op}, {"steps", b.steps}, {"declared", b.declared}});
    Json wait_ratios = Json::array();
    for (const WaitRatio& r : s.wait_ratios)
        wait_ratios.push_back(Json{{"op", r.op}, {"ratio", r.ratio}});
    Json full_tables = Json::array();
    for (const FullTable& f : s.full_tables)
        full_tables.push_back(
            Json{{"table", f.table}, {"capacity", f.capacity}, {"executions", f.executions}});
    for (const PropertyStats& p : s.properties)
        properties.push_back(Json{{"kind", std::string(property_kind_name(p.kind))},
                                  {"name", p.name},
                                  {"evaluations", p.evaluations},
                                  {"after_release", p.after_release},
                                  {"release", p.release},
                                  {"checked", p.checked}});
    return Json{{"executions", s.executions},
                {"cut", s.cut},
                {"cut_by_steps", s.cut_by_steps},
                {"sleep_blocked", s.sleep_blocked},
                {"redundant", s.redundant},
                {"unsettled", s.unsettled},
                {"unsettled_findings", s.unsettled_findings},
                {"lkmm_rounds", s.rounds},
                {"earlier_rounds_executions", s.earlier_rounds_executions},
                {"steps", s.steps},
                {"deepest", s.deepest},
                {"longest", s.longest},
                {"lockdep_off", s.lockdep_off},
                {"tasks", s.tasks},
                {"stopped_by", s.stopped_by},
                {"full_tables", std::move(full_tables)},
                {"fully_ordered", s.fully_ordered},
                {"elapsed_seconds", s.elapsed_seconds},
                {"minimizing_seconds", s.minimizing_seconds},
                {"threads", s.threads},
                {"checkpoints", Json{{"off", s.checkpoints.off},
                                     {"saved", s.checkpoints.saved},
                                     {"resumed", s.checkpoints.resumed},
                                     {"steps_kept", s.checkpoints.steps_kept}}},
                {"total", counters_json(s.total)},
                {"most", counters_json(s.most)},
                {"measured", s.measured()},
                {"holds", std::move(holds)},
                {"ops", std::move(ops)},
                {"wait_bounds", std::move(wait_bounds)},
                {"wait_ratios", std::move(wait_ratios)},
                {"states", Json{{"stored", s.states.stored},
                                {"matched", s.states.matched},
                                {"bytes", s.states.bytes},
                                {"full", s.states.full},
                                {"breadth_first", s.states.breadth_first},
                                {"lists_in_order", s.states.lists_in_order},
                                {"executions_before_order", s.states.executions_before_order},
                                {"loops_watched", s.states.loops_watched},
                                {"executions_before_watch", s.states.executions_before_watch}}},
                {"properties", std::move(properties)}};
}

Json expected_json(const Expectation& e) {
    return Json{{"verdict", e.expects_violation ? "violation" : "verified"},
                {"kind", e.expects_violation ? std::string(kind_name(e.kind)) : ""},
                {"property", e.property}};
}

Json judgement_json(const Judgement& j) {
    return Json{{"agreement", std::string(agreement_name(j.agreement))}, {"text", j.text}};
}

Json size_json(const CounterexampleSize& c) {
    return Json{{"preemptions", c.preemptions},
                {"steps", c.steps},
                {"minimized", c.minimized},
                {"minimal", c.minimal},
                {"minimize_stopped_by", c.minimize_stopped_by},
                {"found_preemptions", c.found_preemptions},
                {"found_steps", c.found_steps}};
}

// null when no model call is known.
Json location_json(const CallSite& c) {
    if (!c.known()) return Json(nullptr);
    return Json{{"file", c.file}, {"line", c.line}, {"function", c.function}};
}

Json violation_json(const Violation& v) {
    return Json{{"kind", std::string(kind_name(v.kind))},
                {"property", v.property},
                {"message", v.message},
                {"step", v.step},
                {"details", v.details},
                {"location", location_json(v.location)}};
}

Json step_json(const TraceStep& s) {
    Json step{{"step", s.step},
              {"task_id", s.task_id},
              {"task", s.task},
              {"operation", s.operation},
              {"object", s.object},
              {"args", s.args},
              {"object_first", s.object_first},
              {"value", s.value ? Json(*s.value) : Json(nullptr)},
              {"state", s.state},
              {"preempted", s.preempted},
              {"synced_from", s.synced_from},
              {"missed", s.missed},
              {"location", location_json(s.location)}};
    // Added in 1.17, only on a read of a write made later: other steps are as before.
    if (s.later_from) step["later_from"] = s.later_from;
    // Added in 1.15, only where the value has a name (a pointer's): other steps are as before.
    if (!s.value_text.empty()) step["value_text"] = s.value_text;
    return step;
}

Json pending_json(const PendingTask& p) {
    return Json{{"task_id", p.task_id},
                {"task", p.task},
                {"operation", p.operation},
                {"object", p.object},
                {"blocked", p.blocked},
                {"holder", p.holder},
                {"location", location_json(p.location)}};
}

Json trace_json(const Trace& t) {
    Json steps = Json::array(), pending = Json::array();
    for (const TraceStep& s : t.steps)
        steps.push_back(step_json(s));
    for (const PendingTask& p : t.pending)
        pending.push_back(pending_json(p));
    return Json{{"tasks", t.tasks},
                {"steps", std::move(steps)},
                {"pending", std::move(pending)},
                {"barriers", t.barriers}};
}

Json counterexample_json(const Counterexample& c) {
    return Json{{"violation", violation_json(c.violation)},
                {"schedule", format_schedule(c.schedule)},
                {"replay_command", c.replay_command},
                {"trace", trace_json(c.trace)}};
}

// --- reading ---

// Thrown inside the reader only, with the one-line reason from_json returns.
struct Malformed {
    std::string reason;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw Malformed{path + ": " + what};
}

// One JSON value and where it is in the document ("counterexamples[0].trace"), so that
// every error names the field at fault.
class Value {
  public:
    Value(const Json& json, std::string path) : json_(json), path_(std::move(path)) {}

    const Json& json() const { return json_; }
    const std::string& path() const { return path_; }

    // Whether this object has the member `name` (fields added in a minor version may not).
    bool has(const char* name) const { return json_.is_object() && json_.contains(name); }
    // The member `name` of this object.
    Value operator[](const char* name) const {
        if (!json_.is_object()) fail(path_, "expected an object");
        const std::string path = path_.empty() ? name : path_ + "." + name;
        const auto it = json_.find(name);
        if (it == json_.end()) fail(path, "missing");
        return Value(*it, path);
    }
    // The elements of this array.
    std::vector<Value> elements() const {
        if (!json_.is_array()) fail(path_, "expected an array");
        std::vector<Value> out;
        for (std::size_t i = 0; i < json_.size(); ++i)
            out.emplace_back(json_[i], path_ + "[" + std::to_string(i) + "]");
        return out;
    }

    std::string string() const {
        if (!json_.is_string()) fail(path_, "expected a string");
        return json_.get<std::string>();
    }
    bool boolean() const {
        if (!json_.is_boolean()) fail(path_, "expected true or false");
        return json_.get<bool>();
    }
    double number() const {
        if (!json_.is_number()) fail(path_, "expected a number");
        return json_.get<double>();
    }
    // A count or an id: a non-negative integer that fits in T.
    template <class T> T count() const {
        if (!json_.is_number_unsigned() ||
            json_.get<std::uint64_t>() > std::numeric_limits<T>::max())
            fail(path_,
                 "expected an integer from 0 to " + std::to_string(std::numeric_limits<T>::max()));
        return static_cast<T>(json_.get<std::uint64_t>());
    }
    // A value: an integer, of either sign, that fits in T.
    template <class T> T integer() const {
        using limits = std::numeric_limits<T>;
        // Non-negative integers parse as unsigned, and may be too large for int64.
        const bool fits =
            json_.is_number_unsigned()
                ? json_.get<std::uint64_t>() <= static_cast<std::uint64_t>(limits::max())
                : json_.is_number_integer() && json_.get<std::int64_t>() >= limits::min() &&
                      json_.get<std::int64_t>() <= limits::max();
        if (!fits)
            fail(path_, "expected an integer from " + std::to_string(limits::min()) + " to " +
                            std::to_string(limits::max()));
        return static_cast<T>(json_.get<std::int64_t>());
    }

    std::vector<std::string> strings() const {
        std::vector<std::string> out;
        for (const Value& v : elements())
            out.push_back(v.string());
        return out;
    }

  private:
    const Json& json_;
    std::string path_;
};

Counters read_counters(const Value& v) {
    return Counters{.sleeps = v["sleeps"].count<std::uint64_t>(),
                    .wakeups = v["wakeups"].count<std::uint64_t>(),
                    .spins = v["spins"].count<std::uint64_t>()};
}

SearchStats read_stats(const Value& v) {
    SearchStats s;
    s.executions = v["executions"].count<std::uint64_t>();
    s.cut = v["cut"].count<std::uint64_t>();
    // Added in version 1.13.
    if (v.has("cut_by_steps")) s.cut_by_steps = v["cut_by_steps"].count<std::uint64_t>();
    s.sleep_blocked = v["sleep_blocked"].count<std::uint64_t>();
    // Added in version 1.16.
    if (v.has("redundant")) s.redundant = v["redundant"].count<std::uint64_t>();
    // Added in version 1.17.
    if (v.has("unsettled")) s.unsettled = v["unsettled"].count<std::uint64_t>();
    if (v.has("unsettled_findings"))
        s.unsettled_findings = v["unsettled_findings"].count<std::uint64_t>();
    if (v.has("lkmm_rounds")) s.rounds = v["lkmm_rounds"].count<std::uint32_t>();
    if (v.has("earlier_rounds_executions"))
        s.earlier_rounds_executions = v["earlier_rounds_executions"].count<std::uint64_t>();
    s.steps = v["steps"].count<std::uint64_t>();
    s.deepest = v["deepest"].count<std::uint32_t>();
    if (v.has("longest")) s.longest = v["longest"].count<std::uint32_t>();
    if (v.has("lockdep_off")) s.lockdep_off = v["lockdep_off"].boolean();
    // Added in version 1.1.
    if (v.has("tasks")) s.tasks = v["tasks"].count<std::uint32_t>();
    if (v.has("stopped_by")) s.stopped_by = v["stopped_by"].string();
    // Added in version 1.4.
    if (v.has("full_tables"))
        for (const Value& f : v["full_tables"].elements())
            s.full_tables.push_back(FullTable{f["table"].string(),
                                              f["capacity"].count<std::uint32_t>(),
                                              f["executions"].count<std::uint64_t>()});
    // Added in version 1.12.
    if (v.has("fully_ordered")) s.fully_ordered = v["fully_ordered"].strings();
    s.elapsed_seconds = v["elapsed_seconds"].number();
    // Added in version 1.4.
    if (v.has("minimizing_seconds")) s.minimizing_seconds = v["minimizing_seconds"].number();
    // Added in version 1.10.
    if (v.has("threads")) s.threads = v["threads"].count<std::uint32_t>();
    // Added in version 1.18.
    if (v.has("checkpoints")) {
        const Value c = v["checkpoints"];
        s.checkpoints.off = c["off"].string();
        s.checkpoints.saved = c["saved"].count<std::uint64_t>();
        s.checkpoints.resumed = c["resumed"].count<std::uint64_t>();
        s.checkpoints.steps_kept = c["steps_kept"].count<std::uint64_t>();
    }
    s.total = read_counters(v["total"]);
    s.most = read_counters(v["most"]);
    for (const Value& h : v["holds"].elements()) {
        LockHolds l;
        l.lock = h["lock"].string();
        // Added in version 1.6.
        if (h.has("acquisitions")) {
            l.stats.acquisitions = h["acquisitions"].count<std::uint64_t>();
            l.stats.contended = h["contended"].count<std::uint64_t>();
            l.stats.sleeps = h["sleeps"].count<std::uint64_t>();
        }
        l.stats.holds = h["holds"].count<std::uint64_t>();
        l.stats.steps = h["steps"].count<std::uint64_t>();
        l.stats.longest = h["longest"].count<std::uint32_t>();
        s.holds.push_back(std::move(l));
    }
    // Added in version 1.6.
    if (v.has("ops"))
        for (const Value& o : v["ops"].elements()) {
            OpWaits w{o["op"].string(),
                      o["count"].count<std::uint64_t>(),
                      o["waited"].count<std::uint64_t>(),
                      o["worst"].count<std::uint32_t>(),
                      {}};
            const Value schedule = o["worst_schedule"];
            std::string error;
            if (!parse_schedule(schedule.string(), w.worst_schedule, error))
                fail(schedule.path(), error);
            s.ops.push_back(std::move(w));
        }
    // Added in version 1.7.
    if (v.has("wait_bounds"))
        for (const Value& b : v["wait_bounds"].elements())
            s.wait_bounds.push_back(WaitBound{b["op"].string(), b["steps"].count<std::uint32_t>(),
                                              b["declared"].boolean()});
    // Added in version 1.7.
    if (v.has("wait_ratios"))
        for (const Value& r : v["wait_ratios"].elements())
            s.wait_ratios.push_back(WaitRatio{r["op"].string(), r["ratio"].number()});
    // Added in version 1.8.
    if (v.has("states")) {
        const Value st = v["states"];
        s.states.stored = st["stored"].count<std::uint64_t>();
        s.states.matched = st["matched"].count<std::uint64_t>();
        s.states.bytes = st["bytes"].count<std::uint64_t>();
        s.states.full = st["full"].boolean();
        // Added in version 1.11.
        if (st.has("breadth_first")) s.states.breadth_first = st["breadth_first"].boolean();
        // Added in version 1.19: before it, lists were kept in order.
        s.states.lists_in_order = "a report before version 1.19";
        if (st.has("lists_in_order")) {
            s.states.lists_in_order = st["lists_in_order"].string();
            s.states.executions_before_order = st["executions_before_order"].count<std::uint64_t>();
        }
        // Added in version 1.20: before it, loops were watched.
        s.states.loops_watched = "a report before version 1.20";
        if (st.has("loops_watched")) {
            s.states.loops_watched = st["loops_watched"].string();
            s.states.executions_before_watch = st["executions_before_watch"].count<std::uint64_t>();
        }
    }
    // Added in version 1.3.
    if (v.has("properties"))
        for (const Value& p : v["properties"].elements()) {
            PropertyStats out;
            const Value kind = p["kind"];
            if (!parse_property_kind(kind.string(), out.kind))
                fail(kind.path(), kind.json().dump() + " is not a property kind");
            out.name = p["name"].string();
            out.evaluations = p["evaluations"].count<std::uint64_t>();
            out.after_release = p["after_release"].count<std::uint64_t>();
            out.release = p["release"].string();
            // Added in version 1.5.
            if (p.has("checked")) out.checked = p["checked"].boolean();
            s.properties.push_back(std::move(out));
        }
    return s;
}

Expectation read_expected(const Value& v) {
    const Value verdict = v["verdict"];
    if (verdict.string() == "verified") return Expectation::verified();
    if (verdict.string() != "violation")
        fail(verdict.path(), verdict.json().dump() + " is not \"verified\" or \"violation\"");
    const Value kind = v["kind"];
    Expectation e = Expectation::violation({}, v["property"].string());
    if (!parse_kind(kind.string(), e.kind))
        fail(kind.path(), kind.json().dump() + " is not a violation kind");
    return e;
}

Judgement read_judgement(const Value& expected, const Value& v) {
    Judgement j;
    j.expected = read_expected(expected);
    const Value agreement = v["agreement"];
    if (!parse_agreement(agreement.string(), j.agreement))
        fail(agreement.path(), agreement.json().dump() + " is not an agreement");
    j.text = v["text"].string();
    return j;
}

CounterexampleSize read_size(const Value& v) {
    return CounterexampleSize{.preemptions = v["preemptions"].count<std::uint32_t>(),
                              .steps = v["steps"].count<std::uint32_t>(),
                              .minimized = v["minimized"].boolean(),
                              .minimal = v["minimal"].boolean(),
                              // Added in version 1.4.
                              .minimize_stopped_by = v.has("minimize_stopped_by")
                                                         ? v["minimize_stopped_by"].string()
                                                         : std::string(),
                              .found_preemptions = v["found_preemptions"].count<std::uint32_t>(),
                              .found_steps = v["found_steps"].count<std::uint32_t>()};
}

// Added in version 1.3: absent or null, no model call is known.
CallSite read_location(const Value& v) {
    CallSite c;
    if (!v.has("location") || v["location"].json().is_null()) return c;
    const Value location = v["location"];
    c.file = location["file"].string();
    c.line = location["line"].count<std::uint32_t>();
    c.function = location["function"].string();
    if (!c.known()) fail(location["file"].path(), "expected a file name");
    return c;
}

Violation read_violation(const Value& v) {
    Violation out;
    const Value kind = v["kind"];
    if (!parse_kind(kind.string(), out.kind))
        fail(kind.path(), kind.json().dump() + " is not a violation kind");
    out.property = v["property"].string();
    out.message = v["message"].string();
    out.step = v["step"].count<std::uint32_t>();
    out.details = v["details"].strings();
    out.location = read_location(v);
    return out;
}

TraceStep read_step(const Value& v) {
    TraceStep s;
    s.step = v["step"].count<std::uint32_t>();
    s.task_id = v["task_id"].count<TaskId>();
    s.task = v["task"].string();
    s.operation = v["operation"].string();
    s.object = v["object"].string();
    for (const Value& a : v["args"].elements())
        s.args.push_back(a.integer<std::int64_t>());
    // Added in version 1.13.
    if (v.has("object_first")) s.object_first = v["object_first"].boolean();
    const Value value = v["value"];
    if (!value.json().is_null()) s.value = value.integer<std::int64_t>();
    if (v.has("value_text")) s.value_text = v["value_text"].string();
    s.state = v["state"].string();
    s.preempted = v["preempted"].boolean();
    s.synced_from = v["synced_from"].count<std::uint32_t>();
    // Added in version 1.12.
    if (v.has("missed")) s.missed = v["missed"].count<std::uint32_t>();
    if (v.has("later_from")) s.later_from = v["later_from"].count<std::uint32_t>();
    s.location = read_location(v);
    return s;
}

PendingTask read_pending(const Value& v) {
    PendingTask p;
    p.task_id = v["task_id"].count<TaskId>();
    p.task = v["task"].string();
    p.operation = v["operation"].string();
    p.object = v["object"].string();
    p.blocked = v["blocked"].boolean();
    p.holder = v["holder"].string();
    p.location = read_location(v);
    return p;
}

Trace read_trace(const Value& v) {
    Trace t;
    t.tasks = v["tasks"].strings();
    for (const Value& s : v["steps"].elements())
        t.steps.push_back(read_step(s));
    for (const Value& p : v["pending"].elements())
        t.pending.push_back(read_pending(p));
    // Added in version 1.12.
    if (v.has("barriers")) t.barriers = v["barriers"].strings();
    return t;
}

Counterexample read_counterexample(const Value& v) {
    Counterexample c;
    c.violation = read_violation(v["violation"]);
    // Before 1.5 format_schedule wrote an empty schedule as "" (now "none"), which
    // parse_schedule refuses.
    const Value schedule = v["schedule"];
    std::string error;
    if (!schedule.string().empty() && !parse_schedule(schedule.string(), c.schedule, error))
        fail(schedule.path(), error);
    c.replay_command = v["replay_command"].string();
    c.trace = read_trace(v["trace"]);
    return c;
}

RunReport read_report(const Value& doc) {
    if (!doc.json().is_object()) fail("the document", "expected an object");
    const std::string schema = doc["schema"].string();
    if (schema != kReportSchema)
        fail("schema", Json(schema).dump() + " is not \"" + kReportSchema + "\"");
    const Value version = doc["version"];
    if (!version.json().is_number_unsigned() || version.json() != kReportVersion)
        fail("version", version.json().dump() + " is not supported (this lockcheck reads " +
                            std::to_string(kReportVersion) + ")");

    RunReport r;
    // Added in version 1.4.
    if (doc.has("command")) r.command = doc["command"].string();
    if (doc.has("exit_code")) r.exit_code = doc["exit_code"].count<std::uint8_t>();
    r.summary.model = doc["model"].string();
    r.summary.variant = doc["variant"].string();
    for (const Value& p : doc["parameters"].elements())
        r.summary.parameters.emplace_back(p["name"].string(), p["value"].integer<int>());
    r.summary.strategy = doc["strategy"].string();
    // Added in version 1.12.
    if (doc.has("memory_model"))
        r.summary.memory_model = memory_model_named(doc["memory_model"].string());
    r.depth = doc["depth"].count<std::uint32_t>();
    // Added in version 1.13, when --depth came to count choices rather than steps.
    if (doc.has("max_steps")) r.max_steps = doc["max_steps"].count<std::uint32_t>();
    // Added in version 1.4.
    if (doc.has("spin_bound")) r.spin_bound = doc["spin_bound"].count<std::uint32_t>();
    // Added in version 1.5.
    if (doc.has("checks")) {
        r.summary.lockdep = doc["checks"]["lockdep"].boolean();
        r.summary.races = doc["checks"]["races"].boolean();
    }
    r.summary.bound = doc["bound"].string();
    r.summary.violations = doc["violations"].count<std::size_t>();
    // Added in version 1.3; null for a replay.
    if (doc.has("expected") && !doc["expected"].json().is_null())
        r.summary.judgement = read_judgement(doc["expected"], doc["judgement"]);
    // Added in version 1.1.
    if (doc.has("sampled")) r.summary.sampled = doc["sampled"].boolean();
    if (doc.has("preemption_bound") && !doc["preemption_bound"].json().is_null())
        r.summary.preemption_bound = doc["preemption_bound"].count<std::uint32_t>();
    if (doc.has("pct") && !doc["pct"].json().is_null()) {
        r.summary.pct_depth = doc["pct"]["depth"].count<std::uint32_t>();
        r.summary.pct_steps = doc["pct"]["steps"].count<std::uint32_t>();
    }
    // Added in version 1.9.
    if (doc.has("shard") && !doc["shard"].json().is_null())
        r.summary.shard =
            Shard{doc["shard"]["index"].count<unsigned>(), doc["shard"]["count"].count<unsigned>()};
    if (doc.has("keep_going")) r.summary.keep_going = doc["keep_going"].boolean();
    // Added in version 1.10.
    if (doc.has("one_thread") && !doc["one_thread"].json().is_null())
        r.summary.one_thread = doc["one_thread"].string();
    r.summary.stats = read_stats(doc["stats"]);
    for (const Value& s : doc["counterexample_sizes"].elements())
        r.summary.counterexamples.push_back(read_size(s));
    for (const Value& c : doc["counterexamples"].elements())
        r.counterexamples.push_back(read_counterexample(c));
    return r;
}

} // namespace

namespace {

Json report_json(const RunReport& r) {
    Json parameters = Json::array(), sizes = Json::array(), counterexamples = Json::array();
    for (const auto& [name, value] : r.summary.parameters)
        parameters.push_back(Json{{"name", name}, {"value", value}});
    for (const CounterexampleSize& c : r.summary.counterexamples)
        sizes.push_back(size_json(c));
    for (const Counterexample& c : r.counterexamples)
        counterexamples.push_back(counterexample_json(c));
    Json doc{
        {"schema", kReportSchema},
        {"version", kReportVersion},
        {"minor_version", kReportMinorVersion},
        {"lockcheck_version", kLockcheckVersion},
        {"command", r.command},
        {"model", r.summary.model},
        {"variant", r.summary.variant},
        {"parameters", std::move(parameters)},
        {"strategy", r.summary.strategy},
        {"memory_model", std::string(memory_model_name(r.summary.memory_model))},
        {"depth", r.depth},
        {"max_steps", r.max_steps},
        {"spin_bound", r.spin_bound},
        {"checks", Json{{"lockdep", r.summary.lockdep}, {"races", r.summary.races}}},
        {"bound", r.summary.bound},
        {"violations", r.summary.violations},
        {"verdict", std::string(verdict_name(verdict_of(r.summary)))},
        {"exit_code", r.exit_code},
        {"expected",
         r.summary.judgement ? expected_json(r.summary.judgement->expected) : Json(nullptr)},
        {"judgement", r.summary.judgement ? judgement_json(*r.summary.judgement) : Json(nullptr)},
        {"sampled", r.summary.sampled},
        {"preemption_bound",
         r.summary.preemption_bound ? Json(*r.summary.preemption_bound) : Json(nullptr)},
        {"pct", r.summary.pct_depth
                    ? Json{{"depth", r.summary.pct_depth}, {"steps", r.summary.pct_steps}}
                    : Json(nullptr)},
        {"shard", r.summary.shard
                      ? Json{{"index", r.summary.shard->index}, {"count", r.summary.shard->count}}
                      : Json(nullptr)},
        {"keep_going", r.summary.keep_going},
        {"one_thread", r.summary.one_thread.empty() ? Json(nullptr) : Json(r.summary.one_thread)},
        {"stats", stats_json(r.summary.stats)},
        {"counterexample_sizes", std::move(sizes)},
        {"counterexamples", std::move(counterexamples)}};
    return doc;
}

std::string text_of(const Json& doc) {
    return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

} // namespace

std::string to_json(const RunReport& r) {
    return text_of(report_json(r));
}

std::string to_json(const CheckAllReport& check_all) {
    Json reports = Json::array();
    for (const RunReport& r : check_all.runs)
        reports.push_back(report_json(r));
    return text_of(Json{{"schema", kCheckAllSchema},
                        {"version", kReportVersion},
                        {"minor_version", kReportMinorVersion},
                        {"lockcheck_version", kLockcheckVersion},
                        {"command", check_all.command},
                        {"exit_code", check_all.exit_code},
                        {"runs", std::move(reports)}});
}

bool from_json(const std::string& text, RunReport& report, std::string& error) {
    try {
        const Json doc = Json::parse(text);
        report = read_report(Value(doc, ""));
        return true;
    } catch (const Json::exception& e) {
        // Only parse() throws these (the reader checks each value's type before it reads it):
        // "[json.exception.parse_error.101] parse error at line 1, ...", or for a number that
        // no double holds "[json.exception.out_of_range.406] number overflow parsing '1e999'".
        // Keep what follows the id.
        const std::string what = e.what();
        const std::size_t start = what.find("] ");
        error = "not JSON: " + one_line(start == std::string::npos ? what : what.substr(start + 2));
    } catch (const Malformed& m) {
        error = m.reason;
    }
    return false;
}

} // namespace lockcheck::detail
