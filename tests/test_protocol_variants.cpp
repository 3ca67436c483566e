// The shipped models against their own variant tables: every variant must give the verdict
// it declares (and, for a violation, the declared kind and property), read from
// protocol_models() and never restated here. Like GenMC's suite, the number of executions
// the model's default search explores for each variant is pinned, so a change in exploration
// fails a test.
#include <algorithm>
#include <string>
#include <vector>

#include "checker/dfs.hpp"
#include "checker/dpor.hpp"
#include "checker/protocol.hpp"
#include "checker/stateful_dfs.hpp"
#include "checker/trace.hpp"
#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// What the default search (DPOR) explores at the model's default sizes and depth, read from
// `lockcheck MODEL --variant V` (and `--keep-going`) and pinned, with how many executions the
// depth bound cut (none at the default bounds).
struct PinnedCount {
    const char* model;
    const char* variant;
    std::uint64_t executions;            // up to the first violation, as the CLI stops
    std::uint64_t keep_going_executions; // the whole tree, past every violation
    std::uint64_t cut = 0;
    std::uint64_t keep_going_cut = 0;
    bool keep_going_pinned = true; // false: the whole tree is too large for a test
};

const PinnedCount kPinnedCounts[] = {
    {"rename-pin", "log-mutex", 42, 42},
    {"rename-pin", "atomic", 42, 42},
    {"rename-pin", "no-pin", 7, 113},
    {"rename-pin", "pin-after-unlink", 19, 235},
    {"rename-pin", "unsynced-log-edits", 40, 56},
    {"rename-pin", "dec-nomb", 42, 42},
    {"cil-push", "global", 608, 608},
    {"cil-push", "percpu", 1632, 1632},
    {"cil-push", "hotplug", 1, 2312},
    {"cil-push", "hotplug-possible-cpus", 2312, 2312},
    {"cil-push", "no-ctx-lock", 9, 472},
    {"cil-push", "preemptible-insert", 1, 36},
    {"cil-push", "percpu-rwsem", 34352, 34352},
    {"cil-push", "percpu-rwsem-no-mb", 34352, 34352},
    {"tree-lock", "spin-block", 40694, 40694},
    {"tree-lock", "mutex", 2, 2},
    {"tree-lock", "mutex-tryspin", 2, 2},
    {"tree-lock", "sibling-order", 1, 2},
    {"tree-lock", "sleep-while-spinning", 1, 14363},
    {"tree-lock", "unlock-no-wake", 4, 6701},
    {"tree-lock", "unlock-unordered", 49926, 49926},
    {"buffered-write", "locked", 2, 2},
    {"buffered-write", "unlocked", 34, 61},
    {"buffered-write", "unlocked-wait-first", 12, 12},
    {"buffered-write", "unlocked-extend", 12, 12},
    {"buffered-write", "dio-begin-after-unlock", 16, 26},
    {"buffered-write", "truncate-nowait", 16, 34},
    {"buffered-write", "relock-before-dio-end", 2, 3},
    {"buffered-write", "dio-end-dec-nomb", 18, 18},
    {"buffered-write", "dio-punch-hole", 8139, 8139},
    {"buffered-write", "dio-no-extent-lock", 528, 10895},
    {"log-during-commit", "before", 12, 12},
    {"log-during-commit", "after", 12, 12},
    {"log-during-commit", "no-super-wait", 1, 42},
    {"log-during-commit", "before-wake-nomb", 12, 12},
    {"iomap-uptodate", "irqsave", 6322, 6322},
    {"iomap-uptodate", "unlocked", 234, 58203},
    {"iomap-uptodate", "spin-lock", 1, 6506},
    {"iomap-uptodate", "spin-lock-bh", 1, 6506},
    {"ext4-error-teardown", "flush-then-del", 104, 104},
    {"ext4-error-teardown", "del-then-flush", 1, 386},
    {"ext4-error-teardown", "del-only", 1, 132},
    {"ext4-error-teardown", "cancel-then-del", 2, 131},
    {"delayed-iput", "irq-safe", 292, 292},
    {"delayed-iput", "spin-lock", 1, 316},
    {"delayed-iput", "run-irq-only", 292, 292},
    {"delayed-iput", "add-irqsave-only", 1, 316},
    {"delayed-iput", "spin-lock-bh", 1, 316},
    {"fuse-i-size", "fc-lock", 362, 362},
    {"fuse-i-size", "unlocked", 178, 1250},
    {"fuse-i-size", "i-mutex", 698, 698},
    {"fuse-i-size", "unlocked-64bit", 8, 8},
    {"aio-lookup", "try-get", 211, 211},
    {"aio-lookup", "get", 45, 4975},
    {"aio-lookup", "free-at-once", 21, 213},
    {"flctx", "acquire", 910, 910},
    {"flctx", "plain-load", 1, 910},
    {"flctx", "no-reload", 10, 1728},
};

SearchResult check_variant(const Protocol& p, std::size_t variant, bool keep_going = false,
                           MemoryModel model = MemoryModel::sc) {
    CheckOptions options;
    options.depth = p.depth_for(variant);
    options.keep_going = keep_going;
    options.memory_model = model;
    return check_model(default_setup(p, variant), kDefaultSearch, options);
}

// The variants whose whole search under lkmm takes most of a minute (docs/PERFORMANCE.md).
bool slow_under_lkmm(const std::string& model, const std::string& variant) {
    return (model == "tree-lock" && variant == "spin-block") ||
           (model == "cil-push" && variant == "percpu-rwsem");
}

// Checks every shipped variant (but those slow_under_lkmm(), when `all` is false) against the
// verdict it declares for `model`; returns how many it checked.
int expect_declared_verdicts(MemoryModel model, bool all = true) {
    int checked = 0;
    for (const Protocol& p : protocol_models()) {
        for (std::size_t i = 0; i < p.variants.size(); ++i) {
            const Variant& v = p.variants[i];
            if (!all && model == MemoryModel::lkmm && slow_under_lkmm(p.name, v.name)) continue;
            const std::string what = p.name + " --variant " + v.name +
                                     (model == MemoryModel::lkmm ? " --memory-model lkmm" : "");
            expect_as_declared(check_variant(p, i, false, model), v.expected(model), what);
            ++checked;
        }
    }
    return checked;
}

const PinnedCount* pinned(const std::string& model, const std::string& variant) {
    for (const PinnedCount& c : kPinnedCounts)
        if (model == c.model && variant == c.variant) return &c;
    return nullptr;
}

} // namespace

TEST_GROUP(ProtocolVariants){};

TEST(ProtocolVariants, every_variant_gives_its_declared_verdict_kind_and_property) {
    CHECK_TEXT(expect_declared_verdicts(MemoryModel::sc) > 0, "protocol_models() has no variants");
}

TEST(ProtocolVariants,
     the_default_search_explores_the_pinned_number_of_executions_for_every_variant) {
    for (const Protocol& p : protocol_models()) {
        for (std::size_t i = 0; i < p.variants.size(); ++i) {
            const std::string what = p.name + " --variant " + p.variants[i].name;
            const PinnedCount* pin = pinned(p.name, p.variants[i].name);
            CHECK_TEXT(pin != nullptr, (what + " has no pinned count: add it").c_str());
            const SearchResult first = check_variant(p, i);
            CHECK_EQUAL_TEXT(pin->executions, first.stats.executions, what.c_str());
            CHECK_EQUAL_TEXT(pin->cut, first.stats.cut, what.c_str());
            if (!pin->keep_going_pinned) continue;
            const SearchResult all = check_variant(p, i, true);
            const std::string all_what = what + " --keep-going";
            CHECK_EQUAL_TEXT(pin->keep_going_executions, all.stats.executions, all_what.c_str());
            CHECK_EQUAL_TEXT(pin->keep_going_cut, all.stats.cut, all_what.c_str());
        }
    }
}

TEST(ProtocolVariants, every_pinned_count_names_a_shipped_variant) {
    for (const PinnedCount& c : kPinnedCounts) {
        const Protocol* p = find_registered_model(c.model);
        const std::string what = std::string(c.model) + " --variant " + c.variant;
        CHECK_TEXT(p != nullptr && p->find_variant(c.variant).has_value(),
                   (what + " is pinned but not shipped").c_str());
    }
}

// delayed-iput's run-irq-only (the patch's first version) is correct with one file and wrong
// with two: one inode added from an interrupt (the hardirq or BLOCK_SOFTIRQ), one from a worker
// with interrupts on. At two
// files DPOR runs millions of executions, breadth-first search some 39,000 (docs/PERFORMANCE.md).
TEST(ProtocolVariants, delayed_iput_first_version_is_an_inconsistent_lock_state_with_two_files) {
    const Protocol& p = *find_registered_model("delayed-iput");
    ParameterValues two_files = p.default_values();
    two_files[0] = 2;
    const auto variant = [&p, &two_files](const char* name) -> Setup {
        return [&p, v = *p.find_variant(name), two_files] { p.setup(v, two_files); };
    };
    expect_verified(check_model(variant("irq-safe"), Search::bfs, CheckOptions{}),
                    "irq-safe --files 2");
    const SearchResult first = check_model(variant("run-irq-only"), Search::bfs, CheckOptions{});
    const Violation& v = only_violation(first, "run-irq-only --files 2");
    CHECK_EQUAL(ViolationKind::lock_order, v.kind);
    CHECK_EQUAL("inconsistent-lock-state", v.property);
    STRCMP_CONTAINS("usage of fs_info->delayed_iput_lock", v.message.c_str());
}

// Under the kernel's memory model every variant gives the verdict it declares for it (its
// expect_lkmm, else the one under sc): the models hold the locks and barriers the kernel orders
// with. Seconds where sc takes milliseconds (docs/memory-model.md, "Cost"), so a group of its
// own, which the sanitizer run leaves out; tree-lock's spin-block and cil-push's percpu-rwsem
// verify under lkmm, but in some 40 s each (docs/PERFORMANCE.md), and are left out here
// (percpu-rwsem is checked at a smaller size below).
TEST_GROUP(ProtocolVariantsLkmm){};

TEST(ProtocolVariantsLkmm, every_variant_gives_its_declared_verdict_under_lkmm) {
    CHECK(expect_declared_verdicts(MemoryModel::lkmm, false) > 20);
}

// cil-push's percpu-rwsem pair on one CPU (at the default two the correct one takes most of a
// minute under lkmm): the smp_mb() pairs verify, and without the reader's barrier before its
// decrement the push splices the list_add_tail() of the commit that did not spawn it, which
// nothing orders before the splice.
TEST(ProtocolVariantsLkmm, cil_push_percpu_rwsem_needs_the_barrier_before_the_readers_decrement) {
    const Protocol& p = *find_registered_model("cil-push");
    ParameterValues one_cpu = p.default_values();
    one_cpu[0] = 1;
    CheckOptions options;
    options.memory_model = MemoryModel::lkmm;
    const auto variant = [&p, &one_cpu](const char* name) -> Setup {
        return [&p, v = *p.find_variant(name), one_cpu] { p.setup(v, one_cpu); };
    };
    const SearchResult correct = check_model(variant("percpu-rwsem"), kDefaultSearch, options);
    expect_verified(correct, "percpu-rwsem --cpus 1");
    CHECK(correct.stats.executions > 1000);
    const SearchResult broken = check_model(variant("percpu-rwsem-no-mb"), kDefaultSearch, options);
    const Violation& race = only_violation(broken, "percpu-rwsem-no-mb --cpus 1");
    CHECK_EQUAL(ViolationKind::data_race, race.kind);
    CHECK_EQUAL("data race on xc_pcp@cpu0.p_cil", race.property);
}

// flctx under lkmm: the fix's acquire, paired with the cmpxchg() that publishes the context,
// verifies in the pinned number of executions; before it the plain load of i_flctx races with
// that cmpxchg() by LKMM's definition (a data race, which KTSAN found), in the first execution.
TEST(ProtocolVariantsLkmm, flctx_explores_the_pinned_number_of_executions_under_lkmm) {
    const Protocol* p = find_registered_model("flctx");
    CHECK_TEXT(p != nullptr, "flctx is not shipped");
    const struct {
        const char* variant;
        std::uint64_t executions, keep_going_executions;
    } pins[] = {{"acquire", 2225, 2225}, {"plain-load", 1, 2225}, {"no-reload", 10, 2957}};
    for (const auto& pin : pins) {
        const std::size_t v = *p->find_variant(pin.variant);
        const std::string what = std::string("flctx --variant ") + pin.variant;
        CHECK_EQUAL_TEXT(pin.executions,
                         check_variant(*p, v, false, MemoryModel::lkmm).stats.executions,
                         what.c_str());
        CHECK_EQUAL_TEXT(pin.keep_going_executions,
                         check_variant(*p, v, true, MemoryModel::lkmm).stats.executions,
                         (what + " --keep-going").c_str());
    }
}

// aio-lookup's --submitters: the io_submit() lookups beside io_destroy(), each a task of its
// own (docs/PERFORMANCE.md, "A grace period's cost", measures two). Freed without a grace
// period, the first reader to look at the freed ioctx is still KASAN's report.
TEST(ProtocolVariants, aio_lookup_submitters_are_the_readers_beside_io_destroy) {
    const Protocol& p = *find_registered_model("aio-lookup");
    CHECK_EQUAL(1u, p.parameters.size());
    ParameterValues two = p.default_values();
    CHECK_EQUAL(1, two[0]);
    two[0] = 2;
    const Setup setup = [&p, v = *p.find_variant("free-at-once"), two] { p.setup(v, two); };
    const SearchResult r = check_model(setup, kDefaultSearch, CheckOptions{});
    const Violation& v = only_violation(r, "free-at-once --submitters 2");
    CHECK_EQUAL("use-after-free of ctx", v.property);
    const Trace trace = replay(setup, r.findings.front().schedule, CheckOptions{}).trace;
    const std::vector<std::string> readers{"io_destroy", "io_submit", "io_submit2"};
    CHECK(std::equal(readers.begin(), readers.end(), trace.tasks.begin()));
}

// The submitters' read-side sections commute, never one and io_destroy()'s call_rcu() or its
// callback: DPOR and optimal DPOR reach what DFS reaches with one submitter (under sc to the
// end; under lkmm 1 step deep, 19,866 DFS executions instead of 391,741), and with two what the
// state cache reaches under sc (DFS does not finish 2 + 1 in minutes), with the ioctx freed
// after a grace period and at once.
TEST(ProtocolVariants, aio_lookup_dpor_reaches_what_dfs_reaches_with_one_and_two_submitters) {
    const Protocol& p = *find_registered_model("aio-lookup");
    for (const char* variant : {"try-get", "free-at-once"}) {
        const std::size_t v = *p.find_variant(variant);
        const auto submitters = [&p, v](int n) -> Setup {
            ParameterValues values = p.default_values();
            values[0] = n;
            return [&p, v, values] { p.setup(v, values); };
        };
        const std::string what = std::string(variant) + " --submitters ";
        expect_dpor_reaches_what_dfs_does(submitters(1), what + "1", 200);
        const auto lkmm = [](Execution::Limits& l) { l.memory_model = MemoryModel::lkmm; };
        const auto one_deep = [&](Strategy& s) {
            return reach(submitters(1), s, 1, true, Execution::kDefaultMaxSteps, lkmm);
        };
        Dfs dfs;
        const Reached lkmm_all = one_deep(dfs);
        StatefulDfs cached;
        const Reached all = reach(submitters(2), cached, 200);
        for (Dpor::Mode mode : {Dpor::Mode::source, Dpor::Mode::optimal}) {
            Dpor dpor(0, mode);
            expect_reached_what_dfs_reached(reach(submitters(2), dpor, 200), all,
                                            what + "2, dpor against the state cache");
            Dpor one(0, mode);
            expect_reached_what_dfs_reached(one_deep(one), lkmm_all,
                                            what + "1 --depth 1 --memory-model lkmm, dpor");
        }
    }
}
