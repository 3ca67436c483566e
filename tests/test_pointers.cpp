// Pointers as shared values (issue 40): shared<T*> with READ_ONCE, WRITE_ONCE, xchg, cmpxchg,
// try_cmpxchg, smp_store_release and smp_load_acquire of pointers; traces name what a pointer
// points to (an allocation, bytes into it, an object, NULL), never its address, so that every
// run prints the same; a reader that loads a pointer another task published and dereferences
// it after the object was kfree'd is KASAN's use-after-free naming the object, found by DFS,
// source and optimal DPOR alike; under lkmm a pointer load is a value like any other.
#include <string>
#include <vector>

#include "checker/trace.hpp"
#include "harness.hpp"
#include "reports/json_report.hpp"
#include "reports/text.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct item {
    explicit item(const std::string& name) : data(name + ".data"), next(name + ".next") {}
    shared<int> data;
    shared<item*> next;
};

// gp: the published pointer; done: the reader finished with what it found.
struct table {
    shared<item*> gp{"gp"};
    completion done{"done"};
};

enum class Publish { release, once };
enum class Retire { after_reader, at_once };

// A publisher allocates an item, fills it, publishes it (smp_store_release or WRITE_ONCE),
// then unpublishes it and frees it, after the reader said it is done with it or at once; the
// reader loads the pointer (smp_load_acquire) and reads the item's data through it.
Setup publish_and_free(Publish publish, Retire retire) {
    return [publish, retire] {
        table& t = model_state<table>();
        spawn("publisher", [&t, publish, retire] {
            item* it = kmalloc<item>("it", "it");
            WRITE_ONCE(it->data, 42);
            if (publish == Publish::release)
                smp_store_release(&t.gp, it);
            else
                WRITE_ONCE(t.gp, it);
            WRITE_ONCE(t.gp, nullptr);
            if (retire == Retire::after_reader) wait_for_completion(&t.done);
            kfree(it);
        });
        spawn("reader", [&t] {
            if (item* it = smp_load_acquire(&t.gp))
                check(READ_ONCE(it->data) == 42, "the reader sees the item filled");
            complete(&t.done);
        });
    };
}

// The trace of the one violation `setup` has.
Trace trace_of_violation(const Setup& setup, const CheckOptions& options = {}) {
    const SearchResult r = check_model(setup, options);
    CHECK_EQUAL(1u, r.findings.size());
    return replay(setup, r.findings.front().schedule, options).trace;
}

std::string operations(const Trace& trace) {
    std::string text;
    for (const TraceStep& s : trace.steps)
        text += operation_text(s) + "\n";
    return text;
}

} // namespace

TEST_GROUP(Pointers){};

TEST(Pointers, read_once_write_once_and_the_acquire_release_pair_carry_pointers) {
    expect_verified_by_every_search(
        [] {
            struct s {
                shared<item*> gp{"gp"};
                item* first = kmalloc<item>("first", "first");
            };
            s& st = model_state<s>();
            spawn("t", [&st] {
                check(READ_ONCE(st.gp) == nullptr, "gp starts NULL");
                WRITE_ONCE(st.gp, st.first);
                check(READ_ONCE(st.gp) == st.first, "READ_ONCE reads what WRITE_ONCE wrote");
                smp_store_release(&st.gp, nullptr);
                check(smp_load_acquire(&st.gp) == nullptr, "acquire reads the release");
                st.gp.write(st.first);
                check(st.gp.read() == st.first, "plain accesses too");
            });
        },
        "one task");
}

TEST(Pointers, xchg_cmpxchg_and_try_cmpxchg_of_a_pointer_swap_and_compare_addresses) {
    expect_verified_by_every_search(
        [] {
            struct s {
                shared<item*> gp{"gp"};
                item* a = kmalloc<item>("a", "a");
                item* b = kmalloc<item>("b", "b");
            };
            s& st = model_state<s>();
            spawn("t", [&st] {
                check(xchg(&st.gp, st.a) == nullptr, "xchg returns the old pointer");
                check(cmpxchg(&st.gp, st.b, nullptr) == st.a, "cmpxchg fails on another");
                check(READ_ONCE(st.gp) == st.a, "a failed cmpxchg stores nothing");
                check(cmpxchg_acquire(&st.gp, st.a, st.b) == st.a, "cmpxchg succeeds");
                item* expected = st.a;
                check(!try_cmpxchg(&st.gp, &expected, nullptr), "try_cmpxchg fails");
                check(expected == st.b, "and hands back the pointer found");
                check(try_cmpxchg_release(&st.gp, &expected, nullptr), "then succeeds");
                check(xchg_relaxed(&st.gp, st.a) == nullptr, "on NULL too");
            });
        },
        "one task");
}

// The use-after-free reached through a published pointer: the reader loaded it before the
// publisher unpublished it, and reads the item after kfree().
TEST(Pointers, a_reader_dereferencing_a_published_pointer_after_kfree_is_a_use_after_free) {
    expect_found_by_every_search(publish_and_free(Publish::release, Retire::at_once),
                                 ViolationKind::use_after_free, "use-after-free of it",
                                 "kfree at once");
    const SearchResult r = check_model(publish_and_free(Publish::release, Retire::at_once));
    const Violation& v = only_violation(r);
    CHECK_EQUAL("use-after-free of it", v.property);
    CHECK_TEXT(contains(v.message, "BUG: KASAN: use-after-free in READ_ONCE(it.data) by reader "
                                   "at step "),
               v.message.c_str());
    CHECK_TEXT(contains(v.message, "; it: freed by publisher at step "), v.message.c_str());
    expect_verified_by_every_search(publish_and_free(Publish::release, Retire::after_reader),
                                    "kfree after the reader is done");
}

// The trace names the pointer's target, never its address: the load shows what the reader
// found, the variable's state what it holds, and the JSON carries the same name.
TEST(Pointers, a_trace_names_what_a_pointer_points_to_and_never_its_address) {
    const Trace trace = trace_of_violation(publish_and_free(Publish::release, Retire::at_once));
    const std::string ops = operations(trace);
    CHECK_TEXT(contains(ops, "smp_store_release(gp) -> it\n"), ops.c_str());
    CHECK_TEXT(contains(ops, "smp_load_acquire(gp) -> it\n"), ops.c_str());
    CHECK_TEXT(contains(ops, "WRITE_ONCE(gp) -> NULL\n"), ops.c_str());
    bool held = false;
    for (const TraceStep& s : trace.steps)
        if (s.object == "gp" && s.state == "= it") held = true;
    CHECK_TEXT(held, ops.c_str());
    // The same bytes in every replay: no address anywhere.
    const Trace again = trace_of_violation(publish_and_free(Publish::release, Retire::at_once));
    CHECK_EQUAL(ops, operations(again));
    for (const TraceStep& s : trace.steps)
        if (!s.value_text.empty()) CHECK(s.value && *s.value < (std::int64_t{1} << 40));
}

TEST(Pointers, a_pointer_into_an_allocation_or_to_an_object_is_named_by_it) {
    std::ptrdiff_t offset = 0; // where `next` lies in an item
    const Trace trace = trace_of_violation([&offset] {
        struct s {
            int first = 0; // so that the struct's address is no object's
            shared<int> flag{"flag"};
            shared<const void*> p{"p"};
            item* it = kmalloc<item>("it", "it");
        };
        s& st = model_state<s>();
        offset = reinterpret_cast<const char*>(&st.it->next) - reinterpret_cast<const char*>(st.it);
        spawn("t", [&st] {
            WRITE_ONCE(st.p, &st.it->next); // the second field: bytes into the allocation
            WRITE_ONCE(st.p, &st.flag);     // an object of the model
            WRITE_ONCE(st.p, &st);          // memory of neither (the model's own state)
            check(false, "the end");
        });
    });
    const std::string ops = operations(trace);
    CHECK(offset > 0);
    CHECK_TEXT(contains(ops, "WRITE_ONCE(p) -> it+" + std::to_string(offset) + "\n"), ops.c_str());
    CHECK_TEXT(contains(ops, "WRITE_ONCE(p) -> &flag\n"), ops.c_str());
    CHECK_TEXT(contains(ops, "WRITE_ONCE(p) -> (memory of no allocation or object)\n"),
               ops.c_str());
}

// Under lkmm a pointer load is a value like any other: published with WRITE_ONCE, the item
// can be seen before its data (the store to it may come later); with smp_store_release and
// smp_load_acquire it cannot. Under sc both are safe.
TEST(Pointers, under_lkmm_a_pointer_published_without_release_shows_the_item_unfilled) {
    CheckOptions lkmm;
    lkmm.memory_model = MemoryModel::lkmm;
    const SearchResult r = check_model(publish_and_free(Publish::once, Retire::after_reader), lkmm);
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::check_failed, v.kind);
    CHECK_EQUAL("the reader sees the item filled", v.property);
    expect_verified(check_model(publish_and_free(Publish::release, Retire::after_reader), lkmm));
    expect_verified(check_model(publish_and_free(Publish::once, Retire::after_reader)));
}

// The report of a use-after-free reached through a pointer keeps the load that found the
// object in view: it is how the reader came to the freed memory, and no other step of the
// story says so.
TEST(Pointers, a_use_after_free_through_a_pointer_shows_the_load_that_found_the_object) {
    const Setup setup = publish_and_free(Publish::release, Retire::at_once);
    const Trace trace = trace_of_violation(setup);
    const Story why = story(trace);
    bool shown = false;
    for (std::size_t i = 0; i < trace.steps.size(); ++i)
        if (trace.steps[i].operation == std::string("smp_load_acquire")) shown = why.involved[i];
    CHECK_TEXT(shown, format_trace(trace).c_str());
    CHECK_TEXT(contains(format_trace(trace), "smp_load_acquire(gp) -> it"),
               format_trace(trace).c_str());
}

// The JSON report carries the name beside the number that stands for it, and reads it back;
// a step whose value has no name has no value_text, as before.
TEST(Pointers, the_json_report_names_a_pointer_value_and_reads_it_back) {
    RunReport written;
    written.counterexamples.push_back(Counterexample{
        {}, {}, trace_of_violation(publish_and_free(Publish::release, Retire::at_once)), "replay"});
    const std::string json = to_json(written);
    CHECK_TEXT(contains(json, "\"value_text\": \"it\""), json.c_str());
    CHECK_TEXT(contains(json, "\"value_text\": \"NULL\""), json.c_str());
    CHECK_TEXT(!contains(json, "\"value_text\": \"42\""), json.c_str());
    RunReport read;
    std::string error;
    CHECK_TEXT(from_json(json, read, error), error.c_str());
    const std::vector<TraceStep>& steps = read.counterexamples.front().trace.steps;
    const std::vector<TraceStep>& before = written.counterexamples.front().trace.steps;
    CHECK_EQUAL(before.size(), steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i)
        CHECK_EQUAL(before[i].value_text, steps[i].value_text);
}
