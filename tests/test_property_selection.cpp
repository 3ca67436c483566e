// Choosing the properties a run checks: --no-lockdep and --no-races switch a class of reports
// off, --check and --no-check a model's own invariants and final checks; the summary, the
// verdict, the judgement, the replay line and the JSON report all say what was off.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck::detail::testing;

namespace {

// The words of the replay line as a POSIX shell splits them: single quotes keep a word whole,
// a backslash escapes the next character (as in '\'').
std::vector<std::string> replay_words(const std::string& out) {
    const std::string prefix = "replay: lockcheck ";
    const std::size_t at = out.find(prefix);
    std::vector<std::string> words;
    if (at == std::string::npos) return words;
    const std::string line =
        out.substr(at + prefix.size(), out.find('\n', at) - at - prefix.size());
    std::string word;
    bool in_word = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == ' ') {
            if (in_word) words.push_back(word);
            word.clear();
            in_word = false;
        } else if (c == '\'') {
            const std::size_t end = line.find('\'', i + 1);
            word += line.substr(i + 1, end - i - 1);
            i = end;
            in_word = true;
        } else if (c == '\\' && i + 1 < line.size()) {
            word += line[++i];
            in_word = true;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (in_word) words.push_back(word);
    return words;
}

} // namespace

TEST_GROUP(PropertySelection){};

TEST(PropertySelection, every_summary_says_which_property_classes_were_checked) {
    const Run run = run_lockcheck({"rename-pin", "--variant", "no-pin"});
    CHECK_TEXT(contains(run.out, "\nchecks        lockdep on, data races on\n"), run.out.c_str());
}

TEST(PropertySelection, no_lockdep_shows_whether_an_inversion_can_really_deadlock) {
    // push0 takes right, then left; balance0 left, then right: lockdep reports the inversion.
    // Both take the parent first, so the two orders never meet: without lockdep, nothing breaks.
    const Run with = run_lockcheck({"tree-lock", "--variant", "sibling-order"});
    CHECK_EQUAL(1, with.exit_code);
    CHECK_TEXT(contains(with.out, "VIOLATION (lock-order)"), with.out.c_str());
    const Run without = run_lockcheck({"tree-lock", "--variant", "sibling-order", "--no-lockdep"});
    CHECK_EQUAL_TEXT(0, without.exit_code, without.out.c_str());
    CHECK_TEXT(contains(without.out, "checks        lockdep off (--no-lockdep), data races on"),
               without.out.c_str());
    CHECK_TEXT(contains(without.out, "expected      violation (lock-order): not checked "
                                     "(--no-lockdep)\n"),
               without.out.c_str());
    CHECK_TEXT(contains(without.out, "verdict       verified: no violation in any execution (not "
                                     "checked: lockdep (--no-lockdep))\n"),
               without.out.c_str());
}

TEST(PropertySelection, no_races_lets_the_search_go_on_to_what_else_breaks) {
    const Run run = run_lockcheck({"lastzero", "--variant", "plain", "--no-races"});
    CHECK_EQUAL_TEXT(0, run.exit_code, run.out.c_str());
    CHECK_FALSE(contains(run.out, "VIOLATION"));
    CHECK_TEXT(contains(run.out, "checks        lockdep on, data races off (--no-races)"),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "(not checked: data races (--no-races))"), run.out.c_str());
}

TEST(PropertySelection, a_property_switched_off_is_listed_off_and_never_evaluated) {
    // The start of the name is enough, as the summary cuts long names.
    const Run run =
        run_lockcheck({"rename-pin", "--variant", "no-pin", "--no-check", "committed log"});
    CHECK_EQUAL_TEXT(0, run.exit_code, run.out.c_str());
    CHECK_TEXT(contains(run.out, "properties    invariant \"committed log never holds the unlink "
                                 "of an old name witho...\": off\n"),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "expected      violation (invariant): not checked (--no-check)"),
               run.out.c_str());
    CHECK_TEXT(contains(run.out, "(not checked: 1 model property (--no-check))"), run.out.c_str());
    // --check names the ones kept: the same run.
    const Run only = run_lockcheck({"rename-pin", "--variant", "no-pin", "--check", "log_writers"});
    CHECK_EQUAL(before_timing(run.out), before_timing(only.out));
}

TEST(PropertySelection, a_counterexample_replays_with_the_same_properties_off) {
    // The replay line carries what was off, each name whole and quoted, so that the schedule
    // runs into the same violation: a check switched back on could end it earlier.
    const Run run = run_lockcheck(
        {"rename-pin", "--variant", "no-pin", "--no-check", "log_writers", "--no-races"});
    CHECK_EQUAL_TEXT(1, run.exit_code, run.out.c_str());
    CHECK_TEXT(contains(run.out, " --no-races --no-check 'log_writers is back to zero' --replay "),
               run.out.c_str());
    const Run replayed = run_lockcheck(replay_words(run.out));
    CHECK_EQUAL_TEXT(1, replayed.exit_code, replayed.err.c_str());
    CHECK_TEXT(contains(replayed.out, "VIOLATION (invariant) at step 14"), replayed.out.c_str());
    CHECK_TEXT(contains(replayed.out, "checks        lockdep on, data races off (--no-races)"),
               replayed.out.c_str());
}

TEST(PropertySelection, the_json_report_records_what_was_off_and_its_replay_checks_the_same) {
    TempDir dir;
    const std::string json = dir / "run.json";
    const Run run = run_lockcheck({"rename-pin", "--variant", "no-pin", "--no-check", "log_writers",
                                   "--no-lockdep", "--json", json});
    CHECK_EQUAL_TEXT(1, run.exit_code, run.out.c_str());
    const nlohmann::json doc = nlohmann::json::parse(read_file(json));
    CHECK_EQUAL(false, doc["checks"]["lockdep"].get<bool>());
    CHECK_EQUAL(true, doc["checks"]["races"].get<bool>());
    bool found = false;
    for (const nlohmann::json& p : doc["stats"]["properties"])
        if (p["name"] == "log_writers is back to zero") {
            found = true;
            CHECK_EQUAL(false, p["checked"].get<bool>());
            CHECK_EQUAL(0, p["evaluations"].get<int>());
        }
    CHECK(found);
    const Run replayed = run_lockcheck({"replay", json});
    CHECK_EQUAL_TEXT(1, replayed.exit_code, replayed.err.c_str());
    CHECK_TEXT(contains(replayed.out, "checks        lockdep off (--no-lockdep), data races on"),
               replayed.out.c_str());
    CHECK_TEXT(contains(replayed.out, "VIOLATION (invariant) at step 14"), replayed.out.c_str());
}

TEST(PropertySelection, a_name_that_is_not_one_of_the_models_properties_is_refused) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"rename-pin", "--check", "log_writers is back to zer0"},
             {"rename-pin", "--no-check", "nothing like it"},
             {"rename-pin", "--check", "log_writers", "--no-check", "committed"},
             {"tree-lock", "--no-check", "anything"},
         }) {
        const Run run = run_lockcheck(args);
        CHECK_EQUAL_TEXT(2, run.exit_code, run.err.c_str());
        CHECK_TEXT(is_one_line(run.err), run.err.c_str());
        CHECK(run.out.empty());
    }
    const Run typo = run_lockcheck({"rename-pin", "--check", "log_writers is back to zer0"});
    CHECK_TEXT(contains(typo.err, "(did you mean 'log_writers is back to zero'?)"),
               typo.err.c_str());
    const Run none = run_lockcheck({"tree-lock", "--no-check", "anything"});
    CHECK_TEXT(contains(none.err, "the model has no invariants or final checks"), none.err.c_str());
}
