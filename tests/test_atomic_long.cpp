// atomic64_t and atomic_long_t: atomic_t's operation families on 64 bits, each a step named as
// the kernel names it, with atomic_t.txt's orderings under lkmm (a relaxed set gives no order,
// a release set read by an acquire read does).
#include <string>

#include "checker/trace.hpp"

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

constexpr s64 kBig = s64{1} << 40; // past 32 bits: a truncation would show

// Runs `body` as the one task of a model and returns what it recorded.
template <class Body> std::string one_task(Body body) {
    std::string seen = "(the task never finished)";
    const SearchResult r = check_model([&seen, body] {
        spawn("t", [&seen, body] {
            seen.clear();
            body(seen);
        });
    });
    expect_verified(r);
    return seen;
}

void say(std::string& out, const char* what, long long value) {
    out += (out.empty() ? "" : " ") + std::string(what) + "=" + std::to_string(value);
}

// Message passing through a 64-bit flag: under lkmm the reader may see the flag without the
// data unless the set is a release and the read an acquire.
struct Passing {
    shared<int> data{"data"};
    atomic64_t flag{"flag"};
    bool flag_without_data = false;
};

Setup message_passing(bool ordered) {
    return [ordered] {
        auto& m = this_execution().make<Passing>();
        spawn("writer", [&m, ordered] {
            WRITE_ONCE(m.data, 1);
            if (ordered)
                atomic64_set_release(&m.flag, kBig);
            else
                atomic64_set(&m.flag, kBig);
        });
        spawn("reader", [&m, ordered] {
            const s64 flag = ordered ? atomic64_read_acquire(&m.flag) : atomic64_read(&m.flag);
            if (flag == kBig && READ_ONCE(m.data) == 0) m.flag_without_data = true;
        });
        final_check("the flag implies the data", [&m] { return !m.flag_without_data; });
    };
}

SearchResult check_lkmm(const Setup& setup) {
    CheckOptions options;
    options.memory_model = MemoryModel::lkmm;
    return check_model(setup, options);
}

} // namespace

TEST_GROUP(AtomicLong){};

TEST(AtomicLong, atomic64_operations_compute_on_64_bits) {
    const std::string seen = one_task([](std::string& out) {
        auto* v = &this_execution().make<atomic64_t>("v", kBig);
        say(out, "read", atomic64_read(v) - kBig);
        say(out, "add_return", atomic64_add_return(kBig, v) - 2 * kBig);
        say(out, "fetch_sub_relaxed", atomic64_fetch_sub_relaxed(kBig, v) - 2 * kBig);
        say(out, "inc_return_acquire", atomic64_inc_return_acquire(v) - kBig);
        say(out, "fetch_dec_release", atomic64_fetch_dec_release(v) - kBig);
        say(out, "xchg", atomic64_xchg(v, 3) - kBig);
        say(out, "cmpxchg miss", atomic64_cmpxchg(v, 4, 5));
        say(out, "cmpxchg hit", atomic64_cmpxchg(v, 3, kBig));
        s64 old = 7;
        say(out, "try_cmpxchg miss", atomic64_try_cmpxchg(v, &old, 1));
        say(out, "found", old - kBig);
        say(out, "try_cmpxchg hit", atomic64_try_cmpxchg(v, &old, 1));
        say(out, "dec_and_test", atomic64_dec_and_test(v));
        say(out, "inc_not_zero at 0", atomic64_inc_not_zero(v));
        say(out, "add_unless at 0", atomic64_add_unless(v, 2, 0));
        atomic64_add(kBig, v);
        atomic64_sub(1, v);
        atomic64_inc(v);
        atomic64_dec(v);
        say(out, "sub_and_test", atomic64_sub_and_test(kBig - 1, v));
        say(out, "inc_and_test", atomic64_inc_and_test(v));
        atomic64_set(v, -kBig);
        say(out, "peek", v->peek() + kBig);
    });
    CHECK_EQUAL("read=0 add_return=0 fetch_sub_relaxed=0 inc_return_acquire=1 "
                "fetch_dec_release=1 xchg=0 cmpxchg miss=3 cmpxchg hit=3 try_cmpxchg miss=0 "
                "found=0 try_cmpxchg hit=1 dec_and_test=1 inc_not_zero at 0=0 "
                "add_unless at 0=0 sub_and_test=1 inc_and_test=0 peek=0",
                seen);
}

TEST(AtomicLong, atomic_long_operations_compute_on_a_long) {
    const std::string seen = one_task([](std::string& out) {
        auto* v = &this_execution().make<atomic_long_t>("v");
        atomic_long_set(v, kBig);
        say(out, "add_return", atomic_long_add_return(1, v) - kBig);
        say(out, "fetch_add_acquire", atomic_long_fetch_add_acquire(1, v) - kBig);
        say(out, "dec_return_relaxed", atomic_long_dec_return_relaxed(v) - kBig);
        say(out, "xchg_release", atomic_long_xchg_release(v, 0) - kBig);
        say(out, "inc_not_zero at 0", atomic_long_inc_not_zero(v));
        say(out, "add_unless", atomic_long_add_unless(v, kBig, 1));
        say(out, "read_acquire", atomic_long_read_acquire(v) - kBig);
    });
    CHECK_EQUAL("add_return=1 fetch_add_acquire=1 dec_return_relaxed=1 xchg_release=1 "
                "inc_not_zero at 0=0 add_unless=1 read_acquire=0",
                seen);
}

TEST(AtomicLong, each_step_is_named_as_the_kernel_names_the_operation) {
    const Setup setup = [] {
        auto* v = &this_execution().make<atomic_long_t>("nr_pages", 1);
        auto* w = &this_execution().make<atomic64_t>("bytes");
        spawn("t", [v, w] {
            atomic_long_inc(v);
            (void)atomic64_add_return_relaxed(2, w);
            (void)atomic_long_read(v);
        });
    };
    const ReplayResult rr = replay(setup, Schedule{0, 0, 0}, CheckOptions{});
    CHECK_TEXT(rr.ok, rr.error.c_str());
    std::string steps;
    for (const TraceStep& s : rr.trace.steps)
        steps +=
            s.operation + "(" + s.object + ") -> " + std::to_string(s.value.value_or(-1)) + " ";
    CHECK_EQUAL("atomic_long_inc(nr_pages) -> 2 atomic64_add_return_relaxed(bytes) -> 2 "
                "atomic_long_read(nr_pages) -> 2 ",
                steps);
}

TEST(AtomicLong, under_lkmm_a_relaxed_atomic64_set_orders_nothing) {
    expect_verified(check_model(message_passing(false)), "sc");
    const SearchResult r = check_lkmm(message_passing(false));
    CHECK_EQUAL(ViolationKind::final_check, only_violation(r).kind);
}

TEST(AtomicLong, under_lkmm_atomic64_set_release_and_read_acquire_pass_the_data) {
    expect_verified(check_lkmm(message_passing(true)), "lkmm");
}
