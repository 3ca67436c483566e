// Protocol: a model as the checker runs it: its variants, each with its expected verdict
// declared next to it, its size parameters, and the set-up that builds one execution.
#pragma once

#include <cctype>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "../scheduler/memory_model.hpp"
#include "../scheduler/violation.hpp"

namespace lockcheck::detail {

struct Expectation {
    // No violation expected: the variant is verified within the bounds.
    static Expectation verified() { return {}; }
    // A violation of `kind`; with a `property`, one whose property is that or starts with it
    // followed by a character no name goes on with ("use-after-free of fs" is also broken by
    // "use-after-free of fs.lock", not by "use-after-free of fsx"). docs/writing-models.md
    // lists each kind's properties.
    static Expectation violation(ViolationKind kind, std::string property = {}) {
        return {true, kind, std::move(property)};
    }
    bool expects_violation = false;
    ViolationKind kind{};
    std::string property; // what the violation must be about (see violation()); empty: any

    // Whether `v` is the violation expected.
    bool matches(const Violation& v) const {
        if (!expects_violation || v.kind != kind) return false;
        if (!v.property.starts_with(property)) return false;
        if (v.property.size() == property.size() || property.empty()) return true;
        const char next = v.property[property.size()];
        return !(std::isalnum(static_cast<unsigned char>(next)) || next == '_');
    }
};

struct Variant {
    std::string name;
    std::string summary; // one line: what this variant models
    Expectation expect;
    // Its own default --depth, where its bug lies deeper than the protocol's default bound
    // reaches (0: the protocol's).
    std::uint32_t depth = 0;
    // Its verdict under --memory-model lkmm where that differs from `expect` (a barrier bug,
    // which sequential consistency hides); none: the same.
    std::optional<Expectation> expect_lkmm = {};

    const Expectation& expected(MemoryModel model) const {
        return model == MemoryModel::lkmm && expect_lkmm ? *expect_lkmm : expect;
    }
};

struct Parameter {
    std::string name; // becomes --name on the command line
    std::string help;
    int default_value;
    int min;
    int max;
};

using ParameterValues = std::vector<int>; // in Protocol::parameters order

// The change a model is about, for `lockcheck compare`: the variant before the patch and the
// one after it, and how to explore both so that their waits compare. Waits are measured by
// dfs (every interleaving, weighed once); where dfs cannot finish at the model's sizes, by a
// sample of random schedules (weighed by how likely a schedule is), or by dfs within a
// preemption bound. A dpor search would not do: a wait depends on the order of independent
// steps, which it does not explore.
struct Comparison {
    std::string before;
    std::string after;
    std::string strategy = "dfs";                  // dfs, random or pct
    std::optional<std::uint32_t> preemptions = {}; // dfs: at most this many per execution
    std::uint64_t iterations = 0;                  // random, pct: executions (0: the default)
};

// What a model is, for listing and for the tests that hold every model of a kind to its rules.
enum class ModelKind : std::uint8_t {
    protocol,  // a locking protocol (protocols/, a user's model)
    benchmark, // a classic benchmark of the search (examples/)
    litmus,    // a family of memory-model litmus tests (litmus/)
};

// Every member has a default, so that a model's designated initializer may leave out what it
// does not need (a model without sizes) without a -Wextra warning in the user's build.
struct Protocol {
    std::string name{};
    std::string summary{};
    std::vector<Variant> variants{};
    std::size_t default_variant = 0;
    std::vector<Parameter> parameters{};
    std::uint32_t default_depth = 200;
    // Listed apart from the protocol models unless a protocol.
    ModelKind kind = ModelKind::protocol;
    // The before/after pair `lockcheck compare MODEL` runs; none: both must be named.
    std::optional<Comparison> comparison{};
    // Whether check-all searches the model's variants, under sc, by depth-first search that
    // stores every state (--strategy dfs --state-cache) rather than by the default DPOR. Where
    // tasks share most of their objects, DPOR's classes of interleavings far outnumber the
    // states they reach (tree-lock: 40,694 executions against 483). Exact only for a model
    // that keeps all its shared state in primitives and plain_state() (docs/scaling.md); the
    // stateful searches are checked against DFS on every shipped variant.
    bool check_stores_states = false;
    // Builds the model's state and tasks inside the execution being set up.
    std::function<void(std::size_t variant, const ParameterValues& values)> setup{};

    // The default --depth of a variant.
    std::uint32_t depth_for(std::size_t variant) const {
        return variants[variant].depth ? variants[variant].depth : default_depth;
    }
    // The variant's index, if there is one by that name.
    std::optional<std::size_t> find_variant(const std::string& variant_name) const;
    ParameterValues default_values() const;
};

// The Variant column of a protocol's table of {Variant, policy} rows: each model keeps its
// variants next to the policies that make them, and hands the checker this column.
template <class Rows> std::vector<Variant> variants_of(const Rows& rows) {
    std::vector<Variant> column;
    for (const auto& row : rows)
        column.push_back(row.variant);
    return column;
}

} // namespace lockcheck::detail
