// refcache: a cache of entries looked up under a mutex, each entry freed by its last put;
// the pattern of the kernel's Documentation/core-api/kref.rst. The locking change under
// review moves the mutex out of put_entry() and into the release function, so that a put
// that is not the last takes no lock. docs/writing-models.md builds this model step by step;
// refcache-first-try is its first version, whose check() could not fail.
#include <lockcheck/lockcheck.hpp>

namespace refcache {

using namespace lockcheck;

// The change under review, and its fix, as data on one model.
struct Policy {
    bool put_takes_mutex = true;  // put_entry() holds the mutex around kref_put()
    bool get_unless_zero = false; // get_entry() uses kref_get_unless_zero()
};

struct my_data {
    struct kref refcount {
        "entry.refcount"
    };
    list_head link{"entry.link"};
    shared<int> payload{"entry.payload", 42};
};

struct cache {
    struct mutex mutex {
        "mutex"
    };
    list_head q{"q"};
};

// Where the release reaches kref.rst's static mutex and list: one per thread (--jobs).
thread_local cache* the_cache = nullptr;

// Runs with the mutex held: put_entry() took it.
void release_entry(struct kref* ref) {
    my_data* entry = container_of(ref, &my_data::refcount);
    list_del(&entry->link);
    kfree(entry);
}

// The change: the release takes the mutex itself.
void release_entry_locked(struct kref* ref) {
    my_data* entry = container_of(ref, &my_data::refcount);
    mutex_lock(&the_cache->mutex);
    list_del(&entry->link);
    mutex_unlock(&the_cache->mutex);
    kfree(entry);
}

my_data* get_entry(cache* c, const Policy& p) {
    my_data* entry = nullptr;
    mutex_lock(&c->mutex);
    if (!list_empty(&c->q)) {
        entry = list_first_entry(&c->q, my_data, link);
        if (p.get_unless_zero) {
            if (!kref_get_unless_zero(&entry->refcount)) entry = nullptr;
        } else {
            kref_get(&entry->refcount);
        }
    }
    mutex_unlock(&c->mutex);
    return entry;
}

void put_entry(cache* c, my_data* entry, const Policy& p) {
    if (p.put_takes_mutex) {
        mutex_lock(&c->mutex);
        kref_put(&entry->refcount, release_entry);
        mutex_unlock(&c->mutex);
    } else {
        kref_put(&entry->refcount, release_entry_locked); // the change
    }
}

// The cache's task: it adds an entry, holding the cache's one reference, and later evicts it.
void add_then_evict(cache* c, const Policy& p) {
    my_data* entry = kmalloc<my_data>("entry");
    kref_init(&entry->refcount);
    mutex_lock(&c->mutex);
    list_add(&entry->link, &c->q);
    mutex_unlock(&c->mutex);
    put_entry(c, entry, p);
}

// A lookup uses what it found, then drops its reference.
void lookup(cache* c, const Policy& p) {
    my_data* entry = get_entry(c, p);
    if (!entry) return;
    READ_ONCE(entry->payload);
    put_entry(c, entry, p);
}

// The guide's first try at a lookup: it checks the entry it found is live instead of using it.
void lookup_first_try(cache* c, const Policy& p) {
    my_data* entry = get_entry(c, p);
    if (!entry) return;
    check(entry->payload.peek() == 42, "the entry a lookup found is live");
    put_entry(c, entry, p);
}

const Policy kPolicies[] = {{true, false}, {false, false}, {false, true}};

// One execution: the cache's task and `lookups` tasks running `look_up`.
void run(const Policy& p, int lookups, void (*look_up)(cache*, const Policy&)) {
    cache& c = model_state<cache>();
    the_cache = &c;
    spawn("cache", [&c, &p] { add_then_evict(&c, p); });
    for (int i = 0; i < lookups; ++i)
        spawn("lookup" + std::to_string(i), [&c, &p, look_up] {
            op timed("lookup"); // what a benchmark of lookups would time
            look_up(&c, p);
        });
}

void setup(std::size_t variant, const ParameterValues& sizes) {
    run(kPolicies[variant], sizes[0], lookup);
}

void setup_first_try(std::size_t, const ParameterValues& sizes) {
    run(kPolicies[0], sizes[0], lookup_first_try);
}

Protocol model() {
    return Protocol{
        .name = "refcache",
        .summary = "lookups take a reference under the cache mutex while the last put frees",
        .variants = {{"put-under-mutex", "before the change: put_entry() holds the mutex",
                      Expectation::verified()},
                     {"release-takes-mutex", "the change: only the release takes the mutex",
                      Expectation::violation(ViolationKind::refcount, "addition-on-0")},
                     {"get-unless-zero", "the change, with kref_get_unless_zero() in lookups",
                      Expectation::verified()}},
        .default_variant = 1,
        .parameters = {{"lookups", "tasks looking the entry up", 1, 1, 4}},
        .comparison = Comparison{.before = "put-under-mutex", .after = "get-unless-zero"},
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(model);

Protocol first_try() {
    return Protocol{
        .name = "refcache-first-try",
        .summary = "the guide's first refcache: a check() right after an unlock",
        .variants = {{"put-under-mutex", "before the change", Expectation::verified()}},
        .parameters = {{"lookups", "tasks looking the entry up", 1, 1, 4}},
        .setup = &setup_first_try,
    };
}

LOCKCHECK_MODEL(first_try);

} // namespace refcache
