// The atomic, locking and rcu litmus tests of the kernel's Documentation/litmus-tests/, one
// variant each of the model `lkmm-doc-litmus`, written as kernel_tests.cpp's are (the rcu/
// tests' pointer y is p: Memory has an int y).
#include "litmus.hpp"

namespace lockcheck::litmus {

namespace {

using R = Result;

// locking/DCL-broken and DCL-fixed: both threads run the same double-checked locking.
template <bool kFixed> void double_checked(Memory& m, int* r) {
    shared<int>& flag = m.x;
    shared<int>& data = m.y;
    r[0] = kFixed ? smp_load_acquire(&flag) : READ_ONCE(flag);
    if (r[0] == 0) {
        spin_lock(&m.s);
        r[1] = READ_ONCE(flag);
        if (r[1] == 0) {
            WRITE_ONCE(data, 1);
            if (kFixed)
                smp_store_release(&flag, 1);
            else
                WRITE_ONCE(flag, 1);
        }
        spin_unlock(&m.s);
    }
    r[2] = READ_ONCE(data);
}

// locking/RM-broken and RM-fixed: P1 reads x twice, inside its critical section or before it.
void rm_writer(Memory& m, int* r) {
    spin_lock(&m.s);
    r[2] = atomic_inc_return(&m.v);
    WRITE_ONCE(m.x, 1);
    spin_unlock(&m.s);
}

// cmpxchg-fail-*-1: store, a cmpxchg of z that fails (z stays 0), then maybe the barrier.
template <bool kFenced>
void store_failed_cmpxchg_load(Memory& m, int* r, shared<int>& mine, shared<int>& other) {
    WRITE_ONCE(mine, 1);
    r[1] = cmpxchg(&m.z, 1, 0);
    if (kFenced) smp_mb__after_atomic();
    r[0] = READ_ONCE(other);
}

// cmpxchg-fail-*-2: P1's cmpxchg fails when it reads P0's, then maybe the barrier.
template <bool kFenced> void failed_cmpxchg_then_load(Memory& m, int* r) {
    r[1] = cmpxchg(&m.y, 0, 1);
    if (kFenced) smp_mb__after_atomic();
    r[2] = READ_ONCE(m.x);
}

void store_then_cmpxchg(Memory& m, int* r) {
    WRITE_ONCE(m.x, 1);
    r[1] = cmpxchg(&m.y, 0, 1);
}

bool sb_both_zero(const Memory& m) {
    return m.r[0][0] == 0 && m.r[1][0] == 0;
}
bool failed_cmpxchg_missed_store(const Memory& m) {
    return m.r[0][1] == 0 && m.r[1][1] == 1 && m.r[1][2] == 0;
}
bool dcl_saw_no_data(const Memory& m) {
    return m.r[0][2] == 0 || m.r[1][2] == 0;
}
// filter (1:r0=0 /\ 1:r1=1), exists (1:r2=1): executions the filter drops pass.
bool rm_exists(const Memory& m) {
    return m.r[1][0] == 0 && m.r[1][1] == 1 && m.r[1][2] == 1;
}

const std::vector<Test> kTests = {
    {"Atomic-RMW+mb__after_atomic-is-stronger-than-acquire",
     "atomic_inc() then smp_mb__after_atomic() orders the RMW's write too",
     R::never,
     {+[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.x);
          smp_rmb();
          r[1] = atomic_read(&m.v);
      },
      +[](Memory& m, int*) {
          atomic_inc(&m.v);
          smp_mb__after_atomic();
          WRITE_ONCE(m.x, 1);
      }},
     "(0:r0=1 /\\ 0:r1=0)",
     +[](const Memory& m) { return m.r[0][0] == 1 && m.r[0][1] == 0; }},
    {"Atomic-RMW-ops-are-atomic-WRT-atomic_set",
     "atomic_set() cannot split an RMW",
     R::never,
     {+[](Memory& m, int*) { (void)atomic_add_unless(&m.v, 1, 0); },
      +[](Memory& m, int*) { atomic_set(&m.v, 0); }},
     "(v=2)",
     +[](const Memory& m) { return m.v.peek() == 2; },
     R::never,
     +[](Memory& m) { m.v.counter = 1; }},
    {"cmpxchg-fail-ordered-1",
     "a failed cmpxchg then smp_mb__after_atomic() is a full barrier",
     R::never,
     {+[](Memory& m, int* r) { store_failed_cmpxchg_load<true>(m, r, m.x, m.y); },
      +[](Memory& m, int* r) { store_failed_cmpxchg_load<true>(m, r, m.y, m.x); }},
     "(0:r0=0 /\\ 1:r0=0)",
     &sb_both_zero},
    {"cmpxchg-fail-ordered-2",
     "a failed cmpxchg then smp_mb__after_atomic() orders what follows",
     R::never,
     {&store_then_cmpxchg, &failed_cmpxchg_then_load<true>},
     "(0:r1=0 /\\ 1:r1=1 /\\ 1:r2=0)",
     &failed_cmpxchg_missed_store},
    {"cmpxchg-fail-unordered-1",
     "a failed cmpxchg is no barrier",
     R::sometimes,
     {+[](Memory& m, int* r) { store_failed_cmpxchg_load<false>(m, r, m.x, m.y); },
      +[](Memory& m, int* r) { store_failed_cmpxchg_load<false>(m, r, m.y, m.x); }},
     "(0:r0=0 /\\ 1:r0=0)",
     &sb_both_zero},
    {"cmpxchg-fail-unordered-2",
     "a failed cmpxchg is no acquire",
     R::sometimes,
     {&store_then_cmpxchg, &failed_cmpxchg_then_load<false>},
     "(0:r1=0 /\\ 1:r1=1 /\\ 1:r2=0)",
     &failed_cmpxchg_missed_store},
    {"DCL-broken",
     "double-checked locking with READ_ONCE() and WRITE_ONCE() of the flag",
     R::sometimes,
     {&double_checked<false>, &double_checked<false>},
     "(0:r2=0 \\/ 1:r2=0)",
     &dcl_saw_no_data},
    {"DCL-fixed",
     "double-checked locking with acquire and release of the flag",
     R::never,
     {&double_checked<true>, &double_checked<true>},
     "(0:r2=0 \\/ 1:r2=0)",
     &dcl_saw_no_data},
    // The header's Result is DEADLOCK: herd7 finds no execution that passes the filter.
    {"RM-broken",
     "both reads inside the critical section: no execution passes the filter",
     R::never,
     {&rm_writer,
      +[](Memory& m, int* r) {
          spin_lock(&m.s);
          r[0] = READ_ONCE(m.x);
          r[1] = READ_ONCE(m.x);
          r[2] = atomic_inc_return(&m.v);
          spin_unlock(&m.s);
      }},
     "(1:r2=1) filtered by (1:r0=0 /\\ 1:r1=1)",
     &rm_exists},
    {"RM-fixed",
     "both reads before the critical section (the roach motel undone)",
     R::never,
     {&rm_writer,
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.x);
          r[1] = READ_ONCE(m.x);
          spin_lock(&m.s);
          r[2] = atomic_inc_return(&m.v);
          spin_unlock(&m.s);
      }},
     "(1:r2=1) filtered by (1:r0=0 /\\ 1:r1=1)",
     &rm_exists},
    with_initial(
        Test{"RCU+sync+free",
             "a reader never sees a write after a grace period without the writes before it",
             R::never,
             {+[](Memory& m, int* r) {
                  rcu_read_lock();
                  shared<int>* r0 = rcu_dereference(m.p);
                  r[0] = pointer_register(m, r0);
                  r[1] = READ_ONCE(*r0);
                  rcu_read_unlock();
              },
              +[](Memory& m, int*) {
                  rcu_assign_pointer(m.p, &m.z);
                  synchronize_rcu();
                  WRITE_ONCE(m.x, 0);
              }},
             "(0:r0=x /\\ 0:r1=0)",
             +[](const Memory& m) { return m.r[0][0] == 'x' && m.r[0][1] == 0; }},
        Initial{.x = 1, .z = 1, .p = 'x'}),
    {"RCU+sync+read",
     "after a grace period the updater sees every store of earlier read-side sections",
     R::never,
     {+[](Memory& m, int*) {
          rcu_read_lock();
          WRITE_ONCE(m.x, 1);
          WRITE_ONCE(m.y, 1);
          rcu_read_unlock();
      },
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.x);
          synchronize_rcu();
          r[1] = READ_ONCE(m.y);
      }},
     "(1:r0=1 /\\ 1:r1=0)",
     +[](const Memory& m) { return m.r[1][0] == 1 && m.r[1][1] == 0; }},
};

Protocol lkmm_doc_litmus() {
    return family("lkmm-doc-litmus",
                  "the kernel's atomic, locking and rcu litmus tests (Documentation/litmus-tests), "
                  "each with LKMM's verdict",
                  kTests);
}

} // namespace

LOCKCHECK_MODEL(lkmm_doc_litmus);

} // namespace lockcheck::litmus
