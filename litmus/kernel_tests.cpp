// The litmus tests of the kernel's tools/memory-model/litmus-tests/, one variant each of the
// model `lkmm-litmus`. Each keeps the file's name, threads, values and exists clause (P1's r0
// is r[0] of thread 1); its Result is the header's. MP+onceassign+derefonce's pointer y is p
// (Memory has an int y).
#include "litmus.hpp"

namespace lockcheck::litmus {

namespace {

using R = Result;

// P0 of the IRIW, WRC, CoRR shapes: one store.
void write_x(Memory& m, int*) {
    WRITE_ONCE(m.x, 1);
}

// Threads and outcomes that several tests share.
void store_x_store_y(Memory& m, int*) {
    WRITE_ONCE(m.x, 1);
    WRITE_ONCE(m.y, 1);
}
void store_x_y_locked(Memory& m, int*) {
    spin_lock(&m.s);
    WRITE_ONCE(m.x, 1);
    WRITE_ONCE(m.y, 1);
    spin_unlock(&m.s);
}
void store_x_release_y(Memory& m, int*) {
    WRITE_ONCE(m.x, 1);
    smp_store_release(&m.y, 1);
}
void acquire_y_release_z(Memory& m, int* r) {
    r[0] = smp_load_acquire(&m.y);
    smp_store_release(&m.z, 1);
}
void store_z_mb_load_x(Memory& m, int* r) {
    WRITE_ONCE(m.z, 2);
    smp_mb();
    r[1] = READ_ONCE(m.x);
}

bool p1_saw_flag_not_data(const Memory& m) { // (1:r0=1 /\ 1:r1=0)
    return m.r[1][0] == 1 && m.r[1][1] == 0;
}
bool both_read_zero(const Memory& m) { // (0:r0=0 /\ 1:r0=0)
    return m.r[0][0] == 0 && m.r[1][0] == 0;
}
bool both_read_one(const Memory& m) { // (0:r0=1 /\ 1:r0=1)
    return m.r[0][0] == 1 && m.r[1][0] == 1;
}
bool readers_disagree(const Memory& m) { // (1:r0=1 /\ 1:r1=0 /\ 3:r0=1 /\ 3:r1=0)
    return m.r[1][0] == 1 && m.r[1][1] == 0 && m.r[3][0] == 1 && m.r[3][1] == 0;
}
bool chain_lost_x(const Memory& m) { // (1:r0=1 /\ 2:r0=1 /\ 2:r1=0)
    return m.r[1][0] == 1 && m.r[2][0] == 1 && m.r[2][1] == 0;
}
bool z6_outcome(const Memory& m) { // (1:r0=1 /\ z=2 /\ 2:r1=0)
    return m.r[1][0] == 1 && m.z.peek() == 2 && m.r[2][1] == 0;
}
bool lock_seen_out_of_order(const Memory& m) { // (1:r1=1 /\ 1:r2=0 /\ 1:r3=1)
    return m.r[1][1] == 1 && m.r[1][2] == 0 && m.r[1][3] == 1;
}

const std::vector<Test> kTests = {
    {"CoRR+poonceonce+Once",
     "read-read coherence",
     R::never,
     {&write_x,
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.x);
          r[1] = READ_ONCE(m.x);
      }},
     "(1:r0=1 /\\ 1:r1=0)",
     &p1_saw_flag_not_data},
    {"CoRW+poonceonce+Once",
     "read-write coherence",
     R::never,
     {+[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.x);
          WRITE_ONCE(m.x, 1);
      },
      +[](Memory& m, int*) { WRITE_ONCE(m.x, 2); }},
     "(x=2 /\\ 0:r0=2)",
     +[](const Memory& m) { return m.x.peek() == 2 && m.r[0][0] == 2; }},
    {"CoWR+poonceonce+Once",
     "write-read coherence",
     R::never,
     {+[](Memory& m, int* r) {
          WRITE_ONCE(m.x, 1);
          r[0] = READ_ONCE(m.x);
      },
      +[](Memory& m, int*) { WRITE_ONCE(m.x, 2); }},
     "(x=1 /\\ 0:r0=2)",
     +[](const Memory& m) { return m.x.peek() == 1 && m.r[0][0] == 2; }},
    {"CoWW+poonceonce",
     "write-write coherence",
     R::never,
     {+[](Memory& m, int*) {
         WRITE_ONCE(m.x, 1);
         WRITE_ONCE(m.x, 2);
     }},
     "(x=1)",
     +[](const Memory& m) { return m.x.peek() == 1; }},
    {"IRIW+fencembonceonces+OnceOnce",
     "independent reads of independent writes, smp_mb()",
     R::never,
     {&write_x,
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.x);
          smp_mb();
          r[1] = READ_ONCE(m.y);
      },
      +[](Memory& m, int*) { WRITE_ONCE(m.y, 1); },
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.y);
          smp_mb();
          r[1] = READ_ONCE(m.x);
      }},
     "(1:r0=1 /\\ 1:r1=0 /\\ 3:r0=1 /\\ 3:r1=0)",
     &readers_disagree},
    {"IRIW+poonceonces+OnceOnce",
     "independent reads of independent writes, no ordering",
     R::sometimes,
     {&write_x,
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.x);
          r[1] = READ_ONCE(m.y);
      },
      +[](Memory& m, int*) { WRITE_ONCE(m.y, 1); },
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.y);
          r[1] = READ_ONCE(m.x);
      }},
     "(1:r0=1 /\\ 1:r1=0 /\\ 3:r0=1 /\\ 3:r1=0)",
     &readers_disagree},
    {"ISA2+pooncelock+pooncelock+pombonce",
     "two critical sections of one lock, seen from outside with smp_mb()",
     R::never,
     {&store_x_y_locked,
      +[](Memory& m, int* r) {
          spin_lock(&m.s);
          r[0] = READ_ONCE(m.y);
          WRITE_ONCE(m.z, 1);
          spin_unlock(&m.s);
      },
      +[](Memory& m, int* r) {
          r[2] = READ_ONCE(m.z);
          smp_mb();
          r[1] = READ_ONCE(m.x);
      }},
     "(1:r0=1 /\\ 2:r2=1 /\\ 2:r1=0)",
     +[](const Memory& m) { return m.r[1][0] == 1 && m.r[2][2] == 1 && m.r[2][1] == 0; }},
    {"ISA2+poonceonces",
     "a chain of three threads, no ordering",
     R::sometimes,
     {&store_x_store_y,
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.y);
          WRITE_ONCE(m.z, 1);
      },
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.z);
          r[1] = READ_ONCE(m.x);
      }},
     "(1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0)",
     &chain_lost_x},
    {"ISA2+pooncerelease+poacquirerelease+poacquireonce",
     "a release-acquire chain",
     R::never,
     {&store_x_release_y, &acquire_y_release_z,
      +[](Memory& m, int* r) {
          r[0] = smp_load_acquire(&m.z);
          r[1] = READ_ONCE(m.x);
      }},
     "(1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0)",
     &chain_lost_x},
    {"LB+fencembonceonce+ctrlonceonce",
     "load buffering, a control dependency and smp_mb()",
     R::never,
     {+[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.x);
          if (r[0]) WRITE_ONCE(m.y, 1);
      },
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.y);
          smp_mb();
          WRITE_ONCE(m.x, 1);
      }},
     "(0:r0=1 /\\ 1:r0=1)",
     &both_read_one},
    {"LB+poacquireonce+pooncerelease",
     "load buffering, release and acquire",
     R::never,
     {+[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.x);
          smp_store_release(&m.y, 1);
      },
      +[](Memory& m, int* r) {
          r[0] = smp_load_acquire(&m.y);
          WRITE_ONCE(m.x, 1);
      }},
     "(0:r0=1 /\\ 1:r0=1)",
     &both_read_one},
    {"LB+poonceonces",
     "load buffering, no ordering",
     R::sometimes,
     {+[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.x);
          WRITE_ONCE(m.y, 1);
      },
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.y);
          WRITE_ONCE(m.x, 1);
      }},
     "(0:r0=1 /\\ 1:r0=1)",
     &both_read_one},
    {"LB+unlocklockonceonce+poacquireonce",
     "load buffering, an unlock of one lock then a lock of another",
     R::never,
     {+[](Memory& m, int* r) {
          spin_lock(&m.s);
          r[1] = READ_ONCE(m.x);
          spin_unlock(&m.s);
          spin_lock(&m.t);
          WRITE_ONCE(m.y, 1);
          spin_unlock(&m.t);
      },
      +[](Memory& m, int* r) {
          r[2] = smp_load_acquire(&m.y);
          WRITE_ONCE(m.x, 1);
      }},
     "(0:r1=1 /\\ 1:r2=1)",
     +[](const Memory& m) { return m.r[0][1] == 1 && m.r[1][2] == 1; }},
    {"MP+fencewmbonceonce+fencermbonceonce",
     "message passing, smp_wmb() and smp_rmb()",
     R::never,
     {+[](Memory& m, int*) {
          WRITE_ONCE(m.x, 1); // buf
          smp_wmb();
          WRITE_ONCE(m.y, 1); // flag
      },
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.y);
          smp_rmb();
          r[1] = READ_ONCE(m.x);
      }},
     "(1:r0=1 /\\ 1:r1=0)",
     &p1_saw_flag_not_data},
    {"MP+polockmbonce+poacquiresilsil",
     "spin_is_locked() seen after the lock's store, with smp_mb__after_spinlock()",
     R::never,
     {+[](Memory& m, int*) {
          spin_lock(&m.s);
          smp_mb__after_spinlock();
          WRITE_ONCE(m.x, 1);
          spin_unlock(&m.s);
      },
      +[](Memory& m, int* r) {
          r[1] = smp_load_acquire(&m.x);
          r[2] = spin_is_locked(&m.s);
          r[3] = spin_is_locked(&m.s);
      }},
     "(1:r1=1 /\\ 1:r2=0 /\\ 1:r3=1)",
     &lock_seen_out_of_order},
    {"MP+polockonce+poacquiresilsil",
     "spin_is_locked() seen after the lock's store, without smp_mb__after_spinlock()",
     R::sometimes,
     {+[](Memory& m, int*) {
          spin_lock(&m.s);
          WRITE_ONCE(m.x, 1);
          spin_unlock(&m.s);
      },
      +[](Memory& m, int* r) {
          r[1] = smp_load_acquire(&m.x);
          r[2] = spin_is_locked(&m.s);
          r[3] = spin_is_locked(&m.s);
      }},
     "(1:r1=1 /\\ 1:r2=0 /\\ 1:r3=1)",
     &lock_seen_out_of_order},
    {"MP+polocks",
     "message passing, the flag under a lock",
     R::never,
     {+[](Memory& m, int*) {
          WRITE_ONCE(m.x, 1);
          spin_lock(&m.s);
          WRITE_ONCE(m.y, 1);
          spin_unlock(&m.s);
      },
      +[](Memory& m, int* r) {
          spin_lock(&m.s);
          r[0] = READ_ONCE(m.y);
          spin_unlock(&m.s);
          r[1] = READ_ONCE(m.x);
      }},
     "(1:r0=1 /\\ 1:r1=0)",
     &p1_saw_flag_not_data},
    {"MP+poonceonces",
     "message passing, no ordering",
     R::sometimes,
     {&store_x_store_y,
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.y);
          r[1] = READ_ONCE(m.x);
      }},
     "(1:r0=1 /\\ 1:r1=0)",
     &p1_saw_flag_not_data},
    {"MP+pooncerelease+poacquireonce",
     "message passing, release and acquire",
     R::never,
     {+[](Memory& m, int*) {
          WRITE_ONCE(m.x, 1);
          smp_store_release(&m.y, 1);
      },
      +[](Memory& m, int* r) {
          r[0] = smp_load_acquire(&m.y);
          r[1] = READ_ONCE(m.x);
      }},
     "(1:r0=1 /\\ 1:r1=0)",
     &p1_saw_flag_not_data},
    with_initial(
        Test{"MP+onceassign+derefonce",
             "an RCU reader does not see a newly published element's pre-initialization garbage",
             R::never,
             {+[](Memory& m, int*) {
                  WRITE_ONCE(m.x, 1);
                  rcu_assign_pointer(m.p, &m.x);
              },
              +[](Memory& m, int* r) {
                  rcu_read_lock();
                  shared<int>* r0 = rcu_dereference(m.p);
                  r[0] = pointer_register(m, r0);
                  r[1] = READ_ONCE(*r0);
                  rcu_read_unlock();
              }},
             "(1:r0=x /\\ 1:r1=0)",
             +[](const Memory& m) { return m.r[1][0] == 'x' && m.r[1][1] == 0; }},
        Initial{.p = 'z'}),
    {"MP+porevlocks",
     "message passing, the buffer under a lock",
     R::never,
     {+[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.y);
          spin_lock(&m.s);
          r[1] = READ_ONCE(m.x);
          spin_unlock(&m.s);
      },
      +[](Memory& m, int*) {
          spin_lock(&m.s);
          WRITE_ONCE(m.x, 1);
          spin_unlock(&m.s);
          WRITE_ONCE(m.y, 1);
      }},
     "(0:r0=1 /\\ 0:r1=0)",
     +[](const Memory& m) { return m.r[0][0] == 1 && m.r[0][1] == 0; }},
    {"MP+unlocklockonceonce+fencermbonceonce",
     "message passing, an unlock of one lock then a lock of another",
     R::never,
     {+[](Memory& m, int*) {
          spin_lock(&m.s);
          WRITE_ONCE(m.x, 1);
          spin_unlock(&m.s);
          spin_lock(&m.t);
          WRITE_ONCE(m.y, 1);
          spin_unlock(&m.t);
      },
      +[](Memory& m, int* r) {
          r[1] = READ_ONCE(m.y);
          smp_rmb();
          r[2] = READ_ONCE(m.x);
      }},
     "(1:r1=1 /\\ 1:r2=0)",
     +[](const Memory& m) { return m.r[1][1] == 1 && m.r[1][2] == 0; }},
    {"R+fencembonceonces",
     "R, smp_mb() on both sides",
     R::never,
     {+[](Memory& m, int*) {
          WRITE_ONCE(m.x, 1);
          smp_mb();
          WRITE_ONCE(m.y, 1);
      },
      +[](Memory& m, int* r) {
          WRITE_ONCE(m.y, 2);
          smp_mb();
          r[0] = READ_ONCE(m.x);
      }},
     "(y=2 /\\ 1:r0=0)",
     +[](const Memory& m) { return m.y.peek() == 2 && m.r[1][0] == 0; }},
    {"R+poonceonces",
     "R, no ordering",
     R::sometimes,
     {&store_x_store_y,
      +[](Memory& m, int* r) {
          WRITE_ONCE(m.y, 2);
          r[0] = READ_ONCE(m.x);
      }},
     "(y=2 /\\ 1:r0=0)",
     +[](const Memory& m) { return m.y.peek() == 2 && m.r[1][0] == 0; }},
    {"S+fencewmbonceonce+poacquireonce",
     "S, smp_wmb() and acquire",
     R::never,
     {+[](Memory& m, int*) {
          WRITE_ONCE(m.x, 2);
          smp_wmb();
          WRITE_ONCE(m.y, 1);
      },
      +[](Memory& m, int* r) {
          r[0] = smp_load_acquire(&m.y);
          WRITE_ONCE(m.x, 1);
      }},
     "(x=2 /\\ 1:r0=1)",
     +[](const Memory& m) { return m.x.peek() == 2 && m.r[1][0] == 1; }},
    {"S+poonceonces",
     "S, no ordering",
     R::sometimes,
     {+[](Memory& m, int*) {
          WRITE_ONCE(m.x, 2);
          WRITE_ONCE(m.y, 1);
      },
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.y);
          WRITE_ONCE(m.x, 1);
      }},
     "(x=2 /\\ 1:r0=1)",
     +[](const Memory& m) { return m.x.peek() == 2 && m.r[1][0] == 1; }},
    {"SB+fencembonceonces",
     "store buffering, smp_mb() on both sides",
     R::never,
     {+[](Memory& m, int* r) {
          WRITE_ONCE(m.x, 1);
          smp_mb();
          r[0] = READ_ONCE(m.y);
      },
      +[](Memory& m, int* r) {
          WRITE_ONCE(m.y, 1);
          smp_mb();
          r[0] = READ_ONCE(m.x);
      }},
     "(0:r0=0 /\\ 1:r0=0)",
     &both_read_zero},
    {"SB+poonceonces",
     "store buffering, no ordering",
     R::sometimes,
     {+[](Memory& m, int* r) {
          WRITE_ONCE(m.x, 1);
          r[0] = READ_ONCE(m.y);
      },
      +[](Memory& m, int* r) {
          WRITE_ONCE(m.y, 1);
          r[0] = READ_ONCE(m.x);
      }},
     "(0:r0=0 /\\ 1:r0=0)",
     &both_read_zero},
    {"SB+rfionceonce-poonceonces",
     "store buffering, each thread reading its own store back",
     R::sometimes,
     {+[](Memory& m, int* r) {
          WRITE_ONCE(m.x, 1);
          r[1] = READ_ONCE(m.x);
          r[2] = READ_ONCE(m.y);
      },
      +[](Memory& m, int* r) {
          WRITE_ONCE(m.y, 1);
          r[3] = READ_ONCE(m.y);
          r[4] = READ_ONCE(m.x);
      }},
     "(0:r2=0 /\\ 1:r4=0)",
     +[](const Memory& m) { return m.r[0][2] == 0 && m.r[1][4] == 0; }},
    {"WRC+poonceonces+Once",
     "write-to-read causality, no ordering",
     R::sometimes,
     {&write_x,
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.x);
          WRITE_ONCE(m.y, 1);
      },
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.y);
          r[1] = READ_ONCE(m.x);
      }},
     "(1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0)",
     &chain_lost_x},
    {"WRC+pooncerelease+fencermbonceonce+Once",
     "write-to-read causality, release (A-cumulative) and smp_rmb()",
     R::never,
     {&write_x,
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.x);
          smp_store_release(&m.y, 1);
      },
      +[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.y);
          smp_rmb();
          r[1] = READ_ONCE(m.x);
      }},
     "(1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0)",
     &chain_lost_x},
    {"Z6.0+pooncelock+poonceLock+pombonce",
     "two critical sections of one lock, the second with smp_mb__after_spinlock()",
     R::never,
     {&store_x_y_locked,
      +[](Memory& m, int* r) {
          spin_lock(&m.s);
          smp_mb__after_spinlock();
          r[0] = READ_ONCE(m.y);
          WRITE_ONCE(m.z, 1);
          spin_unlock(&m.s);
      },
      &store_z_mb_load_x},
     "(1:r0=1 /\\ z=2 /\\ 2:r1=0)",
     &z6_outcome},
    {"Z6.0+pooncelock+pooncelock+pombonce",
     "two critical sections of one lock: the handover is no full barrier to others",
     R::sometimes,
     {&store_x_y_locked,
      +[](Memory& m, int* r) {
          spin_lock(&m.s);
          r[0] = READ_ONCE(m.y);
          WRITE_ONCE(m.z, 1);
          spin_unlock(&m.s);
      },
      &store_z_mb_load_x},
     "(1:r0=1 /\\ z=2 /\\ 2:r1=0)",
     &z6_outcome},
    {"Z6.0+pooncerelease+poacquirerelease+fencembonceonce",
     "a release-acquire chain with a non-rf link: it needs a full barrier",
     R::sometimes,
     {&store_x_release_y, &acquire_y_release_z, &store_z_mb_load_x},
     "(1:r0=1 /\\ z=2 /\\ 2:r1=0)",
     &z6_outcome},
    {"dep+plain",
     "load buffering with the dependency carried through plain accesses",
     R::never,
     {+[](Memory& m, int* r) {
          r[0] = READ_ONCE(m.x); // a
          m.z1.write(r[0]);
          m.z2.write(m.z1.read());
          if (m.z2.read() == 1) WRITE_ONCE(m.y, 1);
      },
      +[](Memory& m, int* r) {
          r[0] = smp_load_acquire(&m.y); // r
          smp_store_release(&m.x, r[0]);
      }},
     "(x=1 /\\ y=1)",
     +[](const Memory& m) { return m.x.peek() == 1 && m.y.peek() == 1; }},
};

Protocol lkmm_litmus() {
    return family("lkmm-litmus",
                  "the kernel's LKMM litmus tests (tools/memory-model/litmus-tests), each with "
                  "LKMM's verdict",
                  kTests);
}

} // namespace

LOCKCHECK_MODEL(lkmm_litmus);

} // namespace lockcheck::litmus
