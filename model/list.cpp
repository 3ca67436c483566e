// List operations after include/linux/list.h, with lib/list_debug.c's checks.
#include "list.hpp"

namespace lockcheck {

namespace {

void corrupt(const std::string& what, std::source_location loc) {
    this_execution().fail(ViolationKind::list_corruption, "list-corruption", what, loc);
}

bool linked(const list_head* entry) {
    return !entry->poisoned && entry->next != entry;
}

void link_between(list_head* entry, list_head* prev, list_head* next, std::source_location loc) {
    // __list_add_valid(): adding an entry that is already on a list corrupts both lists.
    if (linked(entry) || entry == prev || entry == next)
        corrupt("list_add double add: " + entry->name() + " is already on a list", loc);
    entry->poisoned = false;
    next->prev = entry;
    entry->next = next;
    entry->prev = prev;
    prev->next = entry;
}

void unlink(list_head* entry, const char* op, std::source_location loc) {
    // __list_del_entry_valid()
    if (entry->poisoned)
        corrupt(std::string(op) + " corruption: " + entry->name() + " was already deleted", loc);
    entry->prev->next = entry->next;
    entry->next->prev = entry->prev;
}

void splice(list_head* list, list_head* prev, list_head* next) {
    list_head* first = list->next;
    list_head* last = list->prev;
    first->prev = prev;
    prev->next = first;
    last->next = next;
    next->prev = last;
    list->next = list->prev = list;
}

} // namespace

namespace {
// The conflict id of every list_head of the execution: the first one's id.
struct list_heads {
    int conflict_id = -1;
};
} // namespace

list_head::list_head(std::string name) : Object(std::move(name)) {
    list_heads& all = this_execution().local<list_heads>();
    if (all.conflict_id < 0) all.conflict_id = id();
    conflicts_as(all.conflict_id);
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
    list->next = list->prev = list;
    list->poisoned = false;
}

void list_add(list_head* entry, list_head* head, std::source_location loc) {
    this_execution().visible("list_add", head, loc);
    link_between(entry, head, head->next, loc);
}

void list_add_tail(list_head* entry, list_head* head, std::source_location loc) {
    this_execution().visible("list_add_tail", head, loc);
    link_between(entry, head->prev, head, loc);
}

void list_del(list_head* entry, std::source_location loc) {
    this_execution().visible("list_del", entry, loc);
    unlink(entry, "list_del", loc);
    entry->poisoned = true;
}

void list_del_init(list_head* entry, std::source_location loc) {
    this_execution().visible("list_del_init", entry, loc);
    unlink(entry, "list_del_init", loc);
    entry->next = entry->prev = entry;
    entry->poisoned = false;
}

void list_move_tail(list_head* entry, list_head* head, std::source_location loc) {
    this_execution().visible("list_move_tail", head, loc);
    unlink(entry, "list_move_tail", loc);
    entry->next = entry->prev = entry;
    link_between(entry, head->prev, head, loc);
}

bool list_empty(const list_head* head, std::source_location loc) {
    this_execution().visible_read("list_empty", head, loc);
    const bool empty = head->next == head;
    this_execution().note(empty);
    return observed(empty);
}

void list_splice_init(list_head* list, list_head* head, std::source_location loc) {
    this_execution().visible("list_splice_init", head, loc);
    if (list->next != list) splice(list, head, head->next);
}

void list_splice_tail_init(list_head* list, list_head* head, std::source_location loc) {
    this_execution().visible("list_splice_tail_init", head, loc);
    if (list->next != list) splice(list, head->prev, head);
}

std::vector<const list_head*> list_entries(const list_head& head) {
    Execution::peeked(head);
    std::vector<const list_head*> entries;
    for (const list_head* p = head.next; p != &head; p = p->next)
        entries.push_back(p);
    return entries;
}

} // namespace lockcheck
