// Kernel idioms whose correctness is a barrier, one variant each of the model `lkmm-idioms`:
// the changes lockcheck's users make (a flag in an atomic_t instead of a lock, a lockless
// waitqueue_active() check before wake_up()), each with and without the ordering the kernel
// documents for it. Their LKMM verdicts follow from the documents cited beside each, by the
// same reasoning as the kernel test of the same shape.
#include "litmus.hpp"

namespace lockcheck::litmus {

namespace {

using R = Result;

// Message passing through an atomic_t flag (Documentation/atomic_t.txt: atomic_set() and
// atomic_read() are unordered, as MP+poonceonces; their _release/_acquire forms order, as
// MP+pooncerelease+poacquireonce).
template <bool kOrdered> void publish(Memory& m, int*) {
    WRITE_ONCE(m.x, 1);
    if (kOrdered)
        atomic_set_release(&m.v, 1);
    else
        atomic_set(&m.v, 1);
}
template <bool kOrdered> void consume(Memory& m, int* r) {
    r[0] = kOrdered ? atomic_read_acquire(&m.v) : atomic_read(&m.v);
    r[1] = READ_ONCE(m.x);
}

// Message passing through a reference count (Documentation/core-api/refcount-vs-atomic.rst):
// refcount_inc() is fully unordered (case 2), so a reader that sees the new count, even with
// smp_rmb(), may still miss the write before it; refcount_dec_and_test() is a release, and an
// acquire when it drops the last reference (case 5), so the last put sees what every earlier
// put wrote before it, as MP+pooncerelease+poacquireonce.
void store_then_get(Memory& m, int*) {
    WRITE_ONCE(m.x, 1);
    refcount_inc(&m.ref);
}
void count_then_load(Memory& m, int* r) {
    r[0] = static_cast<int>(refcount_read(&m.ref));
    smp_rmb();
    r[1] = READ_ONCE(m.x);
}
void store_then_put(Memory& m, int*) {
    WRITE_ONCE(m.x, 1);
    (void)refcount_dec_and_test(&m.ref);
}
void last_put_loads(Memory& m, int* r) {
    r[0] = refcount_dec_and_test(&m.ref);
    if (r[0]) r[1] = READ_ONCE(m.x);
}
bool saw_get_not_store(const Memory& m) { // (1:r0=3 /\ 1:r1=0)
    return m.r[1][0] == 3 && m.r[1][1] == 0;
}

// A sleeper and a waker (include/linux/wait.h, the comment on waitqueue_active(): the waker
// needs smp_mb() between setting the condition and the lockless check, pairing with the one
// in the sleeper's set_current_state(); without it this is store buffering, and the wake-up
// is lost).
void sleeper(Memory& m, int*) {
    DEFINE_WAIT(wait);
    prepare_to_wait(&m.wq, &wait, TASK_UNINTERRUPTIBLE);
    if (!READ_ONCE(m.x)) schedule();
    finish_wait(&m.wq, &wait);
}
enum class Waker { lockless, fenced, has_sleeper };
template <Waker kHow> void waker(Memory& m, int*) {
    WRITE_ONCE(m.x, 1);
    if (kHow == Waker::fenced) smp_mb();
    const bool active =
        kHow == Waker::has_sleeper ? wq_has_sleeper(&m.wq) : waitqueue_active(&m.wq);
    if (active) wake_up(&m.wq);
}

// Store buffering with a wake_up() that wakes nobody between P0's store and load
// (memory-barriers.txt, "SLEEP AND WAKE-UP FUNCTIONS": wake_up() executes a general barrier if
// it wakes something up; if not, it may or may not, and nothing may rely on it). Taking and
// releasing the queue's lock orders nothing here either, as only P0 takes it: as SB+mbonceonces
// with P0's smp_mb() gone, Sometimes.
void store_wake_nobody_load(Memory& m, int* r) {
    WRITE_ONCE(m.x, 1);
    wake_up(&m.wq);
    r[0] = READ_ONCE(m.y);
}
void store_mb_load(Memory& m, int* r) {
    WRITE_ONCE(m.y, 1);
    smp_mb();
    r[0] = READ_ONCE(m.x);
}
// A completion (kernel/sched/completion.c): complete() and wait_for_completion() count `done`
// under x->wait.lock, so the waiter that consumes a complete() sees what came before it
// (release, then acquire).
void store_complete(Memory& m, int*) {
    WRITE_ONCE(m.x, 1);
    complete(&m.done);
}
void wait_load(Memory& m, int* r) {
    wait_for_completion(&m.done);
    r[0] = READ_ONCE(m.x);
}
// Plain data published through a flag (tools/memory-model/Documentation/explanation.txt,
// "PLAIN ACCESSES AND DATA RACES"): the reader's plain load races with the writer's plain store
// unless what orders the flag also bounds both: atomic_inc() and atomic_read() order nothing;
// a release and an acquire, or smp_wmb() and smp_rmb() around WRITE_ONCE() and READ_ONCE() of
// the flag, do.
enum class Flag { unordered, release_acquire, wmb_rmb };
template <Flag kHow> void publish_plain(Memory& m, int*) {
    m.x.write(1);
    if (kHow == Flag::unordered) {
        atomic_inc(&m.v);
    } else if (kHow == Flag::release_acquire) {
        atomic_set_release(&m.v, 1);
    } else {
        smp_wmb();
        WRITE_ONCE(m.y, 1);
    }
}
template <Flag kHow> void consume_plain(Memory& m, int* r) {
    if (kHow == Flag::wmb_rmb) {
        r[0] = READ_ONCE(m.y);
        smp_rmb();
    } else {
        r[0] = kHow == Flag::release_acquire ? atomic_read_acquire(&m.v) : atomic_read(&m.v);
    }
    if (r[0]) r[1] = m.x.read();
}

// Store buffering with a complete() that wakes nobody between P0's store and load: taking and
// releasing x->wait.lock orders nothing here (only P0 takes it), and try_to_wake_up()'s barrier
// is not there, as for a wake_up() that wakes nobody: Sometimes.
void store_complete_load(Memory& m, int* r) {
    WRITE_ONCE(m.x, 1);
    complete(&m.done);
    r[0] = READ_ONCE(m.y);
}
// A wake-up that wakes the sleeper (kernel/sched/core.c, try_to_wake_up(): the woken task sees
// what its waker did before the wake-up): P0 waits for P1 to queue itself, then wakes it.
void store_wake_sleeper(Memory& m, int*) {
    WRITE_ONCE(m.x, 1);
    while (!waitqueue_active(&m.wq))
        cpu_relax();
    wake_up(&m.wq);
}
void sleep_load(Memory& m, int* r) {
    DEFINE_WAIT(wait);
    prepare_to_wait(&m.wq, &wait, TASK_UNINTERRUPTIBLE);
    schedule();
    finish_wait(&m.wq, &wait);
    r[0] = READ_ONCE(m.x);
}

bool waiter_missed_store(const Memory& m) { // (1:r0=0)
    return m.r[1][0] == 0;
}

// S: a writer orders its two stores (smp_wmb()); the reader stores after its load with no
// dependency on it, so its store may take effect before the load (herd7: Sometimes), and with
// one (a store of the value it read) it may not.
void store_wmb_store(Memory& m, int*) {
    WRITE_ONCE(m.x, 2);
    smp_wmb();
    WRITE_ONCE(m.y, 1);
}
void load_store(Memory& m, int* r) {
    r[0] = READ_ONCE(m.y);
    WRITE_ONCE(m.x, 1);
}
void load_store_data(Memory& m, int* r) {
    r[0] = READ_ONCE(m.y);
    WRITE_ONCE(m.x, r[0]);
}
bool overwrote_after_seeing(const Memory& m) {
    return m.r[1][0] == 1 && m.x.peek() == 2;
}

// Load buffering and the dependencies that forbid it (tools/memory-model/Documentation/
// explanation.txt, "DEPENDENCY RELATIONS"): a store that depends on its task's earlier load
// neither by data nor by control may take effect before it, so LB is Sometimes while one side
// has no dependency (even if only a load-buffered execution shows its store made after
// loading 1); a control or data dependency on both sides closes a cycle of hb (Never),
// and with data on both the values would come out of thin air. The store after an `if` that
// only guards another store is not control-dependent on the load.
void load_x_if_store_y(Memory& m, int* r) {
    r[0] = READ_ONCE(m.x);
    if (r[0]) WRITE_ONCE(m.y, 1);
}
void load_x_if_store_z_store_y(Memory& m, int* r) {
    r[0] = READ_ONCE(m.x);
    if (r[0]) WRITE_ONCE(m.z, 1);
    WRITE_ONCE(m.y, 1);
}
void load_x_store_y_data(Memory& m, int* r) {
    r[0] = READ_ONCE(m.x);
    WRITE_ONCE(m.y, r[0]);
}
void load_y_store_x(Memory& m, int* r) {
    r[0] = READ_ONCE(m.y);
    WRITE_ONCE(m.x, 1);
}
void load_y_if_store_x(Memory& m, int* r) {
    r[0] = READ_ONCE(m.y);
    if (r[0]) WRITE_ONCE(m.x, 1);
}
void load_y_store_x_data(Memory& m, int* r) {
    r[0] = READ_ONCE(m.y);
    WRITE_ONCE(m.x, r[0]);
}
bool both_loaded_one(const Memory& m) {
    return m.r[0][0] == 1 && m.r[1][0] == 1;
}

bool both_read_zero(const Memory& m) {
    return m.r[0][0] == 0 && m.r[1][0] == 0;
}

bool message_lost(const Memory& m) {
    return m.r[1][0] == 1 && m.r[1][1] == 0;
}
bool always(const Memory&) {
    return false;
}

constexpr const char* kLostWakeUp = "hang";
constexpr const char* kRaceOnX = "data race on x";

const std::vector<Test> kTests = {
    {"MP+atomic_set+atomic_read",
     "message passing through an atomic_t flag, unordered",
     R::sometimes,
     {&publish<false>, &consume<false>},
     "(1:r0=1 /\\ 1:r1=0)",
     &message_lost},
    {"MP+atomic_set_release+atomic_read_acquire",
     "message passing through an atomic_t flag, release and acquire",
     R::never,
     {&publish<true>, &consume<true>},
     "(1:r0=1 /\\ 1:r1=0)",
     &message_lost},
    {"wake+waitqueue_active",
     "the waker checks waitqueue_active() without smp_mb(): a lost wake-up",
     R::sometimes,
     {&sleeper, &waker<Waker::lockless>},
     "(P0 sleeps for ever)",
     &always,
     R::never,
     nullptr,
     ViolationKind::hang,
     kLostWakeUp},
    {"wake+smp_mb+waitqueue_active",
     "the waker's smp_mb() before waitqueue_active()",
     R::never,
     {&sleeper, &waker<Waker::fenced>},
     "(P0 sleeps for ever)",
     &always},
    {"wake+wq_has_sleeper",
     "the waker uses wq_has_sleeper(), smp_mb() included",
     R::never,
     {&sleeper, &waker<Waker::has_sleeper>},
     "(P0 sleeps for ever)",
     &always},
    {"MP+refcount_inc+rmb",
     "a reader that sees refcount_inc()'s count misses the store before it: it is unordered",
     R::sometimes,
     {&store_then_get, &count_then_load},
     "(1:r0=3 /\\ 1:r1=0)",
     &saw_get_not_store},
    {"MP+refcount_dec_and_test",
     "the last refcount_dec_and_test() sees the stores before every earlier one",
     R::never,
     {&store_then_put, &last_put_loads},
     "(1:r0=1 /\\ 1:r1=0)",
     &message_lost},
    {"MP+plain+atomic_inc",
     "plain data published by atomic_inc(), read after atomic_read(): a data race",
     R::sometimes,
     {&publish_plain<Flag::unordered>, &consume_plain<Flag::unordered>},
     "(data race on x)",
     &always,
     R::never,
     nullptr,
     ViolationKind::data_race,
     kRaceOnX},
    {"MP+plain+release-acquire",
     "plain data published by atomic_set_release(), read after atomic_read_acquire()",
     R::never,
     {&publish_plain<Flag::release_acquire>, &consume_plain<Flag::release_acquire>},
     "(data race on x)",
     &always},
    // Under sc the race detector takes no order from smp_wmb() and smp_rmb() between marked
    // accesses (as C11 takes none from relaxed atomics): a race there, none under lkmm.
    {"MP+plain+wmb+rmb",
     "plain data published by smp_wmb() and WRITE_ONCE(), read after READ_ONCE() and "
     "smp_rmb()",
     R::never,
     {&publish_plain<Flag::wmb_rmb>, &consume_plain<Flag::wmb_rmb>},
     "(data race on x)",
     &always,
     R::sometimes,
     nullptr,
     ViolationKind::data_race,
     kRaceOnX},
    {"MP+complete+wait_for_completion",
     "the waiter that consumes a complete() sees the store before it",
     R::never,
     {&store_complete, &wait_load},
     "(1:r0=0)",
     &waiter_missed_store},
    {"SB+wake_up-nobody+mb",
     "store buffering across a wake_up() that wakes no task: no barrier is promised then",
     R::sometimes,
     {&store_wake_nobody_load, &store_mb_load},
     "(0:r0=0 /\\ 1:r0=0)",
     &both_read_zero},
    {"SB+complete-nobody+mb",
     "store buffering across a complete() that wakes no task: no barrier is promised then",
     R::sometimes,
     {&store_complete_load, &store_mb_load},
     "(0:r0=0 /\\ 1:r0=0)",
     &both_read_zero},
    {"S+wmb+once",
     "the writer orders its stores, the reader's store has no dependency on its load",
     R::sometimes,
     {&store_wmb_store, &load_store},
     "(1:r0=1 /\\ x=2)",
     &overwrote_after_seeing},
    {"S+wmb+data",
     "the writer orders its stores, the reader stores the value it loaded",
     R::never,
     {&store_wmb_store, &load_store_data},
     "(1:r0=1 /\\ x=2)",
     &overwrote_after_seeing},
    {"LB+ctrlonceonces",
     "load buffering, a control dependency on both sides",
     R::never,
     {&load_x_if_store_y, &load_y_if_store_x},
     "(0:r0=1 /\\ 1:r0=1)",
     &both_loaded_one},
    {"LB+ctrlonceonce+poonceonce",
     "load buffering, a control dependency on one side only",
     R::sometimes,
     {&load_x_if_store_y, &load_y_store_x},
     "(0:r0=1 /\\ 1:r0=1)",
     &both_loaded_one},
    {"LB+ifonce+poonceonce",
     "load buffering, the store after an if that guards another store: no dependency",
     R::sometimes,
     {&load_x_if_store_z_store_y, &load_y_store_x},
     "(0:r0=1 /\\ 1:r0=1)",
     &both_loaded_one},
    {"LB+datas",
     "load buffering, each store of the value loaded: out of thin air",
     R::never,
     {&load_x_store_y_data, &load_y_store_x_data},
     "(0:r0=1 /\\ 1:r0=1)",
     &both_loaded_one},
    {"MP+wake_up+schedule",
     "the task a wake_up() woke sees the store before it",
     R::never,
     {&store_wake_sleeper, &sleep_load},
     "(1:r0=0)",
     &waiter_missed_store},
};

Protocol lkmm_idioms() {
    return family("lkmm-idioms",
                  "kernel idioms whose correctness is a barrier (an atomic_t flag, a lockless "
                  "waitqueue_active()), with and without it",
                  kTests);
}

} // namespace

LOCKCHECK_MODEL(lkmm_idioms);

} // namespace lockcheck::litmus
