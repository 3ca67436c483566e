// Minimal counterexamples: for every broken shipped variant the reported counterexample has
// the fewest preemptions any execution breaking that property has, and the fewest steps among
// those. Checked against searches that do not share the minimizer's code where they can go to
// the end (exhaustive DFS counting preemptions), and against preemption-bounded search below
// the reported bound everywhere.
#include <string>

#include "checker/bounded_dfs.hpp"
#include "checker/dfs.hpp"
#include "checker/minimize.hpp"
#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// Exhaustive DFS that counts each execution's preemptions as it picks.
class CountingDfs final : public Strategy {
  public:
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override {
        if (step == 1) {
            last_ = kNoTask;
            preemptions_ = 0;
        }
        const TaskId id = dfs_.pick(step, enabled, ex);
        if (last_ != kNoTask && id != last_ && contains(enabled, last_)) ++preemptions_;
        last_ = id;
        return id;
    }
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override {
        return dfs_.choose(step, n);
    }
    bool next_execution() override { return dfs_.next_execution(); }
    std::uint32_t preemptions() const { return preemptions_; }

  private:
    Dfs dfs_;
    TaskId last_ = kNoTask;
    std::uint32_t preemptions_ = 0;
};

bool same_property(const Violation& a, const Violation& b) {
    return a.kind == b.kind && a.property == b.property;
}

struct Smallest {
    std::uint32_t preemptions = ~0u;
    std::uint32_t steps = ~0u;
};

// The fewest preemptions, then steps, of the executions breaking `v`'s property.
template <class Search>
Smallest smallest(const Setup& setup, const Violation& v, Search& search, std::uint32_t depth) {
    StackPool stacks(CheckOptions{}.stack_size);
    Smallest s;
    do {
        Execution::Limits limits{depth, 10};
        limits.max_steps = depth;
        Execution ex(stacks, search, limits);
        setup();
        const Outcome out = ex.run();
        if (!out.violation || !same_property(*out.violation, v)) continue;
        const std::uint32_t p = search.preemptions();
        if (p < s.preemptions || (p == s.preemptions && out.steps < s.steps)) s = {p, out.steps};
    } while (search.next_execution());
    return s;
}

} // namespace

TEST_GROUP(Minimize){};

TEST(Minimize, every_broken_variant_reports_the_fewest_preemptions_then_steps) {
    int checked = 0;
    for (const Protocol& p : protocol_models()) {
        for (std::size_t i = 0; i < p.variants.size(); ++i) {
            if (!p.variants[i].expect.expects_violation) continue;
            const std::string what = p.name + " --variant " + p.variants[i].name;
            const Setup setup = default_setup(p, i);
            CheckOptions options;
            options.depth = p.depth_for(i);
            const SearchResult found = check_model(setup, kDefaultSearch, options);
            CHECK_TEXT(found.findings.size() == 1, what.c_str());
            const Finding& f = found.findings.front();
            const ReplayResult first = replay(setup, f.schedule, options);
            const Minimized m = minimize(setup, f, first.trace.preemptions(), first.outcome.steps,
                                         options, MinimizeLimits{});
            CHECK_TEXT(m.minimal, what.c_str());
            CHECK_TEXT(same_property(m.finding.violation, f.violation), what.c_str());
            // The reported schedule replays to the size claimed.
            const ReplayResult shown = replay(setup, m.finding.schedule, options);
            CHECK_TEXT(shown.ok, (what + ": " + shown.error).c_str());
            CHECK_EQUAL_TEXT(m.preemptions, shown.trace.preemptions(), what.c_str());
            CHECK_EQUAL_TEXT(m.steps, shown.outcome.steps, what.c_str());
            if (m.preemptions > 0) {
                // Below the reported bound no execution breaks the property.
                BoundedDfs below(m.preemptions - 1);
                CHECK_EQUAL_TEXT(~0u, smallest(setup, f.violation, below, options.depth).steps,
                                 what.c_str());
            }
            if (dfs_exhausts(p, i)) {
                CountingDfs all;
                const Smallest s = smallest(setup, f.violation, all, options.depth);
                CHECK_EQUAL_TEXT(s.preemptions, m.preemptions, what.c_str());
                CHECK_EQUAL_TEXT(s.steps, m.steps, what.c_str());
            }
            ++checked;
        }
    }
    CHECK_TEXT(checked > 0, "no broken variant to minimize");
}

TEST(Minimize, a_budget_too_small_keeps_the_counterexample_found_and_says_it_may_not_be_minimal) {
    const Protocol& p = *find_registered_model("rename-pin");
    const std::size_t i = *p.find_variant("pin-after-unlink");
    const Setup setup = default_setup(p, i);
    const SearchResult found = check_model(setup, CheckOptions{});
    const Finding& f = found.findings.front();
    const ReplayResult first = replay(setup, f.schedule, CheckOptions{});
    const Minimized m = minimize(setup, f, first.trace.preemptions(), first.outcome.steps,
                                 CheckOptions{}, MinimizeLimits{.executions = 1});
    CHECK(!m.minimal);
    STRCMP_EQUAL("its limit of 1 executions", m.stopped_by.c_str());
    CHECK_EQUAL(1ul, m.executions);
    CHECK(m.finding.schedule == f.schedule);
}

TEST(Minimize, a_counterexample_nothing_shorter_undercuts_is_proven_minimal_in_a_few_executions) {
    // lastzero(15) plain races in its first execution, without a preemption: searching every
    // schedule without one for a shorter race took 84 s; cut at the best's length it is a
    // handful of prefixes.
    const Protocol& p = *find_registered_model("lastzero");
    ParameterValues values = p.default_values();
    values[0] = 15;
    const std::size_t plain = *p.find_variant("plain");
    const Setup setup = [&] { p.setup(plain, values); };
    const SearchResult found = check_model(setup, kDefaultSearch, CheckOptions{});
    const Finding& f = found.findings.front();
    const ReplayResult first = replay(setup, f.schedule, CheckOptions{});
    CHECK_EQUAL(0u, first.trace.preemptions());
    const Minimized m = minimize(setup, f, 0, first.outcome.steps, CheckOptions{},
                                 MinimizeLimits{.executions = 1000});
    CHECK(m.minimal);
    CHECK(m.executions < 100);
    CHECK_EQUAL(0u, m.preemptions);
    CHECK(m.steps <= first.outcome.steps);
}

TEST(Minimize, a_time_limit_stops_the_search_and_is_named_as_what_stopped_it) {
    const Protocol& p = *find_registered_model("rename-pin");
    const std::size_t i = *p.find_variant("pin-after-unlink");
    const Setup setup = default_setup(p, i);
    const SearchResult found = check_model(setup, CheckOptions{});
    const Finding& f = found.findings.front();
    const ReplayResult first = replay(setup, f.schedule, CheckOptions{});
    const Minimized m =
        minimize(setup, f, first.trace.preemptions(), first.outcome.steps, CheckOptions{},
                 MinimizeLimits{.seconds = 1e-9, .time_limit_name = "--minimize-time 1x"});
    CHECK(!m.minimal);
    STRCMP_EQUAL("--minimize-time 1x", m.stopped_by.c_str());
    CHECK_EQUAL(1ul, m.executions); // the clock is read after each execution
}
