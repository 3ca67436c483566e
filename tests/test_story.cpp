// Counterexamples show the story: a trace keeps the steps the violation depends on and folds
// the others into "… N steps of T …" rows (--full-trace shows them all); a broken invariant or
// final check shows what it read at the end, each object with the step that last changed it.
#include <string>

#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "reports/text.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// The first counterexample of a shipped variant under the default search, replayed.
ReplayResult counterexample(const std::string& model, const std::string& variant) {
    const Protocol* p = find_registered_model(model);
    const std::size_t v = *p->find_variant(variant);
    const Setup setup = default_setup(*p, v);
    CheckOptions options;
    options.depth = p->depth_for(v);
    const SearchResult r = check_model(setup, kDefaultSearch, options);
    CHECK_TEXT(!r.findings.empty(), (model + " " + variant).c_str());
    return replay(setup, r.findings.front().schedule, options);
}

// The step of `trace` whose operation text is `operation`; 0 if none is.
std::uint32_t step_of(const Trace& trace, const std::string& operation) {
    for (const TraceStep& s : trace.steps)
        if (operation_text(s) == operation) return s.step;
    return 0;
}

const PropertyRead* read_of(const Trace& trace, const std::string& object) {
    for (const PropertyRead& r : trace.reads)
        if (r.object == object) return &r;
    return nullptr;
}

} // namespace

TEST_GROUP(Story){};

// tree-lock unlock-no-wake: the lost wake-up is about parent's BLOCKING bit and wait queue;
// balance0's lock round trips on the other nodes stay out of the story.
TEST(Story, a_lost_wake_up_folds_the_lock_round_trips_it_does_not_depend_on) {
    const ReplayResult rr = counterexample("tree-lock", "unlock-no-wake");
    const Story why = story(rr.trace);
    std::size_t folded = 0;
    for (std::size_t i = 0; i < rr.trace.steps.size(); ++i) {
        const TraceStep& s = rr.trace.steps[i];
        if (!why.involved[i]) {
            ++folded;
            continue;
        }
        // What the story keeps is about the parent node (or a spin turn on no object).
        CHECK_TEXT(s.object.empty() || s.object.starts_with("parent."), operation_text(s).c_str());
    }
    CHECK_TEXT(folded >= 20, std::to_string(folded).c_str());
    CHECK(why.involved.back());
    const std::string table = format_trace(rr.trace);
    CHECK_TEXT(contains(table, " steps of balance0 \u2026\n"), table.c_str());
    CHECK_TEXT(!contains(table, "mid.lock"), table.c_str());
}

TEST(Story, the_full_trace_folds_nothing) {
    const ReplayResult rr = counterexample("tree-lock", "unlock-no-wake");
    const std::string table = format_trace(rr.trace, false, false, /*full=*/true);
    CHECK_TEXT(!contains(table, "\u2026"), table.c_str());
    for (const TraceStep& s : rr.trace.steps)
        CHECK_TEXT(contains(table, operation_text(s)), operation_text(s).c_str());
}

// cil-push hotplug: the final check read cpu1's list, still holding tp1's item, and the online
// mask remove_cpu() changed; those and the steps that made them so are the story.
TEST(Story, a_final_check_shows_what_it_read_and_the_step_that_last_changed_each) {
    const ReplayResult rr = counterexample("cil-push", "hotplug");
    const Trace& t = rr.trace;
    const PropertyRead* item = read_of(t, "xc_pcp@cpu1.p_cil");
    CHECK_TEXT(item, "the final check read cpu1's list");
    CHECK_EQUAL("[tp1.li_cil]", item->state);
    CHECK_EQUAL(step_of(t, "list_add_tail(xc_pcp@cpu1.p_cil)"), item->changed_at);
    const PropertyRead* mask = read_of(t, "cpu_online_mask");
    CHECK_TEXT(mask, "the final check read the online mask");
    CHECK_EQUAL(step_of(t, "remove_cpu(1, cpu_online_mask)"), mask->changed_at);
    CHECK(mask->changed_at != 0);
    CHECK(!read_of(t, "xc_ctx_lock"));
    const std::string table = format_trace(t);
    const std::string end = table.substr(table.find("at the end:"));
    CHECK_TEXT(contains(end, "xc_pcp@cpu1.p_cil: [tp1.li_cil] (since step " +
                                 std::to_string(item->changed_at) + ")"),
               end.c_str());
    CHECK_TEXT(!contains(end, "xc_ctx_lock"), end.c_str());
    // The push's walk of the online CPUs after cpu1 left is a cause too.
    const Story why = story(t);
    bool walk = false;
    for (std::size_t i = 0; i < t.steps.size(); ++i)
        walk |= why.cause[i] && t.steps[i].operation == "cpumask_next" &&
                t.steps[i].step > mask->changed_at;
    CHECK(walk);
}

// cil-push no-ctx-lock: the online mask never changes, so no step on it is a cause.
TEST(Story, an_object_read_as_it_was_set_up_makes_no_step_a_cause) {
    const ReplayResult rr = counterexample("cil-push", "no-ctx-lock");
    const PropertyRead* mask = read_of(rr.trace, "cpu_online_mask");
    CHECK(mask);
    CHECK_EQUAL(0u, mask->changed_at);
    const Story why = story(rr.trace);
    for (std::size_t i = 0; i < rr.trace.steps.size(); ++i)
        CHECK_TEXT(!(why.cause[i] && rr.trace.steps[i].object == "cpu_online_mask"),
                   operation_text(rr.trace.steps[i]).c_str());
}

TEST(Story, a_wake_up_that_woke_nobody_says_so) {
    TraceStep s;
    s.operation = "wake_up";
    s.object = "q";
    s.value = 0;
    CHECK_EQUAL("wake_up(q) -> woke none", operation_text(s));
    s.value = 1;
    CHECK_EQUAL("wake_up(q) -> 1", operation_text(s));
}

// Folding is presentation: the replay line and the summary are the same with --full-trace.
TEST(Story, folding_changes_neither_the_replay_line_nor_the_summary) {
    const Run folded = run_lockcheck({"tree-lock", "--variant", "unlock-no-wake"});
    const Run full = run_lockcheck({"tree-lock", "--variant", "unlock-no-wake", "--full-trace"});
    CHECK_EQUAL(folded.exit_code, full.exit_code);
    CHECK_TEXT(contains(folded.out, "\u2026"), folded.out.c_str());
    CHECK_TEXT(!contains(full.out, "\u2026"), full.out.c_str());
    // From the replay line on, all but the time and the checkpoints.
    CHECK_EQUAL(before_timing(folded.out.substr(folded.out.find("replay: "))),
                before_timing(full.out.substr(full.out.find("replay: "))));
}
