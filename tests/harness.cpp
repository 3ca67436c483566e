// Running a model under DFS (or another search) for a test, and the checks every model test makes
// on the result.
#include "harness.hpp"

#include <regex>
#include <set>

#include "reports/json_report.hpp"

#include <CppUTest/TestHarness.h>

namespace lockcheck::detail::testing {

SearchResult check_model(const Setup& setup, CheckOptions options) {
    return check_model(setup, Search::dfs, options);
}

SearchResult check_model(const Setup& setup, Search search, CheckOptions options) {
    const std::unique_ptr<Strategy> strategy = make_search(search, options.depth);
    // Under lkmm with load buffering: as many rounds as its evidence needs.
    options.next_round = [search, depth = options.depth] { return make_search(search, depth); };
    return explore(setup, *strategy, options);
}

Setup default_setup(const Protocol& protocol, std::size_t variant) {
    return [&protocol, variant, values = protocol.default_values()] {
        protocol.setup(variant, values);
    };
}

namespace {
// Every object and its state: executions that end here are indistinguishable to the model.
// The objects as they describe themselves, but for the steps they name ("freed by mount at
// step 38"): two executions that differ only in the order of independent steps end in one
// state, though its steps are numbered differently.
// `lists_as_sets`: a list as what is on it, by name, as a search that keeps lists as sets
// tells states apart.
std::string state_of(const Execution& ex, bool lists_as_sets) {
    static const std::regex kStep("at step [0-9]+");
    std::string s;
    for (const Object* obj : ex.objects()) {
        s += obj->name() + "=";
        std::string state;
        const auto* list = dynamic_cast<const list_head*>(obj);
        if (lists_as_sets && list && !list->poisoned) {
            std::set<std::string> on;
            for (const list_head* e = list->next_; e != list; e = e->next_)
                on.insert(e->name());
            for (const std::string& name : on)
                state += name + ",";
        } else {
            obj->describe(state);
        }
        s += std::regex_replace(state, kStep, "at step _");
        s += ";";
    }
    return s;
}
} // namespace

namespace {
std::vector<Protocol> registered_where(ModelKind kind) {
    std::vector<Protocol> models;
    for (const Protocol& p : registered_models())
        if (p.kind == kind) models.push_back(p);
    return models;
}
} // namespace

const std::vector<Protocol>& protocol_models() {
    static const std::vector<Protocol> models = registered_where(ModelKind::protocol);
    return models;
}

std::vector<Protocol> protocol_models_half(int half) {
    // The costly comparisons (cil-push, log-during-commit and iomap-uptodate; fuse-i-size,
    // rename-pin and tree-lock) split between the halves, the cheap ones with them.
    static const std::set<std::string> kSecond = {"buffered-write", "flctx", "fuse-i-size",
                                                  "rename-pin", "tree-lock"};
    std::vector<Protocol> models;
    for (const Protocol& p : protocol_models())
        if (static_cast<int>(kSecond.count(p.name)) == half) models.push_back(p);
    return models;
}

const std::vector<Protocol>& benchmark_models() {
    static const std::vector<Protocol> models = registered_where(ModelKind::benchmark);
    return models;
}

const std::vector<Protocol>& litmus_models() {
    static const std::vector<Protocol> models = registered_where(ModelKind::litmus);
    return models;
}

bool dfs_exhausts(const Protocol& protocol, std::size_t variant) {
    if (protocol.name == "tree-lock" || protocol.name == "log-during-commit" ||
        protocol.name == "iomap-uptodate" || protocol.name == "flctx")
        return false;
    const std::string& name = protocol.variants[variant].name;
    if (protocol.name == "cil-push") return name.rfind("percpu-rwsem", 0) != 0;
    if (protocol.name == "fuse-i-size") return name == "unlocked-64bit";
    return protocol.name != "rename-pin" || (name != "no-pin" && name != "pin-after-unlink");
}

std::uint32_t dfs_feasible_depth(const Protocol& protocol, std::size_t variant) {
    if (dfs_exhausts(protocol, variant)) return protocol.depth_for(variant);
    // cil-push's percpu-rwsem handshake interleaves its commits from their first steps: 14
    // steps are 77010 executions, 18 four million.
    // iomap-uptodate's three completions interleave with each other from their first steps:
    // 10 steps are 8700 executions, 16 nearly a million. Within 12, lockdep's reports come in
    // both orders of their usages only where the step backstop (not the depth, which every
    // search cuts alike) happens to leave them.
    if (protocol.name == "iomap-uptodate") return 10;
    // flctx's three system calls interleave from their first steps: DFS runs 330,840
    // executions to the end (0.4 s on the command line, the tests' state strings several
    // times that, in each of the groups that compare); 3 steps deep, 47,296.
    if (protocol.name == "flctx") return 3;
    // fuse-i-size's writer and reader retry while the other writes: within 16 steps DFS runs
    // 100,730 executions of unlocked; its torn read is at step 24, where DFS runs 12.5 million
    // past it.
    if (protocol.name == "fuse-i-size") return 16;
    return protocol.name == "cil-push" ? 14 : 24;
}

Reached reach(const Setup& setup, Strategy& strategy, std::uint32_t depth, bool forgets,
              std::uint32_t max_steps, const std::function<void(Execution::Limits&)>& adjust) {
    StackPool stacks(CheckOptions{}.stack_size);
    // As explore() does: loops as cycles and lists as sets, and all over again with a fresh
    // search, loops watched, once that search meets what it does not judge (a violation, a cut,
    // a loop for ever); with lists in order once an execution reads one's order.
    const bool stateful = strategy.fingerprints();
    std::vector<std::unique_ptr<Strategy>> again;
    Strategy* search = &strategy;
    bool loops_as_cycles = stateful && strategy.finds_cycles();
    bool lists_as_sets = stateful;
    Reached r;
    const auto begin_again = [&] {
        r = Reached{};
        r.loops_watched = !loops_as_cycles;
        r.lists_as_sets = lists_as_sets;
        again.push_back(strategy.fresh());
        search = again.back().get();
    };
    r.lists_as_sets = lists_as_sets;
    for (;;) {
        Execution::Limits limits{depth, 10};
        limits.max_steps = max_steps ? max_steps : depth;
        limits.fingerprints = search->fingerprints();
        limits.forgets = forgets;
        limits.lists_as_sets = lists_as_sets;
        limits.loops_as_cycles = loops_as_cycles;
        if (adjust) adjust(limits);
        Execution ex(stacks, *search, limits);
        setup();
        const Outcome out = ex.run();
        if (!ex.list_order_read().empty()) {
            lists_as_sets = false;
            begin_again();
            r.lists_in_order = true;
            continue;
        }
        const bool judged = !out.violation && (out.end == End::finished || out.end == End::stopped);
        if (limits.loops_as_cycles && !judged) {
            loops_as_cycles = false;
            lists_as_sets = stateful;
            begin_again();
            continue;
        }
        ++r.executions;
        if (out.end == End::stopped) ++r.sleep_blocked;
        if (out.violation)
            r.violations.emplace(out.violation->kind, out.violation->property);
        else if (out.end == End::finished) {
            r.final_states.insert(state_of(ex, false));
            r.final_sets.insert(state_of(ex, true));
        }
        if (search->next_execution()) continue;
        if (!limits.loops_as_cycles || search->loops_unjudged().empty()) return r;
        loops_as_cycles = false;
        lists_as_sets = stateful;
        begin_again();
    }
}

bool same_final_states(const Reached& a, const Reached& b) {
    // Lists kept as sets: a final state stands for every order of their entries.
    const auto sets = [](const Reached& r) { return r.lists_as_sets && !r.lists_in_order; };
    return sets(a) || sets(b) ? a.final_sets == b.final_sets : a.final_states == b.final_states;
}

void expect_reached_what_dfs_reached(const Reached& reduced, const Reached& all,
                                     const std::string& what) {
    CHECK_TEXT(same_final_states(reduced, all),
               (what + ": reached " + std::to_string(reduced.final_states.size()) +
                " final states, DFS " + std::to_string(all.final_states.size()))
                   .c_str());
    CHECK_TEXT(reduced.violations == all.violations,
               (what + ": found " + std::to_string(reduced.violations.size()) +
                " kinds of violation, DFS " + std::to_string(all.violations.size()))
                   .c_str());
}

void expect_found_by_every_search(const Setup& setup, ViolationKind kind,
                                  const std::string& property, const std::string& what) {
    for (Search search : kExhaustiveSearches) {
        const SearchResult r = check_model(setup, search, CheckOptions{});
        const std::string text = what + " (" + search_name(search) + ")";
        const Violation& v = only_violation(r, text);
        CHECK_EQUAL_TEXT(kind, v.kind, text.c_str());
        if (!property.empty())
            STRCMP_EQUAL_TEXT(property.c_str(), v.property.c_str(), text.c_str());
    }
}

void expect_verified_by_every_search(const Setup& setup, const std::string& what) {
    for (Search search : kExhaustiveSearches)
        expect_verified(check_model(setup, search, CheckOptions{}),
                        what + " (" + search_name(search) + ")");
}

void expect_dpor_reaches_what_dfs_does(const Setup& setup, const std::string& what,
                                       std::uint32_t depth, MemoryModel memory_model) {
    const auto limits = [memory_model](Execution::Limits& l) { l.memory_model = memory_model; };
    const Reached all = reach(setup, *make_search(Search::dfs, depth), depth, true, 0, limits);
    for (Search search : {Search::dpor, Search::optimal_dpor}) {
        const Reached reduced = reach(setup, *make_search(search, depth), depth, true, 0, limits);
        const std::string text =
            what + ", " + search_name(search) + (memory_model == MemoryModel::lkmm ? ", lkmm" : "");
        expect_reached_what_dfs_reached(reduced, all, text);
        CHECK_TEXT(reduced.executions <= all.executions, text.c_str());
    }
}

Distinct distinct_violations(const Setup& setup, Search search, std::uint32_t depth) {
    CheckOptions options;
    options.depth = depth;
    options.max_steps = depth; // a bound DFS can exhaust: its steps
    options.keep_going = true;
    const SearchResult r = check_model(setup, search, options);
    Distinct d;
    for (const Finding& f : r.findings)
        d.keys.insert(f.violation.key());
    d.executions = r.stats.executions;
    return d;
}

std::set<std::string> expect_every_search_finds_the_same(const Setup& setup, std::uint32_t depth,
                                                         const std::string& what) {
    const Distinct all = distinct_violations(setup, Search::dfs, depth);
    auto listed = [](const std::set<std::string>& keys) {
        std::string out;
        for (const std::string& k : keys)
            out += "\n  " + k;
        return out;
    };
    for (Search search : {Search::dpor, Search::optimal_dpor}) {
        const Distinct reduced = distinct_violations(setup, search, depth);
        const std::string text = what + ", " + search_name(search) + " --keep-going found" +
                                 listed(reduced.keys) + "\nDFS found" + listed(all.keys);
        CHECK_TEXT(reduced.keys == all.keys, text.c_str());
        CHECK_TEXT(reduced.executions <= all.executions, text.c_str());
    }
    return all.keys;
}

SearchResult check_keep_going(const Setup& setup, CheckOptions options) {
    options.keep_going = true;
    return check_model(setup, options);
}

const Violation& only_violation(const SearchResult& result, const std::string& what) {
    const std::string text = what + ": expected exactly one violation, found " +
                             std::to_string(result.findings.size()) + describe(result);
    CHECK_TEXT(result.findings.size() == 1, text.c_str());
    return result.findings.front().violation;
}

void expect_verified(const SearchResult& result, const std::string& what) {
    const std::string text = what + ": expected no violation, found" + describe(result);
    CHECK_TEXT(result.findings.empty(), text.c_str());
}

void expect_as_declared(const SearchResult& result, const Expectation& expected,
                        const std::string& what) {
    if (!expected.expects_violation) return expect_verified(result, what);
    const Violation& found = only_violation(result, what);
    CHECK_EQUAL_TEXT(expected.kind, found.kind, what.c_str());
    CHECK_TEXT(expected.matches(found),
               (what + ": found " + found.property + ", declared " + expected.property).c_str());
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::string describe(const SearchResult& result) {
    std::string out;
    for (const Finding& f : result.findings)
        out += "\n  " + f.violation.key();
    return out;
}

std::string report_of(SearchResult result) {
    RunReport report;
    result.stats.forget_speed();
    report.summary.stats = result.stats;
    report.summary.violations = result.findings.size();
    for (const Finding& f : result.findings)
        report.counterexamples.push_back(Counterexample{f.violation, f.schedule, {}, ""});
    return to_json(report);
}

} // namespace lockcheck::detail::testing

namespace lockcheck::detail {
SimpleString StringFrom(ViolationKind kind) {
    return SimpleString(std::string(kind_name(kind)).c_str());
}
} // namespace lockcheck::detail
