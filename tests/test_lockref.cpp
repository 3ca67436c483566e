// struct lockref: the count under its spinlock as lib/lockref.c's lock path keeps it; a lookup
// with lockref_get_not_dead() never revives a dentry its final lockref_put_or_lock() marked
// dead, an unconditional lockref_get() does; lockref_put_return() is the lockless put, -1 while
// the lock is held; lockref_mark_dead() without the lock is the kernel's BUG. Under lkmm a
// reference taken shows what the task that made the count nonzero wrote before.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct dentry {
    struct lockref d_lockref {
        "d_lockref", 1
    };
    shared<int> d_name{"d_name"};
    shared<bool> freed{"freed"};
};

SearchResult check_lkmm(const Setup& setup) {
    CheckOptions options;
    options.memory_model = MemoryModel::lkmm;
    return check_model(setup, options);
}

// dput()'s last reference against a lookup that gets one as `get` does.
Setup dput_against_lookup(bool (*get)(struct lockref*)) {
    return [get] {
        dentry& d = model_state<dentry>();
        spawn("dput", [&d] {
            if (lockref_put_or_lock(&d.d_lockref)) return;
            lockref_mark_dead(&d.d_lockref);
            spin_unlock(&d.d_lockref.lock);
            WRITE_ONCE(d.freed, true);
        });
        spawn("lookup", [&d, get] {
            if (get(&d.d_lockref)) check(!READ_ONCE(d.freed), "a reference to a freed dentry");
        });
    };
}

} // namespace

TEST_GROUP(Lockref){};

TEST(Lockref, each_operation_counts_as_lib_lockref_does) {
    std::string seen;
    expect_verified(check_model([&seen] {
        dentry& d = model_state<dentry>();
        spawn("t", [&d, &seen] {
            struct lockref* l = &d.d_lockref;
            auto say = [&seen](const char* what, int v) {
                seen += std::string(seen.empty() ? "" : " ") + what + "=" + std::to_string(v);
            };
            lockref_get(l);
            say("get", l->count);
            say("get_not_zero", lockref_get_not_zero(l));
            say("put_or_lock at 3", lockref_put_or_lock(l));
            say("put_return", lockref_put_return(l));
            say("put_or_lock at 1", lockref_put_or_lock(l));
            say("held", spin_is_locked(&l->lock));
            say("put_return while held", lockref_put_return(l));
            lockref_mark_dead(l);
            spin_unlock(&l->lock);
            say("dead", __lockref_is_dead(l));
            say("get_not_dead", lockref_get_not_dead(l));
            say("get_not_zero", lockref_get_not_zero(l));
            say("put_return when dead", lockref_put_return(l));
        });
    }));
    CHECK_EQUAL("get=2 get_not_zero=1 put_or_lock at 3=1 put_return=1 put_or_lock at 1=0 held=1 "
                "put_return while held=-1 dead=1 get_not_dead=0 get_not_zero=0 "
                "put_return when dead=-1",
                seen);
}

TEST(Lockref, a_lookup_never_revives_a_dentry_its_last_put_marked_dead) {
    expect_verified_by_every_search(
        dput_against_lookup([](struct lockref* l) { return lockref_get_not_dead(l); }),
        "lockref_get_not_dead");
    expect_verified_by_every_search(
        dput_against_lookup([](struct lockref* l) { return lockref_get_not_zero(l); }),
        "lockref_get_not_zero");
    const SearchResult r = check_model(dput_against_lookup([](struct lockref* l) {
        lockref_get(l);
        return true;
    }));
    CHECK_EQUAL(ViolationKind::check_failed, only_violation(r).kind);
}

TEST(Lockref, marking_a_lockref_dead_without_its_lock_is_the_kernels_bug) {
    const SearchResult r = check_model([] {
        dentry& d = model_state<dentry>();
        spawn("t", [&d] { lockref_mark_dead(&d.d_lockref); });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::lock_misuse, v.kind);
    CHECK_EQUAL("kernel BUG: assert_spin_locked(d_lockref.lock) in lockref_mark_dead() by t: the "
                "lock is not held",
                v.message);
}

TEST(Lockref, under_lkmm_a_reference_got_shows_what_its_giver_wrote_before) {
    expect_verified(check_lkmm([] {
        auto& d = this_execution().make<dentry>();
        d.d_lockref.count = 0;
        spawn("instantiate", [&d] {
            d.d_name.write(1);
            lockref_get(&d.d_lockref);
        });
        spawn("lookup", [&d] {
            if (lockref_get_not_zero(&d.d_lockref))
                check(d.d_name.read() == 1, "the name written before the get");
        });
    }));
}
