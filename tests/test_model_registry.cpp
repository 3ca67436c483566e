// Models register themselves (LOCKCHECK_MODEL): the shipped ones are all there, in an order
// that does not depend on linking, and a badly declared model is refused with a reason.
#include <algorithm>
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

Protocol model(std::string name) {
    return Protocol{.name = std::move(name),
                    .summary = "a model",
                    .variants = {{"only", "the one variant", Expectation::verified()}},
                    .parameters = {{"tasks", "how many", 1, 1, 4}},
                    .setup = [](std::size_t, const ParameterValues&) {}};
}

bool mentions(const std::vector<std::string>& problems, const std::string& part) {
    return std::any_of(problems.begin(), problems.end(),
                       [&](const std::string& p) { return contains(p, part); });
}

} // namespace

TEST_GROUP(ModelRegistry){};

TEST(ModelRegistry, every_shipped_model_registers_itself_without_a_table) {
    for (const char* name : {"rename-pin", "buffered-write", "tree-lock", "cil-push",
                             "log-during-commit", "indexer", "filesystem", "lastzero"})
        CHECK_TEXT(find_registered_model(name) != nullptr, name);
    CHECK(find_registered_model("no-such-model") == nullptr);
    CHECK_TRUE(registration_problems().empty());
}

TEST(ModelRegistry, models_are_listed_by_kind_then_name) {
    const std::vector<Protocol>& models = registered_models();
    for (std::size_t i = 1; i < models.size(); ++i) {
        const Protocol& a = models[i - 1];
        const Protocol& b = models[i];
        CHECK_TEXT(a.kind < b.kind || (a.kind == b.kind && a.name < b.name),
                   (a.name + " listed before " + b.name).c_str());
    }
    CHECK(find_registered_model("rename-pin")->kind == ModelKind::protocol);
    CHECK(find_registered_model("lastzero")->kind == ModelKind::benchmark);
    CHECK(find_registered_model("lkmm-litmus")->kind == ModelKind::litmus);
}

TEST(ModelRegistry, a_well_declared_model_has_no_problems) {
    CHECK_TRUE(model_problems({model("refcache"), model("other")}).empty());
}

TEST(ModelRegistry, two_models_of_one_name_are_refused) {
    CHECK_TRUE(mentions(model_problems({model("refcache"), model("refcache")}),
                        "model 'refcache' is registered twice"));
}

TEST(ModelRegistry, names_that_are_commands_or_not_option_words_are_refused) {
    CHECK_TRUE(mentions(model_problems({model("list")}), "one of lockcheck's own commands"));
    for (const std::string_view command : kCommandNames)
        CHECK_TRUE(mentions(model_problems({model(std::string(command))}),
                            "one of lockcheck's own commands"));
    CHECK_TRUE(mentions(model_problems({model("Ref Cache")}), "lower-case letters"));
    CHECK_TRUE(mentions(model_problems({model("")}), "lower-case letters"));
}

TEST(ModelRegistry, variants_and_sizes_must_be_declared_once_and_within_range) {
    Protocol p = model("refcache");
    p.variants.push_back(p.variants.front());
    CHECK_TRUE(mentions(model_problems({p}), "variant 'only' is declared twice"));

    p = model("refcache");
    p.variants.clear();
    CHECK_TRUE(mentions(model_problems({p}), "has no variants"));

    p = model("refcache");
    p.default_variant = 3;
    CHECK_TRUE(mentions(model_problems({p}), "default_variant is out of range"));

    p = model("refcache");
    p.parameters.push_back(p.parameters.front());
    CHECK_TRUE(mentions(model_problems({p}), "size option --tasks is declared twice"));

    p = model("refcache");
    p.parameters.front().default_value = 9;
    CHECK_TRUE(mentions(model_problems({p}), "the default is not within [min, max]"));

    p = model("refcache");
    p.setup = nullptr;
    CHECK_TRUE(mentions(model_problems({p}), "has no setup"));
}

TEST(ModelRegistry, every_shipped_protocol_declares_its_before_and_after_for_compare) {
    for (const Protocol& p : protocol_models())
        CHECK_TEXT(p.comparison.has_value(), p.name.c_str());
}

TEST(ModelRegistry, a_comparison_must_name_variants_and_a_search_that_measures_waits) {
    Protocol p = model("refcache");
    p.comparison = Comparison{.before = "only", .after = "gone"};
    CHECK_TRUE(mentions(model_problems({p}), "comparison: no variant 'gone'"));

    p.comparison = Comparison{.before = "only", .after = "only", .strategy = "dpor"};
    CHECK_TRUE(mentions(model_problems({p}), "comparison: strategy 'dpor' is not dfs, random"));
}
