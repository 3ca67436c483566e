// struct timer_list and the timer API (include/linux/timer.h, kernel/time/timer.c). Time is
// abstract: an armed timer expires at any later step, its callback run in TIMER_SOFTIRQ on the
// CPU that armed it (model/irq.hpp), one expiry a softirq run, under the timer's lockdep map
// as call_timer_fn() holds it; del_timer_sync() passes through that map first, so calling it
// with a lock the callback takes, or from the callback, is lockdep's report from any execution
// in which both happened.
//
// An armed timer expires before the execution ends, as it would in the kernel, where time
// passes: a model that arms one and never deletes it sees its callback run. A callback that
// re-arms its own timer makes it periodic; it would run for ever, so a periodic timer expires
// again only once another task (not an idle interrupt context) took a step since it last did,
// and does not keep the execution going: once every other task has finished, the execution
// ends with it armed. So a self-re-arming timer ends the search, and every expiry that can
// interleave with the model's tasks is tried.
#pragma once

#include <cstdint>
#include <source_location>

#include "container_of.hpp"
#include "lockdep.hpp"

namespace lockcheck::detail {

struct timer_list final : Object {
    // `name` stands for the kernel's stringified timer ("fs->timer"): its lockdep class is
    // "(name)", shared by every timer of that name, as the key of one timer_setup() call site.
    explicit timer_list(std::string name);
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override;
    // del_timer_sync() waits for the context that runs the callback.
    const Task* holder() const override { return running; }
    // Shares conflicts with `other`, whose operations change this timer (a delayed work's).
    void conflicts_with(const Object& other) { conflicts_as(other); }

    void (*function)(timer_list*) = nullptr;
    unsigned flags = 0;
    struct lockdep_map lockdep_map;
    bool armed = false;    // timer_pending()
    bool periodic = false; // armed by its own callback (see above)
    bool shut_down = false;
    int cpu = 0;                   // the CPU it was armed on, whose softirq runs it
    const Task* running = nullptr; // the context running its callback now
    std::uint32_t expired_at = 0;  // the step of its last expiry
};

enum : unsigned {
    TIMER_DEFERRABLE = 0x00080000,
    TIMER_PINNED = 0x00200000,
    TIMER_IRQSAFE = 0x00400000
};

// Time is abstract: expiry times are taken and ignored, so kernel code reads as it is written
// (mod_timer(&t, jiffies + HZ)).
inline constexpr unsigned long jiffies = 0;
inline constexpr unsigned long HZ = 100;

// Set-up or task code; no scheduling point. The first timer_setup() of an execution opens
// TIMER_SOFTIRQ (a softirq context a CPU): call set_nr_cpus() before it.
void timer_setup(timer_list* timer, void (*callback)(timer_list*), unsigned flags);
// from_timer(fs, t, &fs_struct::timer): the object whose member `timer` t is, as the kernel's
// macro (its first argument, the variable being set, only names the type: by reference, so
// that naming it reads nothing).
template <class Type> Type* from_timer(Type*&, timer_list* timer, timer_list Type::*member) {
    return container_of(timer, member);
}

// Each one scheduling point on the timer. mod_timer() returns whether it was armed, and arms it
// on the running task's CPU (but not once timer_shutdown_sync() ran); add_timer() of an armed
// timer is the kernel's WARN and arms nothing.
int mod_timer(timer_list* timer, unsigned long expires,
              std::source_location loc = std::source_location::current());
void add_timer(timer_list* timer, std::source_location loc = std::source_location::current());
// Disarm; return whether it was armed. The _sync forms then wait for a running callback.
int timer_delete(timer_list* timer, std::source_location loc = std::source_location::current());
int del_timer(timer_list* timer, std::source_location loc = std::source_location::current());
int timer_delete_sync(timer_list* timer,
                      std::source_location loc = std::source_location::current());
int del_timer_sync(timer_list* timer, std::source_location loc = std::source_location::current());
// timer_delete_sync(), after which arming the timer does nothing.
int timer_shutdown_sync(timer_list* timer,
                        std::source_location loc = std::source_location::current());
bool timer_pending(const timer_list* timer,
                   std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
