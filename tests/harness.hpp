// What the model tests share: explore a model's set-up with exhaustive DFS and look at what
// the search found. Assertions happen only here and in test bodies, never inside model code:
// a CppUTest failure must not be thrown across a task's fiber.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <utility>

#include "checker/explorer.hpp"
#include "checker/model_registry.hpp"
#include "checker/protocol.hpp"
#include "checker/search.hpp"
#include "model/kernel.hpp"

#include <CppUTest/SimpleString.h>

namespace lockcheck::detail::testing {

// Every execution of `setup` under DFS (stopping at the first violation unless the options
// say keep_going).
SearchResult check_model(const Setup& setup, CheckOptions options = {});
SearchResult check_keep_going(const Setup& setup, CheckOptions options = {});
// The same under another search.
SearchResult check_model(const Setup& setup, Search search, CheckOptions options);
// The registered models this test binary links: the protocol models (protocols/), and the
// classic benchmarks (examples/).
const std::vector<Protocol>& protocol_models();
// The protocol models in two halves (`half` 0 or 1): the groups that run every shipped variant
// under several searches take one half each, so that each CTest test stays well within its
// time limit on a loaded machine.
std::vector<Protocol> protocol_models_half(int half);
const std::vector<Protocol>& benchmark_models();
// The litmus-test families (litmus/).
const std::vector<Protocol>& litmus_models();
// A shipped variant's set-up at the protocol's default sizes.
Setup default_setup(const Protocol& protocol, std::size_t variant);
// Whether exhaustive DFS runs every execution of a shipped variant at the protocol's default
// sizes and depth, past its violations, in seconds, so that tests can compare other searches
// with it there: not on tree-lock and log-during-commit (docs/dpor.md), nor on rename-pin's
// no-pin and pin-after-unlink, whose fsync runs beside the rename without waiting for it (ten
// million executions once past the first violation), nor on cil-push's percpu-rwsem variants
// (24 million), nor on iomap-uptodate (three interrupt contexts on two CPUs), nor on
// fuse-i-size's 32-bit variants (0.9 to 1.9 million executions, 14 million past unlocked's first
// violation: seconds once, minutes in the groups that run DFS several times over).
bool dfs_exhausts(const Protocol& protocol, std::size_t variant);
// The depth tests run DFS to on a shipped variant: its own where DFS exhausts it, else a bound
// within which DFS exhausts it in seconds (and cuts most of its executions).
std::uint32_t dfs_feasible_depth(const Protocol& protocol, std::size_t variant);

// The searches that run every execution within the depth, or one of each class of them: the
// ones a violation found by one must be found by all.
inline constexpr Search kExhaustiveSearches[] = {Search::dfs, Search::dpor, Search::optimal_dpor};

// What a search reached, continuing past violations: the object states at the end of every
// execution that finished without a violation, and the kind and property of every violation.
// Two searches that reach the same are equally good at finding what goes wrong.
struct Reached {
    std::uint64_t executions = 0;
    std::uint64_t sleep_blocked = 0; // executions a reduction stopped: an equivalent one ran
    std::set<std::string> final_states;
    std::set<std::string> final_sets; // the same, each list as what is on it
    // A stateful search kept lists as sets (Execution::Limits::lists_as_sets), unless an
    // execution read a list's order, after which it began again with them in order.
    bool lists_as_sets = false;
    bool lists_in_order = false;
    // A stateful search that judged loops as cycles met what it does not judge and began again
    // with them watched (Execution::Limits::loops_as_cycles).
    bool loops_watched = false;
    std::set<std::pair<ViolationKind, std::string>> violations;
};
// `forgets`: whether a stateful search takes the model's forget_reads at their word.
// Every execution `strategy` runs within `depth`, and `max_steps` steps (0: `depth`, the bound
// of a search cut by its steps alone, as no execution is deeper than it is long).
// `limits` adjusts the execution's other limits (a memory model, a switch).
Reached reach(const Setup& setup, Strategy& strategy, std::uint32_t depth, bool forgets = true,
              std::uint32_t max_steps = 0,
              const std::function<void(Execution::Limits&)>& limits = nullptr);
// Whether two searches reached the same final states: as sets of what is on each list where
// either kept lists as sets.
bool same_final_states(const Reached& a, const Reached& b);
// Fails the test unless a reduced search reached the final states and kinds of violation
// plain DFS reached (`all`); `what` names the search and the model.
void expect_reached_what_dfs_reached(const Reached& reduced, const Reached& all,
                                     const std::string& what);
// The distinct violations (Violation::key: kind and object or message) a search finds in
// `setup` with keep_going, and the executions it ran.
struct Distinct {
    std::set<std::string> keys;
    std::uint64_t executions = 0;
};
Distinct distinct_violations(const Setup& setup, Search search, std::uint32_t depth);
// Fails the test unless DFS, source and optimal DPOR with keep_going find the same distinct
// violations in `setup`; returns DFS's.
std::set<std::string> expect_every_search_finds_the_same(const Setup& setup, std::uint32_t depth,
                                                         const std::string& what);
// Fails the test unless every exhaustive search finds exactly one violation in `setup`, of
// `kind` and, unless it is empty, `property`.
void expect_found_by_every_search(const Setup& setup, ViolationKind kind,
                                  const std::string& property, const std::string& what);
// Fails the test if any exhaustive search finds a violation in `setup`.
void expect_verified_by_every_search(const Setup& setup, const std::string& what);
// Fails the test unless source and optimal DPOR reach the same final states and violations as
// DFS on `setup`, in no more executions, under `memory_model`.
void expect_dpor_reaches_what_dfs_does(const Setup& setup, const std::string& what,
                                       std::uint32_t depth = 200,
                                       MemoryModel memory_model = MemoryModel::sc);

// What a search found and measured, as its JSON report writes it, with the times and threads
// left out: two searches that must agree in every figure and finding have the same text.
std::string report_of(SearchResult result);

// The violation of a search that must have found exactly one; fails the test otherwise.
// `what` names the case in the failure message when a test loops over cases.
const Violation& only_violation(const SearchResult& result, const std::string& what = "");
// The result must outlive the reference: keep it in a variable.
const Violation& only_violation(SearchResult&& result, const std::string& what = "") = delete;
// Fails the test if the search found any violation.
void expect_verified(const SearchResult& result, const std::string& what = "");
// Fails the test unless the search found what `expected` declares: nothing, or exactly one
// violation of its kind and property.
void expect_as_declared(const SearchResult& result, const Expectation& expected,
                        const std::string& what);

bool contains(const std::string& text, const std::string& part);
// The findings, one line each, for failure messages.
std::string describe(const SearchResult& result);

} // namespace lockcheck::detail::testing

namespace lockcheck::detail {
// So that CHECK_EQUAL can print a kind (found by argument-dependent lookup).
SimpleString StringFrom(ViolationKind kind);
// CppUTest's own overloads (int, strings, ...) would be hidden by the one above from code in
// namespace lockcheck.
using ::StringFrom;
} // namespace lockcheck::detail
