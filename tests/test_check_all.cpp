// check-all, the command for CI: every variant judged against the verdict it declares, a
// table, the counterexample of a variant that differs, exit codes 0/1/3, and report files in
// which a differing variant fails and one that cannot be judged is skipped, never a pass.
#include <cstdio>
#include <deque>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "checker/model_registry.hpp"
#include "cli/check_all.hpp"
#include "cli/check_command.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// Two tasks increment a plain counter without a lock: a lost update, found by a final check.
// One variant declares it, one wrongly declares "verified", one declares another kind.
const char* const kSum = "counter is the number of increments";

Protocol counter_model() {
    return Protocol{
        .name = "counter",
        .summary = "two unlocked increments",
        .variants = {{"declared-race", "declares the lost update",
                      Expectation::violation(ViolationKind::final_check, kSum)},
                     {"declared-verified", "wrongly declares it correct", Expectation::verified()},
                     {"declared-deadlock", "declares another kind",
                      Expectation::violation(ViolationKind::deadlock, "deadlock")}},
        .setup =
            [](std::size_t, const ParameterValues&) {
                auto& counter = this_execution().make<shared<int>>("counter");
                for (const char* name : {"inc0", "inc1"})
                    spawn(name, [&counter] { WRITE_ONCE(counter, READ_ONCE(counter) + 1); });
                final_check(kSum, [&counter] { return counter.peek() == 2; });
            },
    };
}

// The counter with a size: --tasks N increment it.
Protocol sized_counter_model() {
    Protocol p = counter_model();
    p.name = "sized-counter";
    p.parameters = {{"tasks", "tasks incrementing the counter", 2, 2, 3}};
    p.setup = [](std::size_t, const ParameterValues& values) {
        auto& counter = this_execution().make<shared<int>>("counter");
        for (int i = 0; i < values[0]; ++i)
            spawn("inc" + std::to_string(i),
                  [&counter] { WRITE_ONCE(counter, READ_ONCE(counter) + 1); });
        final_check(kSum, [&counter, n = values[0]] { return counter.peek() == n; });
    };
    return p;
}

// Message passing through an atomic_t flag set and read without release/acquire: under sc the
// message always arrives, under lkmm the reader may see the flag and the old message.
// One variant declares that, one declares it verified under both.
const char* const kMessage = "a reader that saw the flag saw the message";

Protocol message_passing_model() {
    const Expectation verified = Expectation::verified();
    const Expectation lost = Expectation::violation(ViolationKind::final_check, kMessage);
    return Protocol{
        .name = "mp",
        .summary = "a flag in an atomic_t, unordered",
        .variants = {{"declared-lost-under-lkmm", "declares the lkmm outcome", verified, 0, lost},
                     {"declared-verified", "wrongly declares it ordered", verified}},
        .setup =
            [](std::size_t, const ParameterValues&) {
                struct Memory {
                    shared<int> msg{"msg"};
                    atomic_t flag{"flag"};
                    int seen_flag = 0, seen_msg = 0;
                };
                auto& m = this_execution().make<Memory>();
                spawn("writer", [&m] {
                    WRITE_ONCE(m.msg, 1);
                    atomic_set(&m.flag, 1);
                });
                spawn("reader", [&m] {
                    m.seen_flag = atomic_read(&m.flag);
                    m.seen_msg = READ_ONCE(m.msg);
                });
                final_check(kMessage, [&m] { return !m.seen_flag || m.seen_msg; });
            },
    };
}

struct CheckAll {
    int code = -1;
    std::string out, err;
};

CheckAll check_all(const Protocol& p, cli::CheckAllRequest request = {}) {
    std::ostringstream out, err;
    CheckAll r;
    r.code = cli::run_check_all(request, {&p}, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string temp_path(const char* name) {
    return "/tmp/lockcheck-test-check-all-" + std::to_string(::getpid()) + "-" + name;
}

} // namespace

TEST_GROUP(CheckAll){};

TEST(CheckAll, every_shipped_variant_gives_its_declared_verdict_from_the_command_line) {
    const Run r = run_lockcheck({"check-all"});
    CHECK_EQUAL_TEXT(0, r.exit_code, r.out.c_str());
    std::size_t variants = 0;
    for (const Protocol& p : registered_models())
        for (const Variant& v : p.variants) {
            ++variants;
            CHECK_TEXT(contains(r.out, p.name + " ") && contains(r.out, " " + v.name + " "),
                       (p.name + " " + v.name + " has no row").c_str());
        }
    const std::string last = "check-all: " + std::to_string(variants) + " variants, " +
                             std::to_string(variants) + " as declared, 0 differ, 0 incomplete\n";
    CHECK_TEXT(contains(r.out, last), r.out.c_str());
}

// Variants side by side (--jobs 2) or one after the other: the same table, reports and exit
// code, byte for byte but for the times, and each variant's search on one thread of its own;
// under lkmm each side's search has load buffering's rounds of its own.
namespace {
void expect_the_same_bytes_side_by_side(const std::vector<std::string>& args) {
    std::string outs[2], jsons[2], junits[2];
    for (int i = 0; i < 2; ++i) {
        const std::string json = temp_path(("sides.json" + std::to_string(i)).c_str());
        const std::string junit = temp_path(("sides.xml" + std::to_string(i)).c_str());
        std::vector<std::string> command = args;
        command.insert(command.end(),
                       {"--no-timing", "--jobs", i ? "2" : "1", "--json", json, "--junit", junit});
        const Run r = run_lockcheck(command);
        CHECK_EQUAL_TEXT(0, r.exit_code, r.err.c_str());
        outs[i] = r.out;
        // The command lines, which name --jobs and the files, are the only difference.
        jsons[i] = std::regex_replace(slurp(json), std::regex("\"command\": \"[^\"]*\""), "");
        junits[i] = slurp(junit);
        std::remove(json.c_str());
        std::remove(junit.c_str());
    }
    STRCMP_EQUAL(outs[0].c_str(), outs[1].c_str());
    STRCMP_EQUAL(jsons[0].c_str(), jsons[1].c_str());
    STRCMP_EQUAL(junits[0].c_str(), junits[1].c_str());
}
} // namespace

TEST(CheckAll, variants_side_by_side_give_the_same_bytes_as_one_after_the_other) {
    expect_the_same_bytes_side_by_side({"check-all", "rename-pin", "tree-lock", "cil-push"});
    expect_the_same_bytes_side_by_side({"check-all", "lkmm-idioms", "--memory-model", "lkmm"});
    // The runs of a model that differs from its declaration too.
    cli::CheckAllRequest request;
    request.timing = false;
    const CheckAll one = check_all(counter_model(), request);
    request.jobs = 2;
    const CheckAll two = check_all(counter_model(), request);
    CHECK_EQUAL(1, two.code);
    STRCMP_EQUAL(one.out.c_str(), two.out.c_str());
}

TEST(CheckAll, a_row_names_sizes_expected_got_and_executions) {
    const CheckAll r = check_all(counter_model());
    CHECK_TEXT(contains(r.out, "model    variant            sizes  expected"), r.out.c_str());
    CHECK_TEXT(contains(r.out, "counter  declared-race      "), r.out.c_str());
    CHECK_TEXT(contains(r.out, "violation (final-check)  violation (final-check)  as-declared"),
               r.out.c_str());
}

TEST(CheckAll, a_variant_that_differs_fails_the_run_with_its_counterexample) {
    const CheckAll r = check_all(counter_model());
    CHECK_EQUAL_TEXT(1, r.code, r.out.c_str());
    CHECK_TEXT(contains(r.out, "verified                 violation (final-check)  differs"),
               r.out.c_str());
    CHECK_TEXT(contains(r.out, "== counter --variant declared-verified: expected verified: got"),
               r.out.c_str());
    CHECK_TEXT(contains(r.out, "VIOLATION (final-check)"), r.out.c_str());
    CHECK_TEXT(contains(r.out, "replay: lockcheck counter --variant declared-verified --replay"),
               r.out.c_str());
    // A violation of another kind than the one declared differs too.
    CHECK_TEXT(contains(r.out, "violation (deadlock)     violation (final-check)  differs"),
               r.out.c_str());
    CHECK_TEXT(contains(r.out, "check-all: 3 variants, 1 as declared, 2 differ, 0 incomplete"),
               r.out.c_str());
}

TEST(CheckAll, a_row_whose_every_execution_was_cut_is_incomplete_and_so_is_the_run) {
    // Three increments with a depth of 1 of their own: in any order the third task's steps
    // depend on the second's, which depend on the first's, so no execution finishes.
    Protocol p = sized_counter_model();
    p.parameters = {{"tasks", "tasks incrementing the counter", 3, 3, 3}};
    p.variants = {{"shallow", "declared verified", Expectation::verified(), 1}};
    const CheckAll r = check_all(p);
    CHECK_TEXT(contains(r.out, "every execution was cut by the depth bound"), r.out.c_str());
    CHECK_EQUAL_TEXT(cli::kExitIncomplete, r.code, r.out.c_str());
    CHECK_TEXT(contains(r.out, "check-all: 1 variants, 0 as declared, 0 differ, 1 incomplete"),
               r.out.c_str());
}

TEST(CheckAll, a_run_a_limit_stops_is_incomplete_never_a_pass) {
    cli::CheckAllRequest request;
    request.time_limit = 1e-9; // stops every search after its first execution
    const Protocol* spin_block = find_registered_model("tree-lock");
    std::ostringstream out, err;
    const int code = cli::run_check_all(request, {spin_block}, out, err);
    // The mutex variants finish in their first two executions; spin-block cannot.
    CHECK_TEXT(contains(out.str(), "incomplete (--time-limit)"), out.str().c_str());
    CHECK_EQUAL_TEXT(cli::kExitIncomplete, code, out.str().c_str());
}

TEST(CheckAll, junit_fails_a_differing_variant_and_skips_an_incomplete_one) {
    cli::CheckAllRequest request;
    request.junit = temp_path("junit.xml");
    request.json = temp_path("runs.json");
    CHECK_EQUAL(1, check_all(counter_model(), request).code);
    const std::string junit = slurp(request.junit);
    CHECK_TEXT(contains(junit, "tests=\"3\" failures=\"2\""), junit.c_str());
    CHECK_TEXT(contains(junit, "<testcase classname=\"counter\" name=\"declared-race\""),
               junit.c_str());
    CHECK_TEXT(contains(junit, "expected verified: got"), junit.c_str());
    keep_for_schema_check(request.json);
    const std::string json = slurp(request.json);
    CHECK_TEXT(contains(json, "\"schema\": \"lockcheck-check-all\""), json.c_str());
    CHECK_TEXT(contains(json, "\"variant\": \"declared-deadlock\""), json.c_str());

    request.time_limit = 1e-9;
    std::ostringstream out, err;
    cli::run_check_all(request, {find_registered_model("tree-lock")}, out, err);
    const std::string limited = slurp(request.junit);
    CHECK_TEXT(contains(limited, "<skipped message=\"incomplete: "), limited.c_str());
    std::remove(request.junit.c_str());
    std::remove(request.json.c_str());
}

TEST(CheckAll, under_lkmm_each_variant_is_judged_by_what_it_declares_for_lkmm) {
    const Protocol mp = message_passing_model();
    cli::CheckAllRequest lkmm;
    lkmm.memory_model = MemoryModel::lkmm;
    const CheckAll r = check_all(mp, lkmm);
    CHECK_EQUAL_TEXT(1, r.code, r.out.c_str());
    CHECK_TEXT(contains(r.out, "violation (final-check)  violation (final-check)  as-declared"),
               r.out.c_str());
    CHECK_TEXT(contains(r.out, "verified                 violation (final-check)  differs"),
               r.out.c_str());
    CHECK_TEXT(contains(r.out, "check it alone: lockcheck mp --variant declared-verified "
                               "--memory-model lkmm\n"),
               r.out.c_str());
    // Under sc both are as declared.
    CHECK_EQUAL(0, check_all(mp).code);
}

TEST(CheckAll, a_model_asking_for_stored_states_gets_them_under_sc_and_its_rerun_line_says_so) {
    Protocol p = counter_model();
    const CheckAll dpor = check_all(p);
    CHECK_TEXT(contains(dpor.out, "as-declared  dpor  "), dpor.out.c_str());
    CHECK_TEXT(
        contains(dpor.out, "check it alone: lockcheck counter --variant declared-verified\n"),
        dpor.out.c_str());

    p.check_stores_states = true;
    cli::CheckAllRequest json;
    json.json = temp_path("stored.json");
    const CheckAll stored = check_all(p, json);
    CHECK_EQUAL_TEXT(1, stored.code, stored.out.c_str());
    CHECK_TEXT(contains(stored.out, "as-declared  dfs, state cache  "), stored.out.c_str());
    CHECK_TEXT(contains(stored.out, "differs      dfs, state cache  "), stored.out.c_str());
    CHECK_TEXT(contains(stored.out, "check it alone: lockcheck counter --variant declared-verified "
                                    "--strategy dfs --state-cache\n"),
               stored.out.c_str());
    // The search stored the states it met: the report counts them.
    const nlohmann::json report = nlohmann::json::parse(slurp(json.json));
    std::remove(json.json.c_str());
    CHECK(report["runs"][0]["stats"]["states"]["stored"].get<std::uint64_t>() > 0);

    // Under lkmm the model runs DPOR, whose reductions the memory model's tests hold.
    cli::CheckAllRequest lkmm;
    lkmm.memory_model = MemoryModel::lkmm;
    const CheckAll weak = check_all(p, lkmm);
    CHECK_TEXT(contains(weak.out, "as-declared  dpor  "), weak.out.c_str());
    CHECK_TEXT(!contains(weak.out, "--state-cache"), weak.out.c_str());
}

TEST(CheckAll, a_model_asking_for_stored_states_that_bounds_a_wait_is_searched_by_plain_dfs) {
    Protocol p = counter_model();
    p.check_stores_states = true;
    p.variants = {p.variants.front()};
    const auto counter = p.setup;
    p.setup = [counter](std::size_t v, const ParameterValues& values) {
        counter(v, values);
        max_wait("inc", 10);
    };
    const CheckAll r = check_all(p);
    CHECK_EQUAL_TEXT(0, r.code, (r.out + r.err).c_str());
    CHECK_TEXT(contains(r.out, "as-declared  dfs  "), r.out.c_str());
}

TEST(CheckAll, the_command_line_takes_a_memory_model_and_refuses_another) {
    const Run r = run_lockcheck({"check-all", "lkmm-idioms", "--memory-model", "lkmm"});
    CHECK_EQUAL_TEXT(0, r.exit_code, r.out.c_str());
    const std::string n = std::to_string(find_registered_model("lkmm-idioms")->variants.size());
    CHECK_TEXT(contains(r.out, "check-all: " + n + " variants, " + n + " as declared"),
               r.out.c_str());
    const Run bad = run_lockcheck({"check-all", "--memory-model", "tso"});
    CHECK_EQUAL(cli::kExitUsage, bad.exit_code);
    CHECK_TEXT(is_one_line(bad.err), bad.err.c_str());
}

TEST(CheckAll, an_unknown_model_is_a_one_line_input_error) {
    const Run r = run_lockcheck({"check-all", "rename-pin", "renam-pin"});
    CHECK_EQUAL(cli::kExitUsage, r.exit_code);
    CHECK_TEXT(is_one_line(r.err), r.err.c_str());
    CHECK_TEXT(contains(r.err, "unknown model 'renam-pin'"), r.err.c_str());
}

TEST(CheckAll, a_size_given_runs_every_variant_at_it_and_each_row_and_rerun_line_says_so) {
    cli::CheckAllRequest request;
    const CheckAll defaults = check_all(sized_counter_model(), request);
    CHECK_TEXT(contains(defaults.out, "sized-counter  declared-race      tasks=2  "),
               defaults.out.c_str());
    CHECK_TEXT(contains(defaults.out, "check it alone: lockcheck sized-counter --variant "
                                      "declared-verified\n"),
               defaults.out.c_str());
    request.sizes = {{"tasks", 3}};
    const CheckAll sized = check_all(sized_counter_model(), request);
    for (const char* variant : {"declared-race  ", "declared-verified  ", "declared-deadlock  "})
        CHECK_TEXT(contains(sized.out, "sized-counter  " + std::string(variant)) &&
                       !contains(sized.out, "tasks=2"),
                   sized.out.c_str());
    CHECK_TEXT(contains(sized.out, "sized-counter  declared-race      tasks=3  "),
               sized.out.c_str());
    CHECK_TEXT(contains(sized.out, "check it alone: lockcheck sized-counter --variant "
                                   "declared-verified --tasks 3\n"),
               sized.out.c_str());
    // Three tasks interleave in more ways than two.
    CHECK_TEXT(sized.out != defaults.out, sized.out.c_str());
}

TEST(CheckAll, the_command_line_applies_a_size_to_the_models_named_that_have_it) {
    const Run r =
        run_lockcheck({"check-all", "rename-pin", "lastzero", "--fsyncs", "2", "--no-timing"});
    CHECK_EQUAL_TEXT(0, r.exit_code, (r.out + r.err).c_str());
    for (const Variant& v : find_registered_model("rename-pin")->variants)
        CHECK_TEXT(std::regex_search(r.out, std::regex("\nrename-pin +" + v.name +
                                                       " +renames=1 fsyncs=2 rounds=1 ")),
                   r.out.c_str());
    // lastzero has no --fsyncs: its defaults.
    CHECK_TEXT(std::regex_search(r.out, std::regex("\nlastzero +[a-z-]+ +writers=5 ")),
               r.out.c_str());
}

namespace {
struct RefusedSize {
    std::vector<std::string> args;
    const char* says;
};
} // namespace

TEST(CheckAll, a_size_no_model_checked_has_or_out_of_its_range_is_a_one_line_input_error) {
    const RefusedSize refused[] = {
        {{"check-all", "tree-lock", "--renames", "2"},
         "check-all: no model checked has a size --renames (it is a size of rename-pin)"},
        {{"check-all", "rename-pin", "--renamez", "2"},
         "unknown option '--renamez' for check-all (did you mean '--renames'?) (see: lockcheck "
         "help check-all)"},
        // rename-pin's --rounds goes to 4, cil-push's to 8: every model checked holds it to its
        // own.
        {{"check-all", "--rounds", "6"}, "--rounds: Value 6 not in range 1 to 4 (of rename-pin)"},
        {{"check-all", "rename-pin", "--renames", "9"},
         "--renames: Value 9 not in range 1 to 8 (of rename-pin)"},
        {{"check-all", "rename-pin", "--renames", "two"}, "--renames: 'two' is not an integer"},
    };
    for (const RefusedSize& r : refused) {
        const Run run = run_lockcheck(r.args);
        std::string what;
        for (const std::string& a : r.args)
            what += a + " ";
        what += "printed: " + run.err;
        CHECK_EQUAL_TEXT(cli::kExitUsage, run.exit_code, what.c_str());
        CHECK_TEXT(is_one_line(run.err), what.c_str());
        CHECK_TEXT(contains(run.err, r.says), what.c_str());
        CHECK_TEXT(run.out.empty(), what.c_str());
    }
}

namespace {
// rename-pin with no-pin wrongly declared verified: its row differs, with the counterexample
// the search found first, which has more preemptions than the smallest.
Protocol rename_pin_no_pin_declared_verified() {
    Protocol p = *find_registered_model("rename-pin");
    p.variants[*p.find_variant("no-pin")].expect = Expectation::verified();
    return p;
}

const char* const kSize = "[0-9]+ preemptions?, [0-9]+ steps";
} // namespace

TEST(CheckAll, a_differing_row_shows_its_counterexample_minimized_and_says_whether_minimal) {
    const Protocol p = rename_pin_no_pin_declared_verified();
    cli::CheckAllRequest request;
    request.json = temp_path("minimized.json");
    const CheckAll r = check_all(p, request);
    CHECK_EQUAL_TEXT(1, r.code, r.out.c_str());
    const std::string section = r.out.substr(r.out.find("== rename-pin --variant no-pin"));
    CHECK_TEXT(std::regex_search(section, std::regex("\nreported: " + std::string(kSize) +
                                                     " \\(minimized from " + kSize + "\\)\n")),
               section.c_str());
    // Only the row shown was minimized: the rows as declared kept their first counterexample.
    keep_for_schema_check(request.json);
    const nlohmann::json all = nlohmann::json::parse(slurp(request.json));
    std::remove(request.json.c_str());
    for (const nlohmann::json& run : all["runs"]) {
        if (run["counterexample_sizes"].empty()) continue;
        const bool shown = run["variant"] == "no-pin";
        CHECK_EQUAL_TEXT(shown, run["counterexample_sizes"][0]["minimized"].get<bool>(),
                         run["variant"].get<std::string>().c_str());
    }

    // A budget that stops it: not proven minimal.
    request = {};
    std::string error;
    CHECK_TRUE(cli::parse_minimize_time("0.000001s", request.minimize_time, error));
    const CheckAll stopped = check_all(p, request);
    CHECK_TEXT(std::regex_search(stopped.out,
                                 std::regex("\nreported: " + std::string(kSize) +
                                            " \\(not proven minimal: --minimize-time 0.000001s "
                                            "stopped the search for a smaller one\\)\n")),
               stopped.out.c_str());
    request = {};
    request.minimize = false;
    const CheckAll first = check_all(p, request);
    CHECK_TEXT(std::regex_search(first.out, std::regex("\nreported: " + std::string(kSize) +
                                                       " \\(not minimized\\)\n")),
               first.out.c_str());
}

TEST(CheckAll, the_command_line_takes_minimize_time_and_no_minimize_but_not_both) {
    const Run both = run_lockcheck(
        {"check-all", "rename-pin", "--no-minimize", "--minimize-time", "5s", "--no-timing"});
    CHECK_EQUAL(cli::kExitUsage, both.exit_code);
    CHECK_TEXT(is_one_line(both.err) && contains(both.err, "--no-minimize turns it off"),
               both.err.c_str());
    const Run bad = run_lockcheck({"check-all", "rename-pin", "--minimize-time", "0x"});
    CHECK_EQUAL(cli::kExitUsage, bad.exit_code);
    CHECK_TEXT(is_one_line(bad.err) && contains(bad.err, "--minimize-time: '0x'"), bad.err.c_str());
    for (const char* option : {"--no-minimize", "--minimize-time"}) {
        std::vector<std::string> args = {"check-all", "rename-pin", option, "--no-timing"};
        if (std::string(option) == "--minimize-time") args.insert(args.begin() + 3, "30s");
        const Run run = run_lockcheck(args);
        CHECK_EQUAL_TEXT(0, run.exit_code, (run.out + run.err).c_str());
    }
}

namespace {
// The counter, declaring a final check it does not have broken: of the kind found, another
// property.
Protocol counter_declaring_another_check() {
    Protocol p = counter_model();
    p.variants = {{"declared-other-check", "declares another final check",
                   Expectation::violation(ViolationKind::final_check, "counter is even")}};
    return p;
}

// A task that takes one lock more than it may hold (MAX_LOCK_DEPTH): the table of held locks
// fills and the search cannot say it is verified.
Protocol too_many_locks_model() {
    return Protocol{
        .name = "deep",
        .summary = "49 nested mutexes",
        .variants = {{"declared-verified", "declares it verified", Expectation::verified()}},
        .setup =
            [](std::size_t, const ParameterValues&) {
                struct Locks {
                    std::deque<struct mutex> locks;
                };
                auto& m = this_execution().make<Locks>();
                for (int i = 0; i < 49; ++i)
                    m.locks.emplace_back("m" + std::to_string(i));
                spawn("task", [&m] {
                    for (auto& lock : m.locks)
                        mutex_lock(&lock);
                    for (auto it = m.locks.rbegin(); it != m.locks.rend(); ++it)
                        mutex_unlock(&*it);
                });
            },
    };
}
} // namespace

TEST(CheckAll, a_row_not_as_declared_shows_what_differs_where_the_kinds_read_the_same) {
    const CheckAll other = check_all(counter_declaring_another_check());
    CHECK_EQUAL_TEXT(1, other.code, other.out.c_str());
    CHECK_TEXT(contains(other.out, "violation (final-check \"counter is even\")  violation "
                                   "(final-check \"counter is the number of increments\")  "
                                   "differs"),
               other.out.c_str());
    // A row as declared keeps the short words.
    CHECK_TEXT(contains(check_all(counter_model()).out,
                        "violation (final-check)  violation (final-check)  as-declared"),
               "the declared race");

    // Verified declared, nothing found, but a table filled: not "verified" in both columns.
    const CheckAll full = check_all(too_many_locks_model());
    CHECK_EQUAL_TEXT(cli::kExitIncomplete, full.code, full.out.c_str());
    CHECK_TEXT(std::regex_search(full.out, std::regex("\\n(deep +declared-verified +verified +"
                                                      "none, but [^\\n]*MAX_LOCK_DEPTH[^\\n]* "
                                                      "+incomplete) ")),
               full.out.c_str());
}
