// struct list_head: the kernel's intrusive doubly linked list. A head and an entry are the
// same type, each a named shared object; every list operation is one scheduling point on the
// list it changes, checked as CONFIG_DEBUG_LIST checks it (an entry added twice, an entry
// deleted twice). An operation on one list_head writes its neighbours, and entries move
// between lists, so every list operation conflicts with every other (one conflict id).
#pragma once

#include <vector>

#include "task.hpp"

namespace lockcheck::detail {

struct list_head final : Object {
    // An empty list (a head) or an unlinked entry, as INIT_LIST_HEAD leaves it.
    explicit list_head(std::string name);
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override {
        h.add(static_cast<std::uint64_t>(next->id()));
        h.add(static_cast<std::uint64_t>(prev->id()));
        h.add(poisoned);
    }

    list_head* next = this;
    list_head* prev = this;
    bool poisoned = false; // list_del() left it pointing nowhere (LIST_POISON)
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

// The entries of a list in order, without a scheduling point: for invariants only.
std::vector<const list_head*> list_entries(const list_head& head);

} // namespace lockcheck::detail
