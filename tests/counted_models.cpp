// The hand-counted models: independent and dependent writes, reads, critical sections, and the
// two ways properties make steps dependent.
#include "counted_models.hpp"

#include "model/kernel.hpp"

namespace lockcheck::detail::testing {

namespace {

struct Vars {
    shared<int> x{"x"};
    shared<int> y{"y"};
    struct mutex m {
        "m"
    };
    int plain = 0; // plain_state()
};

// Two tasks, each one critical section under m around a write; `outside` first writes y
// outside it in task a.
Setup critical_sections(bool outside) {
    return [outside] {
        auto& v = this_execution().make<Vars>();
        spawn("a", [&v, outside] {
            if (outside) WRITE_ONCE(v.y, 1); // independent of everything b does
            mutex_lock(&v.m);
            WRITE_ONCE(v.x, 1);
            mutex_unlock(&v.m);
        });
        spawn("b", [&v] {
            mutex_lock(&v.m);
            WRITE_ONCE(v.x, 2);
            mutex_unlock(&v.m);
        });
    };
}

// Task a takes and releases m, task b writes x, which an invariant reads; `plain` declares a
// plain_state() field besides.
Setup lock_beside_watched_write(bool plain) {
    return [plain] {
        auto& v = this_execution().make<Vars>();
        if (plain) plain_state(v.plain);
        spawn("a", [&v] {
            mutex_lock(&v.m);
            mutex_unlock(&v.m);
        });
        spawn("b", [&v] { WRITE_ONCE(v.x, 1); });
        invariant("x is small", [&v] { return v.x.peek() < 2; });
    };
}

} // namespace

const std::vector<CountedModel>& counted_models() {
    static const std::vector<CountedModel> models = {
        {"writes to different variables are one trace (DFS runs C(4, 2) = 6 orders)", 1,
         [] {
             auto& v = this_execution().make<Vars>();
             spawn("a", [&v] {
                 WRITE_ONCE(v.x, 1);
                 WRITE_ONCE(v.x, 2);
             });
             spawn("b", [&v] {
                 WRITE_ONCE(v.y, 1);
                 WRITE_ONCE(v.y, 2);
             });
         }},
        {"reads of one variable commute", 1,
         [] {
             auto& v = this_execution().make<Vars>();
             for (const char* name : {"a", "b", "c"})
                 spawn(name, [&v] { (void)READ_ONCE(v.x); });
         }},
        {"two writes each to one variable: every order, C(4, 2)", 6,
         [] {
             auto& v = this_execution().make<Vars>();
             spawn("a", [&v] {
                 WRITE_ONCE(v.x, 1);
                 WRITE_ONCE(v.x, 2);
             });
             spawn("b", [&v] {
                 WRITE_ONCE(v.x, 3);
                 WRITE_ONCE(v.x, 4);
             });
         }},
        {"a write and a read, in both orders", 2,
         [] {
             auto& v = this_execution().make<Vars>();
             spawn("writer", [&v] { WRITE_ONCE(v.x, 1); });
             spawn("reader", [&v] { (void)READ_ONCE(v.x); });
         }},
        {"POPL'14's readers(3): each reader before or after the write", 8,
         [] {
             auto& v = this_execution().make<Vars>();
             spawn("writer", [&v] { WRITE_ONCE(v.x, 42); });
             for (const char* name : {"r1", "r2", "r3"})
                 spawn(name, [&v] { (void)READ_ONCE(v.x); });
         }},
        {"two critical sections under one mutex, in both lock orders", 2, critical_sections(false)},
        {"two critical sections, whatever runs outside them", 2, critical_sections(true)},
        {"an invariant orders writes to different variables", 2,
         [] {
             auto& v = this_execution().make<Vars>();
             spawn("a", [&v] { WRITE_ONCE(v.x, 1); });
             spawn("b", [&v] { WRITE_ONCE(v.y, 1); });
             invariant("x and y are small", [&v] { return v.x.peek() + v.y.peek() < 3; });
         }},
        {"an invariant leaves out lock operations, which it cannot read", 1,
         lock_beside_watched_write(false)},
        {"with plain_state(), which code after any step may change, it orders them too", 3,
         lock_beside_watched_write(true)},
        {"a step that checks depends on every other step", 2,
         [] {
             // check() peeks at y, so the write before it is ordered against b's write to y.
             auto& v = this_execution().make<Vars>();
             spawn("a", [&v] {
                 WRITE_ONCE(v.x, 1);
                 check(v.y.peek() < 2, "y stays small");
             });
             spawn("b", [&v] { WRITE_ONCE(v.y, 1); });
         }},
    };
    return models;
}

} // namespace lockcheck::detail::testing
