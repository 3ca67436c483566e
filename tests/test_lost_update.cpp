// The lost update, the first race every checker must find: two tasks increment a shared
// counter by a read and a write. Unprotected, one increment can be lost (a final check
// fails); under a mutex, or as one atomic_inc, it cannot. The unprotected accesses are marked
// (READ_ONCE, WRITE_ONCE): plain, they would be a data race first (test_data_race.cpp).
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

const std::string kBothLanded = "both increments landed";

enum class Increment { unlocked, under_mutex, atomic };

struct Counter {
    shared<int> count{"count"};
    atomic_t atomic_count{"atomic_count"};
    mutex lock{"lock"};
};

void increment(Counter& c, Increment how) {
    if (how == Increment::atomic) {
        atomic_inc(&c.atomic_count);
        return;
    }
    if (how == Increment::unlocked) {
        const int v = READ_ONCE(c.count);
        WRITE_ONCE(c.count, v + 1);
        return;
    }
    mutex_lock(&c.lock);
    const int v = c.count.read();
    c.count.write(v + 1);
    mutex_unlock(&c.lock);
}

Setup two_increments(Increment how) {
    return [how] {
        auto& c = this_execution().make<Counter>();
        spawn("inc0", [&c, how] { increment(c, how); });
        spawn("inc1", [&c, how] { increment(c, how); });
        final_check(kBothLanded, [&c] { return c.count.peek() + c.atomic_count.peek() == 2; });
    };
}

} // namespace

TEST_GROUP(LostUpdate){};

TEST(LostUpdate, unprotected_read_then_write_loses_an_update) {
    const SearchResult r = check_model(two_increments(Increment::unlocked));
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::final_check, v.kind);
    CHECK_EQUAL(kBothLanded, v.property);
    CHECK_EQUAL("final check failed: " + kBothLanded, v.message);
}

TEST(LostUpdate, mutex_protected_increment_is_verified) {
    const SearchResult r = check_model(two_increments(Increment::under_mutex));
    expect_verified(r);
    CHECK_EQUAL(0ul, r.stats.cut);
    // The critical sections run whole, in either order.
    CHECK_EQUAL(2ul, r.stats.executions);
}

TEST(LostUpdate, atomic_inc_never_loses_an_update) {
    const SearchResult r = check_model(two_increments(Increment::atomic));
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
}
