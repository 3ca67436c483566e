// struct list_head: the kernel's intrusive doubly linked list. A head and an entry are the
// same type, each a named shared object; every list operation is one scheduling point on the
// list it changes, checked as CONFIG_DEBUG_LIST checks it (an entry added twice, an entry
// deleted twice). An operation on one list_head writes its neighbours, and entries move
// between lists, so every list operation conflicts with every other (one conflict id).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "container_of.hpp"
#include "task.hpp"

namespace lockcheck::detail {

struct list_head final : Object {
    // An empty list (a head) or an unlinked entry, as INIT_LIST_HEAD leaves it.
    explicit list_head(std::string name);
    void describe(std::string& out) const override;
    // In order, or, where a stateful search keeps lists as the sets of their entries (no step
    // has read a list's order: list_order_read()), by the list the object is on.
    void fingerprint(StateHasher& h) const override;

    // The links are the checker's: model code reads a list through the operations below
    // (list_first_entry(), list_for_each_entry(), ...), each of which tells a stateful search
    // that the order of the list's entries matters to the model.
    list_head* next_ = this;
    list_head* prev_ = this;
    bool poisoned = false;  // list_del() left it pointing nowhere (LIST_POISON)
    bool next_kept = false; // ... or list_del_rcu(), which poisons prev only: readers go on
};

void INIT_LIST_HEAD(list_head* list, std::source_location loc = std::source_location::current());
void list_add(list_head* entry, list_head* head,
              std::source_location loc = std::source_location::current());
void list_add_tail(list_head* entry, list_head* head,
                   std::source_location loc = std::source_location::current());
void list_del(list_head* entry, std::source_location loc = std::source_location::current());
void list_del_init(list_head* entry, std::source_location loc = std::source_location::current());
void list_move_tail(list_head* entry, list_head* head,
                    std::source_location loc = std::source_location::current());
bool list_empty(const list_head* head, std::source_location loc = std::source_location::current());
// Moves every entry of `list` to the front / the back of `head`, leaving `list` empty.
void list_splice_init(list_head* list, list_head* head,
                      std::source_location loc = std::source_location::current());
void list_splice_tail_init(list_head* list, list_head* head,
                           std::source_location loc = std::source_location::current());

// list_first_entry(ptr, type, member), list_first_entry_or_null(), list_last_entry() and
// list_next_entry(pos, member): plain reads of head->next (head->prev) and pos->member.next, as
// list.h makes them, each a scheduling point on the list; the entry read joins the task's
// history. list_first_entry() and list_last_entry() of an empty list are a finding (the kernel
// goes on with the head as an entry); _or_null() returns null. list_for_each_entry(pos, head,
// member) and list_for_each_entry_safe(pos, n, head, member), which reads the next entry before
// the body may delete pos, walk a list with them.
enum class ListEnd : std::uint8_t {
    first,         // list_first_entry()
    first_or_null, // list_first_entry_or_null()
    walk,          // a list_for_each_entry(): the head itself when the list is empty, which
                   // ends the walk
    last,          // list_last_entry()
};
list_head* list_end(const list_head* head, ListEnd which, std::source_location loc);
list_head* list_next(const list_head* pos, std::source_location loc);
template <class T>
T* end_entry(const list_head* head, list_head T::*member, ListEnd which = ListEnd::first,
             std::source_location loc = std::source_location::current()) {
    list_head* end = list_end(head, which, loc);
    return end ? container_of(end, member) : nullptr;
}
template <class T>
T* next_entry(T* pos, list_head T::*member,
              std::source_location loc = std::source_location::current()) {
    return container_of(list_next(&(pos->*member), loc), member);
}
#define list_first_entry(ptr, type, member) ::lockcheck::detail::end_entry(ptr, &type::member)
#define list_first_entry_or_null(ptr, type, member)                                                \
    ::lockcheck::detail::end_entry(ptr, &type::member, ::lockcheck::detail::ListEnd::first_or_null)
#define list_last_entry(ptr, type, member)                                                         \
    ::lockcheck::detail::end_entry(ptr, &type::member, ::lockcheck::detail::ListEnd::last)
#define list_next_entry(pos, member)                                                               \
    ::lockcheck::detail::next_entry(pos, &std::remove_reference_t<decltype(*pos)>::member)
#define LOCKCHECK_LIST_WALK(pos, head, member)                                                     \
    ::lockcheck::detail::end_entry(head, &std::remove_reference_t<decltype(*pos)>::member,         \
                                   ::lockcheck::detail::ListEnd::walk)
#define list_for_each_entry(pos, head, member)                                                     \
    for (pos = LOCKCHECK_LIST_WALK(pos, head, member); &pos->member != (head);                     \
         pos = list_next_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member)                                             \
    for (pos = LOCKCHECK_LIST_WALK(pos, head, member), n = list_next_entry(pos, member);           \
         &pos->member != (head); pos = n, n = list_next_entry(n, member))

// For properties (invariants, final checks), without a scheduling point. list_entries(): the
// entries of a list in order, which tells a stateful search that their order matters;
// list_contains() and list_count_nodes(): what is on a list, whatever its order.
std::vector<const list_head*> list_entries(const list_head& head);
bool list_contains(const list_head& head, const list_head* entry);
std::size_t list_count_nodes(const list_head& head);

// include/linux/rculist.h: updaters (serialized by their own lock) publish an entry with
// rcu_assign_pointer() of its predecessor's next, so that readers inside rcu_read_lock()
// traverse the list while it changes. list_del_rcu() leaves the entry's next for readers that
// are on it and poisons prev only; the entry may be freed only after a grace period.
void list_add_rcu(list_head* entry, list_head* head,
                  std::source_location loc = std::source_location::current());
void list_add_tail_rcu(list_head* entry, list_head* head,
                       std::source_location loc = std::source_location::current());
void list_del_rcu(list_head* entry, std::source_location loc = std::source_location::current());
void list_replace_rcu(list_head* old, list_head* entry,
                      std::source_location loc = std::source_location::current());
// A reader's step: rcu_dereference(pos->next) (list_entry_rcu()), one scheduling point on
// `pos` (a use-after-free if it was freed); reading an entry list_del() poisoned is the
// kernel's oops on LIST_POISON1. The first step also makes lockdep-RCU's check: outside any
// read-side section, unless `cond` (the updater's lock held), "RCU-list traversed in
// non-reader section!".
list_head* list_next_rcu(const list_head* pos, bool first, bool cond, std::source_location loc);
template <class T>
T* list_entry_rcu_first(T*&, list_head* head, list_head T::*member, bool cond = false,
                        std::source_location loc = std::source_location::current()) {
    return container_of(list_next_rcu(head, true, cond, loc), member);
}
template <class T>
T* list_entry_rcu_next(T* pos, list_head T::*member,
                       std::source_location loc = std::source_location::current()) {
    return container_of(list_next_rcu(&(pos->*member), false, false, loc), member);
}
// list_for_each_entry_rcu(pos, head, member[, cond]) as rculist.h writes it.
#define list_for_each_entry_rcu(pos, head, member, ...)                                            \
    for (pos = ::lockcheck::detail::list_entry_rcu_first(                                          \
             pos, head,                                                                            \
             &std::remove_reference_t<decltype(*pos)>::member __VA_OPT__(, ) __VA_ARGS__);         \
         &pos->member != (head); pos = ::lockcheck::detail::list_entry_rcu_next(                   \
                                     pos, &std::remove_reference_t<decltype(*pos)>::member))

// struct hlist_head and hlist_node: a hash bucket's list, NULL-terminated, each node knowing the
// field that points to it (pprev: its bucket's first, or the node before's next). Every
// operation conflicts with every list operation, as list_head's.
struct hlist_node;
struct hlist_head final : Object {
    explicit hlist_head(std::string name);
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override;
    hlist_node* first = nullptr;
};
struct hlist_node final : Object {
    explicit hlist_node(std::string name);
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override;
    hlist_node* next = nullptr;
    Object* pprev = nullptr; // the hlist_head or hlist_node whose first/next points here; null:
                             // unhashed
    bool poisoned = false;   // hlist_del_rcu() left pprev LIST_POISON2
};

// Each a scheduling point on the node (a reader's: hlist_unhashed() reads pprev);
// hlist_add_head_rcu() may also build the list the model starts with, at set-up, where it is
// none.
void INIT_HLIST_NODE(hlist_node* n, std::source_location loc = std::source_location::current());
bool hlist_unhashed(const hlist_node* n,
                    std::source_location loc = std::source_location::current());
bool hlist_empty(const hlist_head* h, std::source_location loc = std::source_location::current());
void hlist_add_head_rcu(hlist_node* n, hlist_head* h,
                        std::source_location loc = std::source_location::current());
void hlist_del_rcu(hlist_node* n, std::source_location loc = std::source_location::current());
void hlist_del_init_rcu(hlist_node* n, std::source_location loc = std::source_location::current());
// rcu_dereference_raw(hlist_first_rcu(h)) and (hlist_next_rcu(n)): a reader's steps, as
// list_next_rcu()'s.
hlist_node* hlist_first_rcu(const hlist_head* h, bool cond, std::source_location loc);
hlist_node* hlist_next_rcu(const hlist_node* n, std::source_location loc);
template <class T> T* hlist_entry_safe(hlist_node* n, hlist_node T::*member) {
    return n ? container_of(n, member) : nullptr;
}
template <class T>
T* hlist_entry_rcu_first(T*&, hlist_head* head, hlist_node T::*member, bool cond = false,
                         std::source_location loc = std::source_location::current()) {
    return hlist_entry_safe(hlist_first_rcu(head, cond, loc), member);
}
template <class T>
T* hlist_entry_rcu_next(T* pos, hlist_node T::*member,
                        std::source_location loc = std::source_location::current()) {
    return hlist_entry_safe(hlist_next_rcu(&(pos->*member), loc), member);
}
// hlist_for_each_entry_rcu(pos, head, member[, cond]) as rculist.h writes it.
#define hlist_for_each_entry_rcu(pos, head, member, ...)                                           \
    for (pos = ::lockcheck::detail::hlist_entry_rcu_first(                                         \
             pos, head,                                                                            \
             &std::remove_reference_t<decltype(*pos)>::member __VA_OPT__(, ) __VA_ARGS__);         \
         pos; pos = ::lockcheck::detail::hlist_entry_rcu_next(                                     \
                  pos, &std::remove_reference_t<decltype(*pos)>::member))

} // namespace lockcheck::detail
