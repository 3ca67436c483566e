// List operations after include/linux/list.h, with lib/list_debug.c's checks.
#include "list.hpp"

#include <utility>

#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

void corrupt(const std::string& what, std::source_location loc) {
    this_execution().fail(ViolationKind::list_corruption, "list-corruption", what, loc);
}

bool linked(const list_head* entry) {
    return !entry->poisoned && entry->next != entry;
}

// What a next or prev field holds, as a location's value: the id of the list_head it points to,
// or LIST_POISON.
constexpr std::int64_t kPoison = -1;
using Field = list_head* list_head::*;

// Reads and writes of the fields as include/linux/list.h makes them: each one an access under
// --memory-model lkmm, plain unless list.h marks it (READ_ONCE(), WRITE_ONCE()). Two list
// operations of different tasks on the same list that nothing orders always race on a field one
// of them accesses plainly, so a plain read sees the latest write (weak_memory::field_read()).
list_head* get(list_head* node, Field field) {
    list_head* value = node->*field;
    if (weak_memory::on())
        weak_memory::field_read(*node, &(node->*field), value->id(), Ordering::plain);
    return value;
}

// The store of `value` (an id, or kPoison) to a field, before the model changes the field.
void written(list_head* node, Field field, std::int64_t value, Ordering order) {
    if (weak_memory::on())
        weak_memory::field_written(*node, &(node->*field), (node->*field)->id(), value, order);
}

void set(list_head* node, Field field, list_head* value, Ordering order = Ordering::plain) {
    written(node, field, value->id(), order);
    node->*field = value;
}

// list_del()'s LIST_POISON stores; the model keeps the pointers for its double-delete check.
void poison(list_head* entry) {
    written(entry, &list_head::next, kPoison, Ordering::plain);
    written(entry, &list_head::prev, kPoison, Ordering::plain);
    entry->poisoned = true;
}

// INIT_LIST_HEAD(): WRITE_ONCE() of both fields.
void init(list_head* list) {
    set(list, &list_head::next, list, Ordering::relaxed);
    set(list, &list_head::prev, list, Ordering::relaxed);
    list->poisoned = false;
}

// list_empty(): READ_ONCE(head->next) == head. Under lkmm it may see an older write.
bool seen_empty(const list_head* head) {
    if (!weak_memory::on()) return head->next == head;
    return weak_memory::load_field(*head, &head->next, head->next->id(), Ordering::relaxed) ==
           head->id();
}

// __list_add()
void link_between(list_head* entry, list_head* prev, list_head* next, std::source_location loc) {
    // __list_add_valid(): adding an entry that is already on a list corrupts both lists.
    if (linked(entry) || entry == prev || entry == next)
        corrupt("list_add double add: " + entry->name() + " is already on a list", loc);
    entry->poisoned = false;
    set(next, &list_head::prev, entry);
    set(entry, &list_head::next, next);
    set(entry, &list_head::prev, prev);
    set(prev, &list_head::next, entry, Ordering::relaxed);
}

// __list_del_entry()
void unlink(list_head* entry, const char* op, std::source_location loc) {
    // __list_del_entry_valid()
    if (entry->poisoned)
        corrupt(std::string(op) + " corruption: " + entry->name() + " was already deleted", loc);
    list_head* prev = get(entry, &list_head::prev);
    list_head* next = get(entry, &list_head::next);
    set(next, &list_head::prev, prev);
    set(prev, &list_head::next, next, Ordering::relaxed);
}

// list_splice_init() and list_splice_tail_init(): __list_splice() between `prev` and `next`
// (read by `neighbours` after list_empty(), as list.h reads them), then INIT_LIST_HEAD(list).
template <class Neighbours> void splice_init(list_head* list, Neighbours neighbours) {
    if (seen_empty(list)) return;
    const auto [prev, next] = neighbours();
    list_head* first = get(list, &list_head::next);
    list_head* last = get(list, &list_head::prev);
    // list_empty() saw an entry another task's unordered list operation removed: those two
    // race on list->next, reported at the end of the execution.
    if (first == list) return;
    set(first, &list_head::prev, prev);
    set(prev, &list_head::next, first);
    set(last, &list_head::next, next);
    set(next, &list_head::prev, last);
    init(list);
}

} // namespace

namespace {
// Every list_head of the execution conflicts as the first one.
struct list_heads {
    const Object* first = nullptr;
};
} // namespace

list_head::list_head(std::string name) : Object(std::move(name)) {
    list_heads& all = this_execution().local<list_heads>();
    if (!all.first) all.first = this;
    conflicts_as(*all.first);
}

void list_head::describe(std::string& out) const {
    if (poisoned) {
        out += "deleted";
        return;
    }
    out += "[";
    for (const list_head* p = next; p != this; p = p->next)
        out += (p == next ? "" : ", ") + p->name();
    out += "]";
}

void INIT_LIST_HEAD(list_head* list, std::source_location loc) {
    this_execution().visible("INIT_LIST_HEAD", list, loc);
    init(list);
}

void list_add(list_head* entry, list_head* head, std::source_location loc) {
    this_execution().visible("list_add", head, loc);
    link_between(entry, head, get(head, &list_head::next), loc);
}

void list_add_tail(list_head* entry, list_head* head, std::source_location loc) {
    this_execution().visible("list_add_tail", head, loc);
    link_between(entry, get(head, &list_head::prev), head, loc);
}

void list_del(list_head* entry, std::source_location loc) {
    this_execution().visible("list_del", entry, loc);
    unlink(entry, "list_del", loc);
    poison(entry);
}

void list_del_init(list_head* entry, std::source_location loc) {
    this_execution().visible("list_del_init", entry, loc);
    unlink(entry, "list_del_init", loc);
    init(entry);
}

void list_move_tail(list_head* entry, list_head* head, std::source_location loc) {
    this_execution().visible("list_move_tail", head, loc);
    unlink(entry, "list_move_tail", loc);
    // Unlinked: list.h leaves its fields as they were, overwritten right after; the model's
    // double-add check wants it seen as off every list.
    entry->next = entry->prev = entry;
    link_between(entry, get(head, &list_head::prev), head, loc);
}

bool list_empty(const list_head* head, std::source_location loc) {
    this_execution().visible_read("list_empty", head, loc);
    const bool empty = seen_empty(head);
    this_execution().note(empty);
    return observed(empty);
}

void list_splice_init(list_head* list, list_head* head, std::source_location loc) {
    this_execution().visible("list_splice_init", head, loc);
    splice_init(list, [head] { return std::pair{head, get(head, &list_head::next)}; });
}

void list_splice_tail_init(list_head* list, list_head* head, std::source_location loc) {
    this_execution().visible("list_splice_tail_init", head, loc);
    splice_init(list, [head] { return std::pair{get(head, &list_head::prev), head}; });
}

std::vector<const list_head*> list_entries(const list_head& head) {
    Execution::peeked(head);
    std::vector<const list_head*> entries;
    for (const list_head* p = head.next; p != &head; p = p->next)
        entries.push_back(p);
    return entries;
}

} // namespace lockcheck::detail
