// list_head: each operation leaves the entries in the order include/linux/list.h does, a
// double add or double delete is reported as CONFIG_DEBUG_LIST reports it, and since every
// list operation is one atomic step, only races between separate steps can corrupt a list.
#include <set>
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct Lists {
    list_head head{"head"};
    list_head other{"other"};
    list_head a{"a"};
    list_head b{"b"};
    list_head c{"c"};
    list_head d{"d"};
};

// "a, b": the entries of `head` in list order.
std::string order(const list_head& head) {
    std::string out;
    for (const list_head* e : list_entries(head))
        out += (out.empty() ? "" : ", ") + e->name();
    return out;
}

// Runs `ops` as the one task of a model and returns what `look` said when it ended. A test
// cannot assert inside task code, so the task only records.
template <class Ops, class Look> std::string after_one_task(Ops ops, Look look) {
    std::string seen = "(the task never finished)";
    const SearchResult r = check_model([&seen, ops, look] {
        auto& l = this_execution().make<Lists>();
        spawn("t", [&l, &seen, ops, look] {
            ops(l);
            seen = look(l);
        });
    });
    expect_verified(r);
    CHECK_EQUAL(1ul, r.stats.executions);
    return seen;
}

} // namespace

TEST_GROUP(ListHead){};

TEST(ListHead, list_add_puts_the_entry_first_and_list_add_tail_puts_it_last) {
    const std::string seen = after_one_task(
        [](Lists& l) {
            list_add(&l.a, &l.head);
            list_add(&l.b, &l.head);
            list_add_tail(&l.c, &l.head);
        },
        [](Lists& l) { return order(l.head); });
    CHECK_EQUAL("b, a, c", seen);
}

TEST(ListHead, list_del_unlinks_the_entry_and_poisons_it) {
    const std::string seen = after_one_task(
        [](Lists& l) {
            list_add_tail(&l.a, &l.head);
            list_add_tail(&l.b, &l.head);
            list_add_tail(&l.c, &l.head);
            list_del(&l.b);
        },
        [](Lists& l) {
            std::string state;
            l.b.describe(state);
            return order(l.head) + " / b " + state;
        });
    CHECK_EQUAL("a, c / b deleted", seen);
}

TEST(ListHead, list_del_init_leaves_an_empty_entry_that_can_be_added_again) {
    const std::string seen = after_one_task(
        [](Lists& l) {
            list_add_tail(&l.a, &l.head);
            list_add_tail(&l.b, &l.head);
            list_del_init(&l.a);
            const bool empty = list_empty(&l.a);
            list_add_tail(&l.a, &l.other);
            check(empty, "list_del_init leaves the entry empty");
        },
        [](Lists& l) { return order(l.head) + " / " + order(l.other); });
    CHECK_EQUAL("b / a", seen);
}

TEST(ListHead, list_del_init_twice_is_allowed_because_the_entry_points_to_itself) {
    const std::string seen = after_one_task(
        [](Lists& l) {
            list_add_tail(&l.a, &l.head);
            list_del_init(&l.a);
            list_del_init(&l.a);
        },
        [](Lists& l) { return "[" + order(l.head) + "]"; });
    CHECK_EQUAL("[]", seen);
}

TEST(ListHead, list_move_tail_takes_the_entry_off_its_list_and_appends_it_to_another) {
    const std::string seen = after_one_task(
        [](Lists& l) {
            list_add_tail(&l.a, &l.head);
            list_add_tail(&l.b, &l.head);
            list_add_tail(&l.c, &l.other);
            list_move_tail(&l.a, &l.other);
            list_move_tail(&l.b, &l.head); // within its own list: to the back
        },
        [](Lists& l) { return order(l.head) + " / " + order(l.other); });
    CHECK_EQUAL("b / c, a", seen);
}

TEST(ListHead, list_splice_init_puts_the_entries_in_front_in_order_and_empties_the_source) {
    const std::string seen = after_one_task(
        [](Lists& l) {
            list_add_tail(&l.a, &l.other);
            list_add_tail(&l.b, &l.other);
            list_add_tail(&l.c, &l.head);
            list_splice_init(&l.other, &l.head);
        },
        [](Lists& l) { return order(l.head) + " / [" + order(l.other) + "]"; });
    CHECK_EQUAL("a, b, c / []", seen);
}

TEST(ListHead, list_splice_tail_init_puts_the_entries_behind_in_order_and_empties_the_source) {
    const std::string seen = after_one_task(
        [](Lists& l) {
            list_add_tail(&l.a, &l.other);
            list_add_tail(&l.b, &l.other);
            list_add_tail(&l.c, &l.head);
            list_splice_tail_init(&l.other, &l.head);
            // The emptied source is a usable list head again.
            list_add_tail(&l.d, &l.other);
        },
        [](Lists& l) { return order(l.head) + " / " + order(l.other); });
    CHECK_EQUAL("c, a, b / d", seen);
}

TEST(ListHead, splicing_an_empty_list_changes_nothing) {
    const std::string seen = after_one_task(
        [](Lists& l) {
            list_add_tail(&l.a, &l.head);
            list_splice_init(&l.other, &l.head);
            list_splice_tail_init(&l.other, &l.head);
        },
        [](Lists& l) { return order(l.head) + " / [" + order(l.other) + "]"; });
    CHECK_EQUAL("a / []", seen);
}

TEST(ListHead, list_empty_is_a_read_so_two_tasks_polling_an_empty_list_are_a_hang) {
    // If list_empty() counted as a write, each poller's test would be progress for the other
    // and the search would loop until the depth bound instead of reporting the hang.
    const SearchResult r = check_model([] {
        auto& l = this_execution().make<Lists>();
        for (const char* name : {"p0", "p1"})
            spawn(name, [&l] {
                while (list_empty(&l.head))
                    cpu_relax();
            });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::hang, v.kind);
    CHECK_EQUAL(0ul, r.stats.cut);
}

TEST(ListHead, polling_list_empty_until_another_task_adds_is_verified) {
    std::set<bool> seen_empty_first;
    const SearchResult r = check_model([&seen_empty_first] {
        auto& l = this_execution().make<Lists>();
        spawn("poller", [&l, &seen_empty_first] {
            bool first = true;
            while (list_empty(&l.head)) {
                if (first) seen_empty_first.insert(true);
                first = false;
                cpu_relax();
            }
            if (first) seen_empty_first.insert(false);
        });
        spawn("adder", [&l] { list_add(&l.a, &l.head); });
    });
    expect_verified(r);
    CHECK_EQUAL(0ul, r.stats.cut);
    // The poller's first test before or after the add: both outcomes, once each.
    CHECK_EQUAL(2ul, r.stats.executions);
    CHECK_EQUAL(2ul, seen_empty_first.size());
}

TEST(ListHead, adding_an_entry_twice_is_list_corruption) {
    const SearchResult r = check_model([] {
        auto& l = this_execution().make<Lists>();
        spawn("t", [&l] {
            list_add(&l.a, &l.head);
            list_add(&l.a, &l.head);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::list_corruption, v.kind);
    CHECK_EQUAL("list-corruption", v.property);
    CHECK_EQUAL("list_add double add: a is already on a list", v.message);
    CHECK_EQUAL(2u, v.step);
}

TEST(ListHead, adding_an_entry_that_is_on_another_list_is_list_corruption) {
    const SearchResult r = check_model([] {
        auto& l = this_execution().make<Lists>();
        spawn("t", [&l] {
            list_add_tail(&l.a, &l.head);
            list_add_tail(&l.a, &l.other);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::list_corruption, v.kind);
    CHECK_TEXT(contains(v.message, "a is already on a list"), v.message.c_str());
}

TEST(ListHead, deleting_an_entry_twice_is_list_corruption) {
    const SearchResult r = check_model([] {
        auto& l = this_execution().make<Lists>();
        spawn("t", [&l] {
            list_add(&l.a, &l.head);
            list_del(&l.a);
            list_del(&l.a);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::list_corruption, v.kind);
    CHECK_EQUAL("list-corruption", v.property);
    CHECK_EQUAL("list_del corruption: a was already deleted", v.message);
    CHECK_EQUAL(3u, v.step);
}

TEST(ListHead, list_del_init_after_list_del_is_list_corruption) {
    const SearchResult r = check_model([] {
        auto& l = this_execution().make<Lists>();
        spawn("t", [&l] {
            list_add(&l.a, &l.head);
            list_del(&l.a);
            list_del_init(&l.a);
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::list_corruption, v.kind);
    CHECK_EQUAL("list_del_init corruption: a was already deleted", v.message);
}

TEST(ListHead, two_tasks_deleting_the_same_entry_without_a_lock_is_list_corruption) {
    const SearchResult r = check_model([] {
        struct Added {
            Lists l;
            struct completion added {
                "added"
            };
        };
        auto& s = this_execution().make<Added>();
        spawn("adder", [&s] {
            list_add(&s.l.a, &s.l.head);
            complete_all(&s.added);
        });
        for (const char* name : {"t0", "t1"})
            spawn(name, [&s] {
                wait_for_completion(&s.added);
                list_del(&s.l.a);
            });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::list_corruption, v.kind);
    CHECK_EQUAL("list_del corruption: a was already deleted", v.message);
}

TEST(ListHead,
     unlocked_list_add_tail_from_two_tasks_is_no_corruption_since_each_list_op_is_one_atomic_step) {
    // The kernel needs a lock here, but this model is sequentially consistent and runs a
    // list operation as one indivisible step: the two adds only race for the order. What
    // the model can catch is a race between separate steps (see the next test).
    std::set<std::string> orders;
    const SearchResult r = check_model([&orders] {
        auto& l = this_execution().make<Lists>();
        spawn("t0", [&l] { list_add_tail(&l.a, &l.head); });
        spawn("t1", [&l] { list_add_tail(&l.b, &l.head); });
        final_check("both entries are on the list", [&l, &orders] {
            orders.insert(order(l.head));
            return list_entries(l.head).size() == 2;
        });
    });
    expect_verified(r);
    CHECK_EQUAL(2ul, r.stats.executions);
    CHECK_EQUAL(2ul, orders.size());
    CHECK(orders.count("a, b") == 1);
    CHECK(orders.count("b, a") == 1);
}

TEST(ListHead, an_unlocked_list_empty_then_list_add_race_on_one_entry_is_a_double_add) {
    const SearchResult r = check_model([] {
        auto& l = this_execution().make<Lists>();
        for (const char* name : {"t0", "t1"})
            spawn(name, [&l] {
                if (list_empty(&l.a)) list_add_tail(&l.a, &l.head);
            });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::list_corruption, v.kind);
    CHECK_EQUAL("list_add double add: a is already on a list", v.message);
}

TEST(ListHead, the_same_race_under_a_spinlock_is_verified) {
    const SearchResult r = check_model([] {
        struct Locked {
            spinlock_t lock{"lock"};
            Lists l;
        };
        auto& s = this_execution().make<Locked>();
        for (const char* name : {"t0", "t1"})
            spawn(name, [&s] {
                spin_lock(&s.lock);
                if (list_empty(&s.l.a)) list_add_tail(&s.l.a, &s.l.head);
                spin_unlock(&s.lock);
            });
        final_check("a is on the list once", [&s] { return order(s.l.head) == "a"; });
    });
    expect_verified(r);
}

namespace {

struct entry {
    explicit entry(const std::string& name) : link(name) {}
    list_head link;
};

struct Entries {
    list_head head{"head"};
    entry a{"a"};
    entry b{"b"};
    entry c{"c"};
};

// Runs `body` as the one task of a model with a, b and c on head, in that order; returns what
// it recorded.
template <class Body> std::string with_a_b_c(Body body) {
    std::string seen;
    const SearchResult r = check_model([&seen, body] {
        auto& l = this_execution().make<Entries>();
        spawn("t", [&l, &seen, body] {
            for (entry* e : {&l.a, &l.b, &l.c})
                list_add_tail(&e->link, &l.head);
            body(l, seen);
        });
    });
    expect_verified(r);
    return seen;
}

} // namespace

TEST(ListHead, list_first_entry_list_next_entry_and_list_last_entry_read_the_list_in_order) {
    const std::string seen = with_a_b_c([](Entries& l, std::string& seen) {
        entry* first = list_first_entry(&l.head, entry, link);
        entry* second = list_next_entry(first, link);
        entry* last = list_last_entry(&l.head, entry, link);
        seen = first->link.name() + ", " + second->link.name() + " ... " + last->link.name();
    });
    CHECK_EQUAL("a, b ... c", seen);
}

TEST(ListHead, list_for_each_entry_safe_walks_on_past_the_entry_its_body_deletes) {
    const std::string seen = with_a_b_c([](Entries& l, std::string& seen) {
        entry* pos = nullptr;
        entry* n = nullptr;
        list_for_each_entry_safe(pos, n, &l.head, link) {
            seen += pos->link.name() + ";";
            list_del_init(&pos->link);
        }
        seen += list_empty(&l.head) ? " empty" : " not empty";
    });
    CHECK_EQUAL("a;b;c; empty", seen);
}

TEST(ListHead, list_for_each_entry_walks_every_entry_in_order) {
    const std::string seen = with_a_b_c([](Entries& l, std::string& seen) {
        entry* pos = nullptr;
        list_for_each_entry(pos, &l.head, link) seen += pos->link.name() + ";";
        list_del_init(&l.b.link);
        list_for_each_entry(pos, &l.head, link) seen += pos->link.name() + ";";
    });
    CHECK_EQUAL("a;b;c;a;c;", seen);
}

TEST(ListHead, list_first_entry_or_null_of_an_empty_list_is_null_and_the_walk_of_one_is_none) {
    std::string seen = "(not run)";
    const SearchResult r = check_model([&seen] {
        auto& l = this_execution().make<Entries>();
        spawn("t", [&l, &seen] {
            entry* pos = list_first_entry_or_null(&l.head, entry, link);
            seen = pos ? "an entry" : "null";
            list_for_each_entry(pos, &l.head, link) seen += " and a walk";
        });
    });
    expect_verified(r);
    CHECK_EQUAL("null", seen);
}

TEST(ListHead, list_first_entry_of_an_empty_list_is_a_finding) {
    const SearchResult r = check_model([] {
        auto& l = this_execution().make<Entries>();
        spawn("t", [&l] { list_first_entry(&l.head, entry, link); });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::list_corruption, v.kind);
    CHECK_EQUAL("list_first_entry() of the empty list head: the kernel goes on with the head as "
                "an entry",
                v.message);
    CHECK_EQUAL(1u, v.step);
    const SearchResult last = check_model([] {
        auto& l = this_execution().make<Entries>();
        spawn("t", [&l] { list_last_entry(&l.head, entry, link); });
    });
    CHECK_TEXT(contains(only_violation(last).message, "list_last_entry() of the empty list head"),
               only_violation(last).message.c_str());
}
