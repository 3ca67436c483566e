// List operations after include/linux/list.h, with lib/list_debug.c's checks.
#include "list.hpp"

namespace lockcheck {

namespace {

void corrupt(const std::string& what) {
    this_execution().fail(ViolationKind::list_corruption, "list-corruption", what);
}

bool linked(const list_head* entry) {
    return !entry->poisoned && entry->next != entry;
}

void link_between(list_head* entry, list_head* prev, list_head* next) {
    // __list_add_valid(): adding an entry that is already on a list corrupts both lists.
    if (linked(entry) || entry == prev || entry == next)
        corrupt("list_add double add: " + entry->name() + " is already on a list");
    entry->poisoned = false;
    next->prev = entry;
    entry->next = next;
    entry->prev = prev;
    prev->next = entry;
}

void unlink(list_head* entry, const char* op) {
    // __list_del_entry_valid()
    if (entry->poisoned)
        corrupt(std::string(op) + " corruption: " + entry->name() + " was already deleted");
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

void INIT_LIST_HEAD(list_head* list) {
    this_execution().visible("INIT_LIST_HEAD", list);
    list->next = list->prev = list;
    list->poisoned = false;
}

void list_add(list_head* entry, list_head* head) {
    this_execution().visible("list_add", head);
    link_between(entry, head, head->next);
}

void list_add_tail(list_head* entry, list_head* head) {
    this_execution().visible("list_add_tail", head);
    link_between(entry, head->prev, head);
}

void list_del(list_head* entry) {
    this_execution().visible("list_del", entry);
    unlink(entry, "list_del");
    entry->poisoned = true;
}

void list_del_init(list_head* entry) {
    this_execution().visible("list_del_init", entry);
    unlink(entry, "list_del_init");
    entry->next = entry->prev = entry;
    entry->poisoned = false;
}

void list_move_tail(list_head* entry, list_head* head) {
    this_execution().visible("list_move_tail", head);
    unlink(entry, "list_move_tail");
    entry->next = entry->prev = entry;
    link_between(entry, head->prev, head);
}

bool list_empty(const list_head* head) {
    this_execution().visible_read("list_empty", head);
    const bool empty = head->next == head;
    this_execution().note(empty);
    return empty;
}

void list_splice_init(list_head* list, list_head* head) {
    this_execution().visible("list_splice_init", head);
    if (list->next != list) splice(list, head, head->next);
}

void list_splice_tail_init(list_head* list, list_head* head) {
    this_execution().visible("list_splice_tail_init", head);
    if (list->next != list) splice(list, head->prev, head);
}

std::vector<const list_head*> list_entries(const list_head& head) {
    std::vector<const list_head*> entries;
    for (const list_head* p = head.next; p != &head; p = p->next)
        entries.push_back(p);
    return entries;
}

} // namespace lockcheck
