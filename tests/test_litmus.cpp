// The litmus tests (litmus/) against LKMM's verdicts: under --memory-model lkmm every test must
// give the verdict its header states (the load-buffering ones excepted, which lockcheck does
// not explore and declares so), with every exhaustive search; under sc none may show a
// behaviour sequential consistency forbids. The verdicts are read from the models' variant
// tables, never restated here.
#include <string>

#include "checker/protocol.hpp"
#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::testing;

namespace {

// Runs every litmus test under `model` with `options`, and checks each one's verdict.
int expect_declared_verdicts(MemoryModel model, SearchOptions search) {
    int checked = 0;
    for (const Protocol& p : litmus_models()) {
        for (std::size_t i = 0; i < p.variants.size(); ++i) {
            const Variant& v = p.variants[i];
            const Expectation& expected = v.expected(model);
            const std::string what = p.name + " --variant " + v.name + " --memory-model " +
                                     memory_model_name(model) + " --strategy " +
                                     search_name(search.search) +
                                     (search.state_cache ? " --state-cache" : "");
            CheckOptions options;
            options.depth = p.depth_for(i);
            options.memory_model = model;
            search.depth = options.depth;
            const SearchResult r = explore(default_setup(p, i), *make_search(search), options);
            if (!expected.expects_violation) {
                expect_verified(r, what);
            } else {
                const Violation& found = only_violation(r, what);
                CHECK_EQUAL_TEXT(expected.kind, found.kind, what.c_str());
                CHECK_EQUAL_TEXT(expected.property, found.property, what.c_str());
            }
            ++checked;
        }
    }
    return checked;
}

SearchOptions search(Search s, bool state_cache = false) {
    SearchOptions o;
    o.search = s;
    o.state_cache = state_cache;
    return o;
}

} // namespace

TEST_GROUP(Litmus){};

TEST(Litmus, every_test_gives_lkmms_verdict_under_lkmm) {
    CHECK(expect_declared_verdicts(MemoryModel::lkmm, search(Search::dfs)) >= 34);
}

TEST(Litmus, every_exhaustive_search_gives_the_same_verdicts_under_lkmm) {
    for (const SearchOptions& s : {search(Search::dpor), search(Search::optimal_dpor),
                                   search(Search::bfs), search(Search::dfs, true)})
        expect_declared_verdicts(MemoryModel::lkmm, s);
}

TEST(Litmus, under_sc_no_test_shows_a_weak_behaviour) {
    expect_declared_verdicts(MemoryModel::sc, search(Search::dfs));
    expect_declared_verdicts(MemoryModel::sc, search(Search::dpor));
}
