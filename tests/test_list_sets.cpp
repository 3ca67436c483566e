// A stateful search keeps each list as the set of its entries, so that tasks adding to it in
// either order reach one state, until a step or a property reads a list's order
// (list_first_entry(), list_for_each_entry(), list_entries(), ...): then it begins again with
// lists in order, and finds what depends on the order. The report says which it did.
#include <string>

#include "checker/stateful_dfs.hpp"
#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct item {
    explicit item(const std::string& name) : link(name) {}
    list_head link;
};

struct Queue {
    list_head head{"head"};
    item a{"a"};
    item b{"b"};
    atomic_t added{"added"};
};

// t0 adds a, t1 adds b, each then counts it added; `reader` runs as a third task, and
// `properties` declares the model's properties.
template <class Reader, class Properties = void (*)(Queue&)>
Setup two_adders(
    Reader reader, Properties properties = [](Queue&) {}) {
    return [reader, properties] {
        auto& q = this_execution().make<Queue>();
        properties(q);
        spawn("t0", [&q] {
            list_add_tail(&q.a.link, &q.head);
            atomic_inc(&q.added);
        });
        spawn("t1", [&q] {
            list_add_tail(&q.b.link, &q.head);
            atomic_inc(&q.added);
        });
        spawn("reader", [&q, reader] { reader(q); });
    };
}

// The third task only looks at the count.
void counts(Queue& q) {
    atomic_read(&q.added);
}

// Once both are added, the first entry must be a: false when t1 added first.
void expects_a_first(Queue& q) {
    if (atomic_read(&q.added) != 2) return;
    check(list_first_entry(&q.head, item, link) == &q.a, "a is first");
}

SearchResult search_with_stored_states(const Setup& setup, CheckOptions options = {}) {
    StatefulDfs cached;
    return explore(setup, cached, options);
}

} // namespace

TEST_GROUP(ListSets){};

// Before the reader: [], [a], [b], then [a, b] and [b, a], which as sets are one state. Each
// count of `added` with each set is a state; the reader's read of it splits each once more.
TEST(ListSets, two_tasks_adding_in_either_order_reach_one_state) {
    StatefulDfs sets;
    const Reached merged = reach(two_adders(counts), sets, 100);
    StatefulDfs ordered;
    const Reached apart = reach(two_adders(counts), ordered, 100, true, 0,
                                [](Execution::Limits& l) { l.lists_as_sets = false; });
    CHECK(merged.lists_as_sets);
    CHECK(!merged.lists_in_order);
    CHECK(sets.states().stored < ordered.states().stored);
    CHECK(merged.executions < apart.executions);
    // The same final states, but for the order of head's entries.
    CHECK_EQUAL(2u, apart.final_states.size());
    CHECK_EQUAL(1u, merged.final_sets.size());
    CHECK(merged.final_sets == apart.final_sets);
}

// Kept as sets, [a, b] and [b, a] would be one state and the reader's check would run only
// after one of them: the read makes the search begin again, and it finds the other.
TEST(ListSets, a_step_that_reads_the_order_makes_the_search_begin_again_and_find_what_it_reads) {
    const SearchResult r = search_with_stored_states(two_adders(expects_a_first));
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::check_failed, v.kind);
    CHECK_EQUAL("a is first", v.property);
    const StateCounts& st = r.stats.states;
    CHECK_TEXT(contains(st.lists_in_order, "list_first_entry(head) at step "),
               st.lists_in_order.c_str());
    CHECK(st.executions_before_order >= 1);
}

// A final check that reads the order (list_entries()) does the same.
TEST(ListSets, a_property_that_reads_the_order_makes_the_search_begin_again) {
    const Setup setup = [] {
        auto& q = this_execution().make<Queue>();
        spawn("t0", [&q] { list_add_tail(&q.a.link, &q.head); });
        spawn("t1", [&q] { list_add_tail(&q.b.link, &q.head); });
        final_check("a is first", [&q] { return list_entries(q.head).front() == &q.a.link; });
    };
    const SearchResult r = search_with_stored_states(setup);
    CHECK_EQUAL("a is first", only_violation(r).property);
    CHECK_TEXT(contains(r.stats.states.lists_in_order, "list_entries(head)"),
               r.stats.states.lists_in_order.c_str());
}

// list_contains() and list_count_nodes() ask what is on a list, not in which order: the lists
// stay sets, and the orders of the two adds still meet.
TEST(ListSets, properties_that_ask_what_is_on_a_list_keep_the_lists_sets) {
    const Setup setup = two_adders(counts, [](Queue& q) {
        final_check("both are on it", [&q] {
            return list_contains(q.head, &q.a.link) && list_contains(q.head, &q.b.link) &&
                   list_count_nodes(q.head) == 2;
        });
    });
    const SearchResult sets = search_with_stored_states(setup);
    expect_verified(sets);
    CHECK_EQUAL(std::string(), sets.stats.states.lists_in_order);
    CHECK_EQUAL(0u, sets.stats.states.executions_before_order);
    CheckOptions in_order;
    in_order.lists_as_sets = false;
    const SearchResult ordered = search_with_stored_states(setup, in_order);
    CHECK_EQUAL(std::string("asked for"), ordered.stats.states.lists_in_order);
    CHECK(sets.stats.states.stored < ordered.stats.states.stored);
    CHECK(sets.stats.executions < ordered.stats.executions);
}

TEST(ListSets, the_report_says_how_the_search_kept_lists) {
    const Run sets = run_lockcheck(
        {"cil-push", "--strategy", "dfs", "--state-cache", "--no-timing", "--commits", "1"});
    CHECK_EQUAL(0, sets.exit_code);
    CHECK_TEXT(contains(sets.out, "\nlists         as the sets of their entries: no step read an "
                                  "order\n"),
               sets.out.c_str());
    const TempDir dir;
    const std::string json = dir / "run.json";
    const Run ordered = run_lockcheck(
        {"delayed-iput", "--strategy", "dfs", "--state-cache", "--no-timing", "--json", json});
    CHECK_EQUAL(0, ordered.exit_code);
    CHECK_TEXT(contains(ordered.out, "\nlists         in order: list_first_entry("
                                     "fs_info->delayed_iputs) at step "),
               ordered.out.c_str());
    CHECK_TEXT(contains(ordered.out, "read one's order, and the search began again (1 execution "
                                     "before, not counted above)\n"),
               ordered.out.c_str());
    const std::string text = read_file(json);
    CHECK_TEXT(contains(text, "\"lists_in_order\": \"list_first_entry(fs_info->delayed_iputs)"),
               text.c_str());
    CHECK_TEXT(contains(text, "\"executions_before_order\": 1"), text.c_str());
}
