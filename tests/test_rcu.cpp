// RCU (issue 40): read-side sections and grace periods (a grace period waits for exactly the
// readers inside a section when it starts), call_rcu()/kfree_rcu() callbacks in RCU_SOFTIRQ or
// a task of their own, rcu_barrier(), the pointer accessors, the rculist.h lists; and the
// findings: a free that did not wait for a reader (KASAN, naming the reader's section),
// synchronize_rcu() in a reader, sleeping in a reader, rcu_dereference() outside one.
#include <string>

#include "checker/bfs.hpp"
#include "checker/dfs.hpp"
#include "checker/lowest_first.hpp"
#include "checker/stateful_dfs.hpp"
#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

struct item {
    explicit item(const std::string& name, int value = 0) : data(name + ".data", value) {}
    shared<int> data;
    rcu_head rcu;
};

void free_item(rcu_head* head) {
    kfree(container_of(head, &item::rcu));
}

// gp points to an item filled at set-up; a reader looks it up and reads it, an updater
// unpublishes it and frees it after a grace period (or not).
struct table {
    item* old = kmalloc<item>("old", "old", 42);
    shared<item*> gp{"gp", old};
};

enum class Retire { synchronize_rcu, at_once, call_rcu, kfree_rcu };

void reader(table& t) {
    rcu_read_lock();
    if (item* it = rcu_dereference(t.gp)) check(READ_ONCE(it->data) == 42, "the item is filled");
    rcu_read_unlock();
}

void retire(item* it, Retire how) {
    switch (how) {
    case Retire::synchronize_rcu:
        synchronize_rcu();
        kfree(it);
        break;
    case Retire::at_once:
        kfree(it);
        break;
    case Retire::call_rcu:
        call_rcu(&it->rcu, &free_item);
        break;
    case Retire::kfree_rcu:
        kfree_rcu(it, &item::rcu);
        break;
    }
}

// `softirqs`: the model has softirq contexts, where callbacks then run.
Setup lookup_and_free(Retire how, int readers = 1, bool softirqs = false) {
    return [how, readers, softirqs] {
        if (softirqs) open_softirq(HI_SOFTIRQ, [] {});
        table& t = model_state<table>();
        for (int i = 0; i < readers; ++i)
            spawn("reader" + std::to_string(i), [&t] { reader(t); });
        spawn("updater", [&t, how] {
            item* it = rcu_dereference_protected(t.gp, true);
            RCU_INIT_POINTER(t.gp, nullptr);
            retire(it, how);
        });
    };
}

} // namespace

TEST_GROUP(Rcu){};

TEST(Rcu, a_free_after_synchronize_rcu_or_a_callback_waits_for_every_reader) {
    expect_verified_by_every_search(lookup_and_free(Retire::synchronize_rcu, 2),
                                    "synchronize_rcu, two readers");
    expect_verified_by_every_search(lookup_and_free(Retire::call_rcu), "call_rcu in a task");
    expect_verified_by_every_search(lookup_and_free(Retire::kfree_rcu), "kfree_rcu in a task");
    expect_verified_by_every_search(lookup_and_free(Retire::call_rcu, 1, true),
                                    "call_rcu in RCU_SOFTIRQ");
    expect_verified_by_every_search(lookup_and_free(Retire::kfree_rcu, 2, true),
                                    "kfree_rcu in RCU_SOFTIRQ");
}

// KASAN's report names the reader's section the free did not wait for, and cites its entry.
TEST(Rcu, a_kfree_without_a_grace_period_is_a_use_after_free_naming_the_readers_section) {
    expect_found_by_every_search(lookup_and_free(Retire::at_once), ViolationKind::use_after_free,
                                 "use-after-free of old", "kfree at once");
    const SearchResult r = check_model(lookup_and_free(Retire::at_once));
    const Violation& v = only_violation(r);
    CHECK_TEXT(contains(v.message, "BUG: KASAN: use-after-free in READ_ONCE(old.data) by reader0"),
               v.message.c_str());
    CHECK_TEXT(contains(v.message, "; old: freed by updater at step "), v.message.c_str());
    CHECK_TEXT(contains(v.message, "; reader0 is inside the RCU read-side critical section it "
                                   "entered at step 1 (test_rcu.cpp:"),
               v.message.c_str());
    CHECK_TEXT(contains(v.message, "which the free did not wait for"), v.message.c_str());
    CHECK_EQUAL(2u, v.cited.size());
    CHECK_EQUAL(1u, v.cited.front());
}

// Exactly the readers inside a section when it starts: one that enters after call_rcu() does
// not delay the callback (the reader waits inside its section for the callback to run); one
// inside when synchronize_rcu() starts is waited for.
TEST(Rcu, a_grace_period_waits_for_the_readers_inside_when_it_starts_and_no_later_ones) {
    struct later {
        shared<int> queued{"queued"};
        shared<int> ran{"ran"};
        rcu_head head;
    };
    expect_verified_by_every_search(
        [] {
            later& s = model_state<later>();
            static later* self;
            self = &s;
            spawn("updater", [&s] {
                call_rcu(&s.head, [](rcu_head*) { WRITE_ONCE(self->ran, 1); });
                WRITE_ONCE(s.queued, 1);
            });
            spawn("reader", [&s] {
                while (!READ_ONCE(s.queued))
                    cpu_relax();
                rcu_read_lock();
                while (!READ_ONCE(s.ran))
                    cpu_relax();
                rcu_read_unlock();
            });
        },
        "a reader that enters after call_rcu");
    struct earlier {
        shared<int> inside{"inside"};
        shared<int> left{"left"};
    };
    expect_verified_by_every_search(
        [] {
            earlier& s = model_state<earlier>();
            spawn("reader", [&s] {
                rcu_read_lock();
                WRITE_ONCE(s.inside, 1);
                rcu_read_lock(); // nested: the section ends at the outermost unlock
                rcu_read_unlock();
                WRITE_ONCE(s.left, 1);
                rcu_read_unlock();
            });
            spawn("updater", [&s] {
                while (!READ_ONCE(s.inside))
                    cpu_relax();
                synchronize_rcu();
                check(READ_ONCE(s.left) == 1, "the grace period waited for the reader");
            });
        },
        "a reader inside when synchronize_rcu starts");
}

TEST(Rcu, rcu_barrier_returns_once_every_callback_queued_before_it_ran) {
    struct cb {
        rcu_head head;
        shared<int> ran{"ran"};
    };
    expect_verified_by_every_search(
        [] {
            cb& s = model_state<cb>();
            static cb* self;
            self = &s;
            spawn("reader", [] {
                rcu_read_lock();
                rcu_read_unlock();
            });
            spawn("updater", [&s] {
                call_rcu(&s.head, [](rcu_head*) { WRITE_ONCE(self->ran, 1); });
                rcu_barrier();
                check(READ_ONCE(s.ran) == 1, "the callback ran before rcu_barrier returned");
            });
        },
        "rcu_barrier");
}

TEST(Rcu, synchronize_rcu_inside_a_read_side_section_is_a_deadlock) {
    const SearchResult r = check_model([] {
        spawn("t", [] {
            rcu_read_lock();
            synchronize_rcu();
            rcu_read_unlock();
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::deadlock, v.kind);
    CHECK_EQUAL("rcu-sync-in-reader", v.property);
    CHECK_TEXT(contains(v.message, "WARNING: suspicious RCU usage: Illegal synchronize_rcu() in "
                                   "RCU read-side critical section: t entered it at step 1"),
               v.message.c_str());
}

TEST(Rcu, sleeping_inside_rcu_read_lock_is_reported_as_might_sleep_reports_it) {
    struct s {
        mutex m{"m"};
    };
    const SearchResult r = check_model([] {
        s& st = model_state<s>();
        spawn("t", [&st] {
            rcu_read_lock();
            mutex_lock(&st.m);
            mutex_unlock(&st.m);
            rcu_read_unlock();
        });
    });
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::sleep_in_atomic, v.kind);
    CHECK_TEXT(contains(v.message, "BUG: sleeping function called from invalid context: t calls "
                                   "mutex_lock(m) while atomic (inside rcu_read_lock(), RCU nest "
                                   "depth 1)"),
               v.message.c_str());
}

TEST(Rcu, rcu_dereference_outside_a_reader_or_with_its_condition_false_is_suspicious) {
    struct s {
        shared<item*> gp{"gp"};
        spinlock_t lock{"lock"};
    };
    const auto found = [](void (*body)(s&)) {
        return check_model([body] {
            s& st = model_state<s>();
            spawn("t", [&st, body] { body(st); });
        });
    };
    const SearchResult outside = found([](s& st) { rcu_dereference(st.gp); });
    const Violation& v = only_violation(outside);
    CHECK_EQUAL("suspicious-rcu-usage", v.property);
    CHECK_TEXT(contains(v.message, "WARNING: suspicious RCU usage: suspicious "
                                   "rcu_dereference_check() usage: t calls rcu_dereference(gp) "
                                   "outside rcu_read_lock()"),
               v.message.c_str());
    const SearchResult unlocked =
        found([](s& st) { rcu_dereference_check(st.gp, lockdep_is_held(&st.lock)); });
    CHECK_EQUAL("suspicious-rcu-usage", only_violation(unlocked).property);
    const SearchResult protected_unlocked =
        found([](s& st) { rcu_dereference_protected(st.gp, lockdep_is_held(&st.lock)); });
    CHECK_TEXT(contains(only_violation(protected_unlocked).message,
                        "suspicious rcu_dereference_protected() usage: t calls "
                        "rcu_dereference_protected(gp) with its condition false"),
               only_violation(protected_unlocked).message.c_str());
    const SearchResult bh = found([](s& st) {
        rcu_read_lock();
        rcu_dereference_bh(st.gp);
        rcu_read_unlock();
    });
    CHECK_EQUAL("suspicious-rcu-usage", only_violation(bh).property);
    expect_verified(found([](s& st) {
        spin_lock(&st.lock);
        rcu_dereference_check(st.gp, lockdep_is_held(&st.lock));
        rcu_dereference_protected(st.gp, lockdep_is_held(&st.lock));
        spin_unlock(&st.lock);
        rcu_read_lock_bh();
        rcu_dereference_bh(st.gp);
        rcu_read_unlock_bh();
        rcu_read_lock_sched();
        rcu_dereference_sched(st.gp);
        rcu_read_unlock_sched();
        rcu_access_pointer(st.gp);
    }));
}

TEST(Rcu, a_task_that_exits_inside_a_read_side_section_or_unlocks_one_it_never_took_is_reported) {
    const SearchResult exited = check_model([] { spawn("t", [] { rcu_read_lock(); }); });
    CHECK_TEXT(
        contains(only_violation(exited).message, "t exited holding rcu_read_lock (rcu_read_lock)"),
        only_violation(exited).message.c_str());
    const SearchResult unbalanced = check_model([] {
        spawn("t", [] {
            rcu_read_lock();
            rcu_read_unlock_bh();
        });
    });
    CHECK_TEXT(contains(only_violation(unbalanced).message,
                        "bad unlock balance detected: t calls rcu_read_unlock_bh"),
               only_violation(unbalanced).message.c_str());
}

// rculist.h: an entry removed with list_del_rcu() and freed after a grace period is safe for a
// reader traversing the list; freed at once it is a use-after-free; removed with list_del() the
// reader on it follows LIST_POISON1.
namespace {

struct node {
    explicit node(const std::string& name) : list(name + ".list"), hash(name + ".hash") {}
    list_head list;
    hlist_node hash;
    shared<int> key{"key"};
};

struct rcu_list {
    list_head head{"head"};
    hlist_head bucket{"bucket"};
    spinlock_t lock{"lock"};
    node* a = kmalloc<node>("a", "a");
    node* b = kmalloc<node>("b", "b");
};

enum class Remove { list_del_rcu_synchronize, list_del_rcu_at_once, list_del };

Setup list_lookup(Remove how, bool hash) {
    return [how, hash] {
        rcu_list& l = model_state<rcu_list>();
        spawn("reader", [&l, hash] {
            int seen = 0;
            rcu_read_lock();
            if (hash) {
                node* pos;
                hlist_for_each_entry_rcu(pos, &l.bucket, hash) seen += READ_ONCE(pos->key);
            } else {
                node* pos;
                list_for_each_entry_rcu(pos, &l.head, list) seen += READ_ONCE(pos->key);
            }
            rcu_read_unlock();
            check(seen <= 3, "no entry is seen twice");
        });
        spawn("updater", [&l, how, hash] {
            WRITE_ONCE(l.a->key, 1);
            WRITE_ONCE(l.b->key, 2);
            spin_lock(&l.lock);
            if (hash) {
                hlist_add_head_rcu(&l.b->hash, &l.bucket);
                hlist_add_head_rcu(&l.a->hash, &l.bucket);
            } else {
                list_add_tail_rcu(&l.a->list, &l.head);
                list_add_tail_rcu(&l.b->list, &l.head);
            }
            spin_unlock(&l.lock);
            spin_lock(&l.lock);
            if (hash)
                hlist_del_rcu(&l.a->hash);
            else if (how == Remove::list_del)
                list_del(&l.a->list);
            else
                list_del_rcu(&l.a->list);
            spin_unlock(&l.lock);
            if (how == Remove::list_del_rcu_synchronize) synchronize_rcu();
            if (how != Remove::list_del) kfree(l.a);
        });
    };
}

} // namespace

TEST(Rcu, list_and_hlist_readers_traverse_safely_while_entries_are_added_and_removed) {
    expect_verified_by_every_search(list_lookup(Remove::list_del_rcu_synchronize, false),
                                    "list_del_rcu + synchronize_rcu");
    expect_verified_by_every_search(list_lookup(Remove::list_del_rcu_synchronize, true),
                                    "hlist_del_rcu + synchronize_rcu");
}

TEST(Rcu, an_entry_freed_without_a_grace_period_or_removed_with_list_del_breaks_a_reader) {
    expect_found_by_every_search(list_lookup(Remove::list_del_rcu_at_once, false),
                                 ViolationKind::use_after_free, "use-after-free of a", "list");
    expect_found_by_every_search(list_lookup(Remove::list_del_rcu_at_once, true),
                                 ViolationKind::use_after_free, "use-after-free of a", "hlist");
    const SearchResult r = check_model(list_lookup(Remove::list_del, false));
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::list_corruption, v.kind);
    CHECK_TEXT(contains(v.message, "list_for_each_entry_rcu read LIST_POISON1 from a.list->next: "
                                   "a.list was deleted with list_del()"),
               v.message.c_str());
}

TEST(Rcu, list_replace_rcu_and_hlist_del_init_rcu_leave_the_lists_as_rculist_h_does) {
    expect_verified_by_every_search(
        [] {
            rcu_list& l = model_state<rcu_list>();
            spawn("t", [&l] {
                list_add_rcu(&l.a->list, &l.head);
                list_replace_rcu(&l.a->list, &l.b->list);
                check(list_entries(l.head).size() == 1 && list_entries(l.head)[0] == &l.b->list,
                      "b replaced a");
                hlist_add_head_rcu(&l.a->hash, &l.bucket);
                check(!hlist_unhashed(&l.a->hash), "a is hashed");
                hlist_del_init_rcu(&l.a->hash);
                check(hlist_unhashed(&l.a->hash) && hlist_empty(&l.bucket), "a is unhashed");
                hlist_add_head_rcu(&l.a->hash, &l.bucket);
                check(!hlist_empty(&l.bucket), "a can be added again");
            });
        },
        "one task");
}

// Under lkmm: rcu_assign_pointer() and rcu_dereference() publish an initialised object (the
// reader's access through the pointer depends on its load by address); WRITE_ONCE() in place of
// rcu_assign_pointer() lets the reader see the object's field before its initialisation.
namespace {

enum class Publish { rcu_assign_pointer, write_once };

Setup publish(Publish how) {
    return [how] {
        struct gp_only {
            shared<item*> gp{"gp"};
        };
        gp_only& t = model_state<gp_only>();
        spawn("updater", [&t, how] {
            item* it = kmalloc<item>("it", "it");
            WRITE_ONCE(it->data, 42);
            if (how == Publish::rcu_assign_pointer)
                rcu_assign_pointer(t.gp, it);
            else
                WRITE_ONCE(t.gp, it);
        });
        spawn("reader", [&t] {
            rcu_read_lock();
            if (item* it = rcu_dereference(t.gp))
                check(READ_ONCE(it->data) == 42, "the reader sees the item initialised");
            rcu_read_unlock();
        });
    };
}

CheckOptions lkmm() {
    CheckOptions o;
    o.memory_model = MemoryModel::lkmm;
    return o;
}

} // namespace

TEST(Rcu,
     under_lkmm_a_pointer_published_without_rcu_assign_pointer_shows_the_object_uninitialised) {
    expect_verified(check_model(publish(Publish::rcu_assign_pointer), lkmm()));
    const SearchResult r = check_model(publish(Publish::write_once), lkmm());
    CHECK_EQUAL("the reader sees the item initialised", only_violation(r).property);
    expect_verified(check_model(publish(Publish::write_once)));
}

// A reader that entered after the grace period began may load the pointer before the
// updater's RCU_INIT_POINTER() reached it: the rcu axiom lets it only where its section ends
// before the kfree() (which it then does not see); the free without a grace period is found.
// A softirq that runs the callback on the reader's CPU inside its section, after it loaded the
// old pointer, leaves the reader no next step LKMM allows: that execution is none LKMM has
// (unsettled), not a use-after-free.
TEST(Rcu, under_lkmm_the_lookup_and_free_verifies_with_a_grace_period) {
    expect_verified(check_model(lookup_and_free(Retire::synchronize_rcu, 2), lkmm()), "sync");
    expect_verified(check_model(lookup_and_free(Retire::kfree_rcu), lkmm()), "kfree_rcu");
    for (const Search search : {Search::dfs, Search::dpor, Search::optimal_dpor}) {
        const std::string what = std::string("in RCU_SOFTIRQ, ") + search_name(search);
        const SearchResult softirq =
            check_model(lookup_and_free(Retire::kfree_rcu, 1, true), search, lkmm());
        expect_verified(softirq, "kfree_rcu " + what);
        CHECK_TEXT(softirq.stats.unsettled > 0, what.c_str());
        expect_verified(check_model(lookup_and_free(Retire::call_rcu, 2, true), search, lkmm()),
                        "call_rcu, two readers, " + what);
    }
    const SearchResult at_once = check_model(lookup_and_free(Retire::at_once), lkmm());
    CHECK_EQUAL("use-after-free of old", only_violation(at_once).property);
}

// --state-cache and bfs tell RCU states apart (the readers each grace period and callback
// still waits for, the tasks' nesting): they reach what DFS reaches.
namespace {

// The RCU models the searches are compared on: two readers beside each way to retire, and a
// list removal.
std::vector<std::pair<const char*, Setup>> rcu_models() {
    return {
        {"synchronize_rcu", lookup_and_free(Retire::synchronize_rcu, 2)},
        {"kfree at once", lookup_and_free(Retire::at_once, 2)},
        {"call_rcu in a task", lookup_and_free(Retire::call_rcu, 2)},
        {"kfree_rcu in RCU_SOFTIRQ", lookup_and_free(Retire::kfree_rcu, 2, true)},
        {"list_del_rcu", list_lookup(Remove::list_del_rcu_synchronize, false)},
    };
}

} // namespace

TEST(Rcu, stateful_searches_reach_what_dfs_reaches_on_rcu_models) {
    for (const auto& [what, setup] : rcu_models()) {
        Dfs dfs;
        const Reached all = reach(setup, dfs, 200);
        StatefulDfs cached;
        expect_reached_what_dfs_reached(reach(setup, cached, 200), all,
                                        std::string(what) + " (stateful dfs)");
        Bfs bfs;
        expect_reached_what_dfs_reached(reach(setup, bfs, 200), all, std::string(what) + " (bfs)");
    }
}

// Readers do not exclude each other: two readers' rcu_read_lock() and rcu_read_unlock() commute
// (only a grace period's start and end read which tasks are inside a section), so DPOR runs one
// execution of readers alone, and as many of readers beside synchronize_rcu() as there are
// places of its start among their sections.
TEST(Rcu, two_readers_sections_do_not_order_each_other_under_dpor) {
    constexpr std::uint64_t kReadersBesideSynchronizeRcu = 177;
    const auto readers = [](bool updater) {
        return [updater] {
            for (const char* name : {"reader0", "reader1"})
                spawn(name, [] {
                    rcu_read_lock();
                    rcu_read_unlock();
                    rcu_read_lock_bh();
                    rcu_read_unlock_bh();
                });
            if (updater) spawn("updater", [] { synchronize_rcu(); });
        };
    };
    for (Search search : {Search::dpor, Search::optimal_dpor}) {
        const std::string what = search_name(search);
        CHECK_EQUAL_TEXT(std::uint64_t{1},
                         reach(readers(false), *make_search(search, 200), 200).executions,
                         what.c_str());
        CHECK_EQUAL_TEXT(kReadersBesideSynchronizeRcu,
                         reach(readers(true), *make_search(search, 200), 200).executions,
                         what.c_str());
    }
}

// Readers do not order each other for the race detector either: two readers' unmarked
// accesses of one variable inside their sections race, even in the execution where one
// section ends before the other begins (as two lock holders' accesses would not).
TEST(Rcu, two_readers_plain_accesses_race_though_both_are_inside_sections) {
    const Setup readers = [] {
        shared<int>& hits = model_state<shared<int>>("hits");
        spawn("reader0", [&hits] {
            rcu_read_lock();
            hits.write(1);
            rcu_read_unlock();
        });
        spawn("reader1", [&hits] {
            rcu_read_lock();
            (void)hits.read();
            rcu_read_unlock();
        });
    };
    expect_found_by_every_search(readers, ViolationKind::data_race, "data race on hits",
                                 "two readers");
    LowestFirst one_after_the_other;
    const Reached reached = reach(readers, one_after_the_other, 200);
    CHECK_EQUAL(1u, reached.violations.count({ViolationKind::data_race, "data race on hits"}));
}

// DPOR and optimal DPOR reach every final state and violation DFS reaches on the RCU models
// above, under sc and lkmm: two readers' sections commute, never a section and a grace period.
TEST(Rcu, dpor_reaches_what_dfs_reaches_on_rcu_models_under_sc_and_lkmm) {
    std::vector<std::pair<const char*, Setup>> cases = rcu_models();
    cases.emplace_back("list_del_rcu at once", list_lookup(Remove::list_del_rcu_at_once, true));
    for (MemoryModel mm : {MemoryModel::sc, MemoryModel::lkmm})
        for (const auto& [what, setup] : cases)
            expect_dpor_reaches_what_dfs_does(setup, what, 200, mm);
}
