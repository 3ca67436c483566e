// List operations after include/linux/list.h, with lib/list_debug.c's checks.
#include "list.hpp"

#include <algorithm>
#include <utility>

#include "rcu.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

void corrupt(const std::string& what, std::source_location loc) {
    this_execution().fail(ViolationKind::list_corruption, "list-corruption", what, loc);
}

bool linked(const list_head* entry) {
    return !entry->poisoned && entry->next_ != entry;
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
    written(entry, &list_head::next_, kPoison, Ordering::plain);
    written(entry, &list_head::prev_, kPoison, Ordering::plain);
    entry->poisoned = true;
}

// INIT_LIST_HEAD(): WRITE_ONCE() of both fields.
void init(list_head* list) {
    set(list, &list_head::next_, list, Ordering::relaxed);
    set(list, &list_head::prev_, list, Ordering::relaxed);
    list->poisoned = false;
}

// list_empty(): READ_ONCE(head->next) == head. Under lkmm it may see an older write.
bool seen_empty(const list_head* head) {
    if (!weak_memory::on()) return head->next_ == head;
    return weak_memory::load_field(*head, &head->next_, head->next_->id(), Ordering::relaxed) ==
           head->id();
}

// __list_add()
void link_between(list_head* entry, list_head* prev, list_head* next, std::source_location loc) {
    // __list_add_valid(): adding an entry that is already on a list corrupts both lists.
    if (linked(entry) || entry == prev || entry == next)
        corrupt("list_add double add: " + entry->name() + " is already on a list", loc);
    entry->poisoned = false;
    set(next, &list_head::prev_, entry);
    set(entry, &list_head::next_, next);
    set(entry, &list_head::prev_, prev);
    set(prev, &list_head::next_, entry, Ordering::relaxed);
}

// __list_del_entry()
void unlink(list_head* entry, const char* op, std::source_location loc) {
    // __list_del_entry_valid()
    if (entry->poisoned)
        corrupt(std::string(op) + " corruption: " + entry->name() + " was already deleted", loc);
    list_head* prev = get(entry, &list_head::prev_);
    list_head* next = get(entry, &list_head::next_);
    set(next, &list_head::prev_, prev);
    set(prev, &list_head::next_, next, Ordering::relaxed);
}

// __list_add_rcu(): the entry's fields first, then rcu_assign_pointer() of prev->next.
void link_between_rcu(list_head* entry, list_head* prev, list_head* next,
                      std::source_location loc) {
    if (linked(entry) || entry == prev || entry == next)
        corrupt("list_add_rcu double add: " + entry->name() + " is already on a list", loc);
    entry->poisoned = entry->next_kept = false;
    set(entry, &list_head::next_, next);
    set(entry, &list_head::prev_, prev);
    set(prev, &list_head::next_, entry, Ordering::release);
    set(next, &list_head::prev_, entry);
}

// list_del_rcu()'s and list_replace_rcu()'s `entry->prev = LIST_POISON2`: next stays for
// the readers on the entry.
void poison_prev(list_head* entry) {
    written(entry, &list_head::prev_, kPoison, Ordering::plain);
    entry->poisoned = entry->next_kept = true;
}

// lockdep-RCU's check at the start of a traversal (__list_check_rcu()).
void check_traversal(const char* op, const Object& head, bool cond, std::source_location loc) {
    if (cond || rcu_read_lock_any_held()) return;
    this_execution().fail_attempt(Operation{.name = op, .obj = &head, .location = loc},
                                  ViolationKind::lock_misuse, "suspicious-rcu-usage",
                                  "WARNING: suspicious RCU usage: RCU-list traversed in "
                                  "non-reader section!: " +
                                      current()->name() + " calls " + op + "(" + head.name() +
                                      ") outside any RCU read-side critical section");
}

// The object a field's value (an id; for an hlist, an id + 1, 0 being NULL) stands for.
Object* object_of(std::int64_t id) {
    return this_execution().objects()[static_cast<std::size_t>(id)];
}

// A reader's rcu_dereference() of a field that holds `latest` (under lkmm it may see an older
// write); returns the value read.
std::int64_t dereference_field(const Object& obj, const void* field, std::int64_t latest) {
    if (!weak_memory::on()) return latest;
    return weak_memory::load_field(obj, field, latest, Ordering::relaxed);
}

// The traversal met LIST_POISON1 (a next list_del() or hlist_del() left): the kernel's oops.
void poisoned_next(const Object& entry, const char* op, const char* instead,
                   std::source_location loc) {
    corrupt(std::string(op) + " read LIST_POISON1 from " + entry.name() + "->next: " +
                entry.name() + " was deleted with " + instead + ", which readers cannot follow",
            loc);
}

// list_splice_init() and list_splice_tail_init(): __list_splice() between `prev` and `next`
// (read by `neighbours` after list_empty(), as list.h reads them), then INIT_LIST_HEAD(list).
template <class Neighbours> void splice_init(list_head* list, Neighbours neighbours) {
    if (seen_empty(list)) return;
    const auto [prev, next] = neighbours();
    list_head* first = get(list, &list_head::next_);
    list_head* last = get(list, &list_head::prev_);
    // list_empty() saw an entry another task's unordered list operation removed: those two
    // race on list->next, reported at the end of the execution.
    if (first == list) return;
    set(first, &list_head::prev_, prev);
    set(prev, &list_head::next_, first);
    set(last, &list_head::next_, next);
    set(next, &list_head::prev_, last);
    init(list);
}

} // namespace

namespace {
// Every list_head and hlist of the execution conflicts as the first one.
struct list_heads {
    const Object* first = nullptr;
};
const Object& first_list(const Object& self) {
    list_heads& all = this_execution().local<list_heads>();
    if (!all.first) all.first = &self;
    return *all.first;
}
} // namespace

list_head::list_head(std::string name) : Object(std::move(name)) {
    conflicts_as(first_list(*this));
}

void list_head::describe(std::string& out) const {
    if (poisoned) {
        out += "deleted";
        return;
    }
    out += "[";
    for (const list_head* p = next_; p != this; p = p->next_)
        out += (p == next_ ? "" : ", ") + p->name();
    out += "]";
}

namespace {
// Links a walk round a list follows before it gives up: only a list CONFIG_DEBUG_LIST already
// reported corrupt (an entry added twice) has a cycle that does not come back to where it began.
constexpr int kWalk = 1 << 16;

// The least id of the list the object is on (its own while it is on none), or -1 when the walk
// does not come back to it.
std::int64_t least_on_list(const list_head* self) {
    int least = self->id();
    int links = 0;
    for (const list_head* p = self->next_; p != self; p = p->next_) {
        if (p->poisoned || ++links == kWalk) return -1;
        least = std::min(least, p->id());
    }
    return least;
}
} // namespace

void list_head::fingerprint(StateHasher& h) const {
    h.add(poisoned);
    h.add(next_kept);
    // As a set: which list it is on, named by its least member. Two states whose lists hold the
    // same entries in other orders are one: nothing a model does reads the order but
    // list_order_read()'s reads, after which the search keeps lists in order.
    if (h.lists_as_sets() && !poisoned) {
        if (const std::int64_t least = least_on_list(this); least >= 0) {
            h.add(static_cast<std::uint64_t>(least));
            return;
        }
    }
    h.add(static_cast<std::uint64_t>(next_->id()));
    h.add(static_cast<std::uint64_t>(prev_->id()));
}

void INIT_LIST_HEAD(list_head* list, std::source_location loc) {
    this_execution().visible("INIT_LIST_HEAD", list, loc);
    init(list);
}

void list_add(list_head* entry, list_head* head, std::source_location loc) {
    this_execution().visible("list_add", head, loc);
    link_between(entry, head, get(head, &list_head::next_), loc);
}

void list_add_tail(list_head* entry, list_head* head, std::source_location loc) {
    this_execution().visible("list_add_tail", head, loc);
    link_between(entry, get(head, &list_head::prev_), head, loc);
}

void list_del(list_head* entry, std::source_location loc) {
    this_execution().visible("list_del", entry, loc);
    unlink(entry, "list_del", loc);
    poison(entry);
    entry->next_kept = false;
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
    entry->next_ = entry->prev_ = entry;
    link_between(entry, get(head, &list_head::prev_), head, loc);
}

bool list_empty(const list_head* head, std::source_location loc) {
    this_execution().visible_read("list_empty", head, loc);
    const bool empty = seen_empty(head);
    this_execution().note(empty);
    return observed(empty);
}

void list_splice_init(list_head* list, list_head* head, std::source_location loc) {
    this_execution().visible("list_splice_init", head, loc);
    splice_init(list, [head] { return std::pair{head, get(head, &list_head::next_)}; });
}

void list_splice_tail_init(list_head* list, list_head* head, std::source_location loc) {
    this_execution().visible("list_splice_tail_init", head, loc);
    splice_init(list, [head] { return std::pair{get(head, &list_head::prev_), head}; });
}

void list_add_rcu(list_head* entry, list_head* head, std::source_location loc) {
    this_execution().visible("list_add_rcu", head, loc);
    link_between_rcu(entry, head, get(head, &list_head::next_), loc);
}

void list_add_tail_rcu(list_head* entry, list_head* head, std::source_location loc) {
    this_execution().visible("list_add_tail_rcu", head, loc);
    link_between_rcu(entry, get(head, &list_head::prev_), head, loc);
}

void list_del_rcu(list_head* entry, std::source_location loc) {
    this_execution().visible("list_del_rcu", entry, loc);
    unlink(entry, "list_del_rcu", loc);
    poison_prev(entry);
}

void list_replace_rcu(list_head* old, list_head* entry, std::source_location loc) {
    this_execution().visible("list_replace_rcu", old, loc);
    if (old->poisoned)
        corrupt("list_replace_rcu corruption: " + old->name() + " was already deleted", loc);
    list_head* next = get(old, &list_head::next_);
    list_head* prev = get(old, &list_head::prev_);
    entry->poisoned = entry->next_kept = false;
    set(entry, &list_head::next_, next);
    set(entry, &list_head::prev_, prev);
    set(prev, &list_head::next_, entry, Ordering::release);
    set(next, &list_head::prev_, entry);
    poison_prev(old);
}

list_head* list_next_rcu(const list_head* pos, bool first, bool cond, std::source_location loc) {
    constexpr const char* op = "list_for_each_entry_rcu";
    if (first) check_traversal(op, *pos, cond, loc);
    Execution& ex = this_execution();
    ex.visible_read(op, pos, loc);
    ex.list_order_read(op, *pos);
    if (pos->poisoned && !pos->next_kept) poisoned_next(*pos, op, "list_del()", loc);
    const std::int64_t seen = dereference_field(*pos, &pos->next_, pos->next_->id());
    if (seen == kPoison) poisoned_next(*pos, op, "list_del()", loc);
    ex.observe(static_cast<std::uint64_t>(seen));
    auto* next = static_cast<list_head*>(object_of(seen));
    if (weak_memory::on()) weak_memory::pointer_loaded(next);
    return next;
}

list_head* list_end(const list_head* head, ListEnd which, std::source_location loc) {
    constexpr const char* kOps[] = {"list_first_entry", "list_first_entry_or_null",
                                    "list_for_each_entry", "list_last_entry"};
    const char* op = kOps[static_cast<int>(which)];
    Execution& ex = this_execution();
    ex.visible_read(op, head, loc);
    ex.list_order_read(op, *head);
    auto* list = const_cast<list_head*>(head);
    list_head* end = get(list, which == ListEnd::last ? &list_head::prev_ : &list_head::next_);
    ex.observe(end->id());
    if (end != head || which == ListEnd::walk) return end;
    if (which == ListEnd::first_or_null) return nullptr;
    corrupt(std::string(op) + "() of the empty list " + head->name() +
                ": the kernel goes on with the head as an entry",
            loc);
    return nullptr; // not reached: the execution ends at the finding
}

list_head* list_next(const list_head* pos, std::source_location loc) {
    constexpr const char* op = "list_next_entry";
    Execution& ex = this_execution();
    ex.visible_read(op, pos, loc);
    ex.list_order_read(op, *pos);
    if (pos->poisoned) poisoned_next(*pos, op, "list_del()", loc);
    list_head* next = get(const_cast<list_head*>(pos), &list_head::next_);
    ex.observe(next->id());
    return next;
}

std::vector<const list_head*> list_entries(const list_head& head) {
    Execution::peeked(head);
    if (Execution::active()) this_execution().list_order_read("list_entries", head);
    std::vector<const list_head*> entries;
    for (const list_head* p = head.next_; p != &head; p = p->next_)
        entries.push_back(p);
    return entries;
}

bool list_contains(const list_head& head, const list_head* entry) {
    Execution::peeked(head);
    for (const list_head* p = head.next_; p != &head; p = p->next_)
        if (p == entry) return true;
    return false;
}

std::size_t list_count_nodes(const list_head& head) {
    Execution::peeked(head);
    std::size_t n = 0;
    for (const list_head* p = head.next_; p != &head; p = p->next_)
        ++n;
    return n;
}

// --- hlist ---

namespace {

std::int64_t hval(const Object* o) {
    return o ? o->id() + 1 : 0;
}
hlist_node* hnode(std::int64_t v) {
    return v > 0 ? static_cast<hlist_node*>(object_of(v - 1)) : nullptr;
}

// WRITE_ONCE() (or, `order`, rcu_assign_pointer()) of a node's or head's field.
template <class Owner, class Field>
void hset(Owner* obj, Field Owner::*field, Field value, Ordering order = Ordering::relaxed) {
    if (weak_memory::on())
        weak_memory::field_written(*obj, &(obj->*field), hval(obj->*field), hval(value), order);
    obj->*field = value;
}

// *pprev = next: the head's first or the node's next that points to a node.
void set_pointing(Object* pprev, hlist_node* next) {
    if (auto* h = dynamic_cast<hlist_head*>(pprev))
        hset(h, &hlist_head::first, next);
    else
        hset(static_cast<hlist_node*>(pprev), &hlist_node::next, next);
}

bool unhashed(const hlist_node* n) {
    return !n->pprev && !n->poisoned;
}

// __hlist_del()
void hunlink(hlist_node* n, const char* op, std::source_location loc) {
    if (!n->pprev) {
        corrupt(std::string(op) + " corruption: " + n->name() +
                    (n->poisoned ? " was already deleted" : " is on no list"),
                loc);
        return;
    }
    hlist_node* next = n->next;
    Object* pprev = n->pprev;
    if (weak_memory::on()) {
        weak_memory::field_read(*n, &n->next, hval(next), Ordering::plain);
        weak_memory::field_read(*n, &n->pprev, hval(pprev), Ordering::plain);
    }
    set_pointing(pprev, next);
    if (next) hset(next, &hlist_node::pprev, pprev);
}

} // namespace

hlist_head::hlist_head(std::string name) : Object(std::move(name)) {
    conflicts_as(first_list(*this));
}

void hlist_head::describe(std::string& out) const {
    out += "[";
    for (const hlist_node* p = first; p; p = p->next)
        out += (p == first ? "" : ", ") + p->name();
    out += "]";
}

void hlist_head::fingerprint(StateHasher& h) const {
    h.add(static_cast<std::uint64_t>(hval(first)));
}

hlist_node::hlist_node(std::string name) : Object(std::move(name)) {
    conflicts_as(first_list(*this));
}

void hlist_node::describe(std::string& out) const {
    out += poisoned ? "deleted" : pprev ? "hashed" : "unhashed";
}

void hlist_node::fingerprint(StateHasher& h) const {
    h.add(static_cast<std::uint64_t>(hval(next)));
    h.add(static_cast<std::uint64_t>(hval(pprev)));
    h.add(poisoned);
}

void INIT_HLIST_NODE(hlist_node* n, std::source_location loc) {
    this_execution().visible("INIT_HLIST_NODE", n, loc);
    hset(n, &hlist_node::next, static_cast<hlist_node*>(nullptr));
    hset(n, &hlist_node::pprev, static_cast<Object*>(nullptr));
    n->poisoned = false;
}

bool hlist_unhashed(const hlist_node* n, std::source_location loc) {
    this_execution().visible_read("hlist_unhashed", n, loc);
    const bool un = unhashed(n);
    this_execution().note(un);
    return observed(un);
}

bool hlist_empty(const hlist_head* h, std::source_location loc) {
    this_execution().visible_read("hlist_empty", h, loc);
    const bool empty = dereference_field(*h, &h->first, hval(h->first)) == 0;
    this_execution().note(empty);
    return observed(empty);
}

void hlist_add_head_rcu(hlist_node* n, hlist_head* h, std::source_location loc) {
    // At set-up, the list the model starts with: no step, and no access (a location's first
    // use takes what set-up left there as its initial value).
    if (!this_execution().in_task()) {
        n->next = h->first;
        n->pprev = h;
        if (h->first) h->first->pprev = n;
        h->first = n;
        return;
    }
    this_execution().visible("hlist_add_head_rcu", h, loc);
    if (!unhashed(n) && !n->poisoned)
        corrupt("hlist_add_head_rcu double add: " + n->name() + " is already on a list", loc);
    hlist_node* first = h->first;
    if (weak_memory::on()) weak_memory::field_read(*h, &h->first, hval(first), Ordering::plain);
    n->poisoned = false;
    hset(n, &hlist_node::next, first);
    hset(n, &hlist_node::pprev, static_cast<Object*>(h));
    hset(h, &hlist_head::first, n, Ordering::release);
    if (first) hset(first, &hlist_node::pprev, static_cast<Object*>(n));
}

void hlist_del_rcu(hlist_node* n, std::source_location loc) {
    this_execution().visible("hlist_del_rcu", n, loc);
    hunlink(n, "hlist_del_rcu", loc);
    if (weak_memory::on())
        weak_memory::field_written(*n, &n->pprev, hval(n->pprev), kPoison, Ordering::relaxed);
    n->pprev = nullptr;
    n->poisoned = true;
}

void hlist_del_init_rcu(hlist_node* n, std::source_location loc) {
    this_execution().visible("hlist_del_init_rcu", n, loc);
    if (unhashed(n)) return;
    hunlink(n, "hlist_del_init_rcu", loc);
    hset(n, &hlist_node::pprev, static_cast<Object*>(nullptr));
    n->poisoned = false;
}

hlist_node* hlist_first_rcu(const hlist_head* h, bool cond, std::source_location loc) {
    constexpr const char* op = "hlist_for_each_entry_rcu";
    check_traversal(op, *h, cond, loc);
    this_execution().visible_read(op, h, loc);
    const std::int64_t seen = dereference_field(*h, &h->first, hval(h->first));
    this_execution().observe(static_cast<std::uint64_t>(seen));
    if (weak_memory::on() && seen > 0) weak_memory::pointer_loaded(hnode(seen));
    return hnode(seen);
}

hlist_node* hlist_next_rcu(const hlist_node* n, std::source_location loc) {
    constexpr const char* op = "hlist_for_each_entry_rcu";
    this_execution().visible_read(op, n, loc);
    const std::int64_t seen = dereference_field(*n, &n->next, hval(n->next));
    this_execution().observe(static_cast<std::uint64_t>(seen));
    if (weak_memory::on() && seen > 0) weak_memory::pointer_loaded(hnode(seen));
    return hnode(seen);
}

} // namespace lockcheck::detail
