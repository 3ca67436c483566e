// lockcheck's whole user API, in one include: the kernel-named primitives a model is written
// with, the properties it states, and how it declares its variants, sizes and expected
// verdicts and registers itself (LOCKCHECK_MODEL). Every name below is the API, and nothing
// else in namespace lockcheck is: the checker itself lives in lockcheck::detail, which a model
// never names and which may change. Installed, the headers this one includes sit under
// lockcheck/detail/, not on a user's include path.
#pragma once

#include "checker/model_registry.hpp"
#include "checker/protocol.hpp"
#include "model/kernel.hpp"

namespace lockcheck {

// Declaring a model (checker/protocol.hpp, checker/model_registry.hpp; LOCKCHECK_MODEL).
using detail::Comparison;
using detail::Expectation;
using detail::ModelKind;
using detail::Parameter;
using detail::ParameterValues;
using detail::Protocol;
using detail::Variant;
using detail::variants_of;
using detail::ViolationKind;

// Tasks and their state (model/task.hpp, model/sched.hpp).
using detail::__set_current_state;
using detail::cpu_relax;
using detail::current;
using detail::kMaxTasks; // the most tasks one execution may have
using detail::might_sleep;
using detail::model_state;
using detail::schedule;
using detail::set_current_state;
using detail::spawn;
using detail::spawn_on;
using detail::TASK_INTERRUPTIBLE;
using detail::TASK_NORMAL;
using detail::TASK_RUNNING;
using detail::task_struct;
using detail::TASK_UNINTERRUPTIBLE;
using detail::try_to_wake_up;
using detail::wake_up_process;

// What a model states and how it keeps state a search compares (model/check.hpp, BUG_ON and
// WARN_ON; model/plain_state.hpp, model/forget_reads.hpp), and the operations whose waits it
// measures (model/op.hpp).
using detail::check;
using detail::final_check;
using detail::forget_reads;
using detail::invariant;
using detail::max_wait;
using detail::op;
using detail::op_begin;
using detail::op_end;
using detail::plain_state;

// Plain and marked shared variables, barriers (model/shared.hpp, model/barrier.hpp).
using detail::READ_ONCE;
using detail::shared;
using detail::smp_load_acquire;
using detail::smp_mb;
using detail::smp_mb__after_atomic;
using detail::smp_mb__after_spinlock;
using detail::smp_mb__after_unlock_lock;
using detail::smp_mb__before_atomic;
using detail::smp_rmb;
using detail::smp_store_mb;
using detail::smp_store_release;
using detail::smp_wmb;
using detail::WRITE_ONCE;

// atomic_t (model/atomic.hpp), xchg and cmpxchg (model/cmpxchg.hpp), bit operations
// (model/bitops.hpp).
using detail::atomic_add;
using detail::atomic_add_return;
using detail::atomic_add_return_acquire;
using detail::atomic_add_return_relaxed;
using detail::atomic_add_return_release;
using detail::atomic_add_unless;
using detail::atomic_cmpxchg;
using detail::atomic_cmpxchg_acquire;
using detail::atomic_cmpxchg_relaxed;
using detail::atomic_cmpxchg_release;
using detail::atomic_dec;
using detail::atomic_dec_and_lock;
using detail::atomic_dec_and_test;
using detail::atomic_dec_return;
using detail::atomic_dec_return_acquire;
using detail::atomic_dec_return_relaxed;
using detail::atomic_dec_return_release;
using detail::atomic_fetch_add;
using detail::atomic_fetch_add_acquire;
using detail::atomic_fetch_add_relaxed;
using detail::atomic_fetch_add_release;
using detail::atomic_fetch_dec;
using detail::atomic_fetch_dec_acquire;
using detail::atomic_fetch_dec_relaxed;
using detail::atomic_fetch_dec_release;
using detail::atomic_fetch_inc;
using detail::atomic_fetch_inc_acquire;
using detail::atomic_fetch_inc_relaxed;
using detail::atomic_fetch_inc_release;
using detail::atomic_fetch_sub;
using detail::atomic_fetch_sub_acquire;
using detail::atomic_fetch_sub_relaxed;
using detail::atomic_fetch_sub_release;
using detail::atomic_inc;
using detail::atomic_inc_and_test;
using detail::atomic_inc_not_zero;
using detail::atomic_inc_return;
using detail::atomic_inc_return_acquire;
using detail::atomic_inc_return_relaxed;
using detail::atomic_inc_return_release;
using detail::atomic_read;
using detail::atomic_read_acquire;
using detail::atomic_set;
using detail::atomic_set_release;
using detail::atomic_sub;
using detail::atomic_sub_and_test;
using detail::atomic_sub_return;
using detail::atomic_sub_return_acquire;
using detail::atomic_sub_return_relaxed;
using detail::atomic_sub_return_release;
using detail::atomic_t;
using detail::atomic_try_cmpxchg;
using detail::atomic_try_cmpxchg_acquire;
using detail::atomic_try_cmpxchg_relaxed;
using detail::atomic_try_cmpxchg_release;
using detail::atomic_xchg;
using detail::atomic_xchg_acquire;
using detail::atomic_xchg_relaxed;
using detail::atomic_xchg_release;
using detail::bitmap_word;
using detail::clear_bit;
using detail::cmpxchg;
using detail::cmpxchg_acquire;
using detail::cmpxchg_relaxed;
using detail::cmpxchg_release;
using detail::set_bit;
using detail::test_and_clear_bit;
using detail::test_and_set_bit;
using detail::test_bit;
using detail::try_cmpxchg;
using detail::try_cmpxchg_acquire;
using detail::try_cmpxchg_relaxed;
using detail::try_cmpxchg_release;
using detail::xchg;
using detail::xchg_acquire;
using detail::xchg_relaxed;
using detail::xchg_release;

// Reference counts (model/refcount.hpp, model/kref.hpp).
using detail::kref;
using detail::kref_get;
using detail::kref_get_unless_zero;
using detail::kref_init;
using detail::kref_put;
using detail::kref_put_lock;
using detail::kref_put_mutex;
using detail::kref_read;
using detail::refcount_add;
using detail::refcount_add_not_zero;
using detail::refcount_dec;
using detail::refcount_dec_and_lock;
using detail::refcount_dec_and_mutex_lock;
using detail::refcount_dec_and_test;
using detail::refcount_dec_not_one;
using detail::refcount_inc;
using detail::refcount_inc_not_zero;
using detail::refcount_read;
using detail::REFCOUNT_SATURATED;
using detail::refcount_set;
using detail::refcount_sub_and_test;
using detail::refcount_t;

// Locks and lockdep (model/mutex.hpp, model/spinlock.hpp, model/rwsem.hpp,
// model/extent_lock.hpp, model/lockdep.hpp).
using detail::down_read;
using detail::down_read_nested;
using detail::down_read_trylock;
using detail::down_write;
using detail::down_write_nested;
using detail::down_write_trylock;
using detail::downgrade_write;
using detail::extent_io_tree;
using detail::lock_extent;
using detail::lockdep_assert_held;
using detail::lockdep_assert_held_once;
using detail::lockdep_assert_in_softirq;
using detail::lockdep_assert_irqs_disabled;
using detail::lockdep_assert_irqs_enabled;
using detail::lockdep_assert_none_held_once;
using detail::lockdep_assert_preemption_disabled;
using detail::lockdep_assert_preemption_enabled;
using detail::lockdep_map;
using detail::lockdep_off;
using detail::lockdep_set_class;
using detail::MAX_LOCKDEP_SUBCLASSES;
using detail::mutex;
using detail::mutex_is_locked;
using detail::mutex_lock;
using detail::mutex_lock_nested;
using detail::mutex_trylock;
using detail::mutex_unlock;
using detail::rw_semaphore;
using detail::spin_is_locked;
using detail::spin_lock;
using detail::spin_lock_nested;
using detail::spin_trylock;
using detail::spin_unlock;
using detail::spinlock_t;
using detail::unlock_extent;
using detail::up_read;
using detail::up_write;

// Waiting (model/wait.hpp, model/completion.hpp; DEFINE_WAIT, wait_event).
using detail::autoremove_wake_function;
using detail::complete;
using detail::complete_all;
using detail::completion;
using detail::completion_done;
using detail::default_wake_function;
using detail::finish_wait;
using detail::init_completion;
using detail::prepare_to_wait;
using detail::prepare_to_wait_exclusive;
using detail::reinit_completion;
using detail::try_wait_for_completion;
using detail::wait_for_completion;
using detail::wait_queue_entry;
using detail::wait_queue_func_t;
using detail::wait_queue_head_t;
using detail::waitqueue_active;
using detail::wake_up;
using detail::wake_up_all;
using detail::WQ_FLAG_EXCLUSIVE;
using detail::wq_has_sleeper;

// Memory and lists (model/slab.hpp, model/list.hpp, model/container_of.hpp).
using detail::container_of;
using detail::INIT_LIST_HEAD;
using detail::kfree;
using detail::kmalloc;
using detail::kzalloc;
using detail::list_add;
using detail::list_add_tail;
using detail::list_del;
using detail::list_del_init;
using detail::list_empty;
using detail::list_entries; // for properties: no step
using detail::list_head;
using detail::list_move_tail;
using detail::list_splice_init;
using detail::list_splice_tail_init;

// CPUs, preemption and per-CPU data (model/percpu.hpp, model/this_cpu.hpp,
// model/percpu_counter.hpp; for_each_possible_cpu, for_each_online_cpu).
using detail::add_cpu;
using detail::cond_resched;
using detail::cpu_online;
using detail::cpu_online_mask;
using detail::cpuhp_setup_state;
using detail::cpumask;
using detail::cpumask_next;
using detail::cpumask_test_cpu;
using detail::nr_cpu_ids;
using detail::per_cpu_ptr;
using detail::percpu;
using detail::percpu_counter;
using detail::percpu_counter_add;
using detail::percpu_counter_add_batch;
using detail::percpu_counter_read;
using detail::percpu_counter_set;
using detail::percpu_counter_sum;
using detail::preempt_disable;
using detail::preempt_enable;
using detail::raw_cpu_ptr;
using detail::raw_smp_processor_id;
using detail::remove_cpu;
using detail::set_nr_cpus;
using detail::smp_processor_id;
using detail::this_cpu_add;
using detail::this_cpu_dec;
using detail::this_cpu_inc;
using detail::this_cpu_ptr;
using detail::this_cpu_read;
using detail::this_cpu_sub;
using detail::this_cpu_write;

// Interrupt contexts (model/irq.hpp): hardirq handlers, softirqs, and the interrupt state of
// the running task; the _irq, _irqsave and _bh forms of spin_lock (model/spinlock.hpp).
using detail::BLOCK_SOFTIRQ;
using detail::HI_SOFTIRQ;
using detail::HRTIMER_SOFTIRQ;
using detail::in_atomic;
using detail::in_hardirq;
using detail::in_interrupt;
using detail::in_irq;
using detail::in_serving_softirq;
using detail::in_softirq;
using detail::in_task;
using detail::irq_fires;
using detail::IRQ_HANDLED;
using detail::irq_handler_t;
using detail::irq_may_fire;
using detail::IRQ_NONE;
using detail::IRQ_POLL_SOFTIRQ;
using detail::IRQ_WAKE_THREAD;
using detail::irqreturn_t;
using detail::irqs_disabled;
using detail::local_bh_disable;
using detail::local_bh_enable;
using detail::local_irq_disable;
using detail::local_irq_enable;
using detail::local_irq_restore;
using detail::local_irq_save;
using detail::NET_RX_SOFTIRQ;
using detail::NET_TX_SOFTIRQ;
using detail::NR_SOFTIRQS;
using detail::open_softirq;
using detail::raise_softirq;
using detail::raise_softirq_irqoff;
using detail::RCU_SOFTIRQ;
using detail::request_irq;
using detail::SCHED_SOFTIRQ;
using detail::spin_lock_bh;
using detail::spin_lock_irq;
using detail::spin_lock_irqsave;
using detail::spin_lock_irqsave_nested;
using detail::spin_unlock_bh;
using detail::spin_unlock_irq;
using detail::spin_unlock_irqrestore;
using detail::TASKLET_SOFTIRQ;
using detail::TIMER_SOFTIRQ;

// Deferred work (model/workqueue.hpp, model/timer.hpp): work items run by kworker tasks, timers
// whose callbacks run in TIMER_SOFTIRQ; time is abstract (jiffies and HZ are taken and ignored).
using detail::__WQ_ORDERED;
using detail::add_timer;
using detail::alloc_ordered_workqueue;
using detail::alloc_workqueue;
using detail::cancel_delayed_work;
using detail::cancel_delayed_work_sync;
using detail::cancel_work;
using detail::cancel_work_sync;
using detail::del_timer;
using detail::del_timer_sync;
using detail::delayed_work;
using detail::destroy_workqueue;
using detail::drain_workqueue;
using detail::flush_delayed_work;
using detail::flush_work;
using detail::flush_workqueue;
using detail::from_timer;
using detail::HZ;
using detail::INIT_DELAYED_WORK;
using detail::INIT_WORK;
using detail::jiffies;
using detail::mod_delayed_work;
using detail::mod_timer;
using detail::queue_delayed_work;
using detail::queue_delayed_work_on;
using detail::queue_work;
using detail::queue_work_on;
using detail::schedule_delayed_work;
using detail::schedule_work;
using detail::system_wq;
using detail::TIMER_DEFERRABLE;
using detail::timer_delete;
using detail::timer_delete_sync;
using detail::TIMER_IRQSAFE;
using detail::timer_list;
using detail::timer_pending;
using detail::TIMER_PINNED;
using detail::timer_setup;
using detail::timer_shutdown_sync;
using detail::work_func_t;
using detail::work_pending;
using detail::work_struct;
using detail::workqueue_struct;
using detail::WQ_BH;
using detail::WQ_CPU_INTENSIVE;
using detail::WQ_FREEZABLE;
using detail::WQ_HIGHPRI;
using detail::WQ_MEM_RECLAIM;
using detail::WQ_POWER_EFFICIENT;
using detail::WQ_SYSFS;
using detail::WQ_UNBOUND;

// Sequence counts and seqlocks (model/seqlock.hpp): writers make the count odd, readers retry.
using detail::done_seqretry;
using detail::need_seqretry;
using detail::raw_read_seqcount;
using detail::raw_read_seqcount_begin;
using detail::raw_seqcount_begin;
using detail::raw_write_seqcount_begin;
using detail::raw_write_seqcount_end;
using detail::read_seqbegin;
using detail::read_seqbegin_or_lock;
using detail::read_seqcount_begin;
using detail::read_seqcount_retry;
using detail::read_seqlock_excl;
using detail::read_seqretry;
using detail::read_sequnlock_excl;
using detail::seqcount_init;
using detail::seqcount_mutex_init;
using detail::seqcount_mutex_t;
using detail::seqcount_spinlock_init;
using detail::seqcount_spinlock_t;
using detail::seqcount_t;
using detail::seqlock_init;
using detail::seqlock_t;
using detail::write_seqcount_begin;
using detail::write_seqcount_end;
using detail::write_seqlock;
using detail::write_seqlock_bh;
using detail::write_seqlock_irq;
using detail::write_seqlock_irqsave;
using detail::write_sequnlock;
using detail::write_sequnlock_bh;
using detail::write_sequnlock_irq;
using detail::write_sequnlock_irqrestore;

// The VFS inode's locks, size and direct-I/O count (model/inode.hpp).
using detail::i_size_read;
using detail::i_size_write;
using detail::inode;
using detail::inode_dio_begin;
using detail::inode_dio_end;
using detail::inode_dio_wait;
using detail::inode_lock;
using detail::inode_lock_shared;
using detail::inode_unlock;
using detail::inode_unlock_shared;

} // namespace lockcheck
