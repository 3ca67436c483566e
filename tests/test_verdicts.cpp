// A run against the verdict its variant declares (judge()): the declared violation found, or
// no violation in a complete search of a variant declared verified, is as declared; another
// violation, or none in a complete search where one was declared, differs, naming both sides;
// a search that found none but did not look everywhere is incomplete. And the summary rows
// that say what a run checked: sizes, the judgement, the properties with their counts.
#include <string>
#include <vector>

#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "reports/text.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

const std::string kInvariant = "committed log never holds a half rename";

Finding finding(ViolationKind kind, const std::string& property) {
    return Finding{Violation{kind, property, "message", 3, {}}, {0, 1, 0}};
}

// A complete exhaustive search of 10 executions, none cut.
Summary complete() {
    Summary s;
    s.stats.executions = 10;
    return s;
}

Expectation declared_invariant() {
    return Expectation::violation(ViolationKind::invariant, kInvariant);
}

void judged(const Judgement& j, Agreement agreement, const std::string& text) {
    CHECK_EQUAL(std::string(agreement_name(agreement)), std::string(agreement_name(j.agreement)));
    CHECK_EQUAL(text, j.text);
}

} // namespace

TEST_GROUP(Judge){};

TEST(Judge, no_violation_in_a_complete_search_of_a_variant_declared_verified_is_as_declared) {
    judged(judge(Expectation::verified(), {}, complete()), Agreement::as_declared,
           "verified: as declared");
}

TEST(Judge, the_declared_violation_found_is_as_declared_and_others_found_are_named) {
    const Expectation e = declared_invariant();
    judged(judge(e, {finding(ViolationKind::invariant, kInvariant)}, complete()),
           Agreement::as_declared, "violation (invariant): as declared");
    judged(
        judge(e,
              {finding(ViolationKind::deadlock, "deadlock"),
               finding(ViolationKind::invariant, kInvariant), finding(ViolationKind::hang, "hang")},
              complete()),
        Agreement::as_declared, "violation (invariant): as declared, and also deadlock and 1 more");
}

TEST(Judge, a_violation_of_another_kind_differs_naming_what_was_found) {
    judged(judge(Expectation::violation(ViolationKind::check_failed, "i_size under the lock"),
                 {finding(ViolationKind::final_check, "log_writers is back to zero")}, complete()),
           Agreement::differs,
           "violation (check-failed): got final-check \"log_writers is back to zero\"");
    judged(judge(declared_invariant(), {finding(ViolationKind::deadlock, "deadlock")}, complete()),
           Agreement::differs, "violation (invariant): got deadlock");
}

TEST(Judge, the_declared_kind_with_another_property_differs_naming_both_properties) {
    judged(judge(declared_invariant(), {finding(ViolationKind::invariant, "another")}, complete()),
           Agreement::differs,
           "violation (invariant) \"" + kInvariant + "\": got invariant \"another\"");
}

TEST(Judge, a_declared_property_matches_itself_or_what_it_starts_up_to_a_name_boundary) {
    const Expectation any_uaf = Expectation::violation(ViolationKind::use_after_free);
    const Expectation fs =
        Expectation::violation(ViolationKind::use_after_free, "use-after-free of fs");
    const Expectation race = Expectation::violation(ViolationKind::data_race, "data race on array");
    for (const char* found : {"use-after-free of fs", "use-after-free of fs.lock",
                              "use-after-free of fs.reclaim_work.entry"}) {
        judged(judge(fs, {finding(ViolationKind::use_after_free, found)}, complete()),
               Agreement::as_declared, "violation (use-after-free): as declared");
        judged(judge(any_uaf, {finding(ViolationKind::use_after_free, found)}, complete()),
               Agreement::as_declared, "violation (use-after-free): as declared");
    }
    judged(judge(race, {finding(ViolationKind::data_race, "data race on array[1]")}, complete()),
           Agreement::as_declared, "violation (data-race): as declared");
    // Another name that only starts alike is another object.
    CHECK(Agreement::differs ==
          judge(fs, {finding(ViolationKind::use_after_free, "use-after-free of fsx")}, complete())
              .agreement);
    CHECK(
        Agreement::differs ==
        judge(fs, {finding(ViolationKind::use_after_free, "use-after-free of fs_info")}, complete())
            .agreement);
    CHECK(Agreement::differs ==
          judge(fs, {finding(ViolationKind::data_race, "use-after-free of fs")}, complete())
              .agreement);
}

TEST(Judge, a_violation_found_where_none_was_declared_differs) {
    judged(
        judge(Expectation::verified(), {finding(ViolationKind::deadlock, "deadlock")}, complete()),
        Agreement::differs, "verified: got violation (deadlock)");
    judged(judge(Expectation::verified(),
                 {finding(ViolationKind::invariant, kInvariant),
                  finding(ViolationKind::deadlock, "deadlock")},
                 complete()),
           Agreement::differs,
           "verified: got violation (invariant \"" + kInvariant + "\") and 1 more");
}

TEST(Judge, a_violation_found_is_judged_even_when_the_search_did_not_look_everywhere) {
    Summary stopped = complete();
    stopped.stats.cut = 4;
    stopped.stats.stopped_by = "--time-limit";
    judged(judge(declared_invariant(), {finding(ViolationKind::invariant, kInvariant)}, stopped),
           Agreement::as_declared, "violation (invariant): as declared");
    judged(judge(Expectation::verified(), {finding(ViolationKind::hang, "hang")}, stopped),
           Agreement::differs, "verified: got violation (hang)");
}

TEST(Judge, no_violation_in_a_complete_search_where_one_was_declared_differs) {
    judged(judge(declared_invariant(), {}, complete()), Agreement::differs,
           "violation (invariant): got no violation in any execution");
}

TEST(Judge, no_violation_in_a_search_that_did_not_look_everywhere_is_incomplete) {
    struct Case {
        void (*limit)(Summary&);
        std::string why;
    };
    const Case cases[] = {
        {[](Summary& s) { s.stats.cut = 7; }, "7 executions were cut by the depth bound"},
        {[](Summary& s) { s.stats.cut = 1; }, "1 execution was cut by the depth bound"},
        {[](Summary& s) { s.stats.stopped_by = "--max-executions 10"; },
         "--max-executions 10 stopped the search"},
        {[](Summary& s) { s.sampled = true; }, "it ran a sample of 10 executions"},
        {[](Summary& s) { s.preemption_bound = 1; },
         "only schedules with at most 1 preemption ran"},
        {[](Summary& s) {
             s.preemption_bound = 2;
             s.stats.cut = 3;
         },
         "only schedules with at most 2 preemptions ran; 3 executions were cut by the depth bound"},
    };
    for (const Case& c : cases) {
        Summary s = complete();
        c.limit(s);
        judged(judge(Expectation::verified(), {}, s), Agreement::incomplete,
               "verified: incomplete: no violation found, but " + c.why);
        judged(judge(declared_invariant(), {}, s), Agreement::incomplete,
               "violation (invariant): incomplete: no violation found, but " + c.why);
    }
}

TEST(Judge, agreement_names_read_back) {
    for (Agreement a : {Agreement::as_declared, Agreement::differs, Agreement::incomplete}) {
        Agreement read = Agreement::differs;
        CHECK(parse_agreement(agreement_name(a), read));
        CHECK(read == a);
    }
    Agreement read{};
    CHECK(!parse_agreement("agreed", read));
}

TEST_GROUP(SummaryRows){};

TEST(SummaryRows, the_sizes_row_follows_the_variant_and_is_left_out_for_a_model_without_sizes) {
    Summary s = complete();
    s.variant = "atomic";
    s.parameters = {{"renames", 1}, {"fsyncs", 2}};
    CHECK_TEXT(contains(format_summary(s),
                        "variant       atomic\nsizes         renames=1 fsyncs=2\nstrategy"),
               format_summary(s).c_str());
    s.parameters.clear();
    CHECK_TEXT(contains(format_summary(s), "variant       atomic\nstrategy"),
               format_summary(s).c_str());
}

TEST(SummaryRows, the_expected_row_stands_before_the_verdict_and_only_in_a_judged_run) {
    Summary s = complete();
    CHECK_EQUAL(std::string(""), summary_row(format_summary(s), "expected"));
    s.judgement = judge(declared_invariant(), {}, s);
    const std::string summary = format_summary(s);
    CHECK_TEXT(contains(summary, "\nexpected      violation (invariant): got no violation in any "
                                 "execution\nverdict       verified: no violation in any "
                                 "execution\n"),
               summary.c_str());
}

TEST(SummaryRows, properties_are_listed_one_a_line_with_their_counts_and_flags) {
    Summary s = complete();
    const std::string long_name(70, 'x');
    s.stats.properties = {
        {PropertyKind::invariant, long_name, 3971, 0, ""},
        {PropertyKind::final_check, "log_writers is back to zero", 1, 0, ""},
        {PropertyKind::final_check, "never", 0, 0, ""},
        {PropertyKind::check, "declared but not reached", 0, 0, ""},
        {PropertyKind::check, "obj still live", 24, 24, "spin_unlock(table_lock)"},
        {PropertyKind::check, "sometimes after a release", 24, 23, "mutex_unlock(m)"},
    };
    const std::string summary = format_summary(s);
    const std::string expected =
        "properties    invariant \"" + std::string(57, 'x') + "...\": 3971 evaluations\n" +
        "              final check \"log_writers is back to zero\": 1 evaluation\n"
        "              final check \"never\": 0 evaluations: NEVER EVALUATED (no execution "
        "finished)\n"
        "              check \"declared but not reached\": 0 evaluations: NEVER EVALUATED "
        "(never reached)\n"
        "              check \"obj still live\": 24 evaluations: each right after "
        "spin_unlock(table_lock) by the same task: no other task can run in between, so it "
        "cannot see one (use BUG_ON)\n"
        "              check \"sometimes after a release\": 24 evaluations\n"
        "checkpoints";
    CHECK_TEXT(contains(summary, expected), summary.c_str());
    // A model that states no property has no row.
    CHECK_EQUAL(std::string(""), summary_row(format_summary(complete()), "properties"));
}

TEST(SummaryRows, a_long_property_name_is_cut_between_utf8_characters) {
    Summary s = complete();
    // 56 bytes, then a two-byte character across the cut at 57.
    s.stats.properties = {
        {PropertyKind::invariant, std::string(56, 'a') + "\u00e4" + "bcdef", 1, 0, ""}};
    CHECK_EQUAL("invariant \"" + std::string(56, 'a') + "...\": 1 evaluation",
                summary_row(format_summary(s), "properties"));
}
