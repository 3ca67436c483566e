// struct percpu_ref: gets and puts on per-CPU counters while live, an atomic count once killed,
// the switch between them a step of its own after the kill (the grace period's callback), the
// release callback called once by the last put whichever CPUs the gets and puts ran on; the
// kernel's WARNs (a put too many, seen once the counters are summed; a second kill; a reinit
// of a ref still counting) and KASAN's use-after-free of an object its release freed. Under
// lkmm the release callback sees what every user wrote before its put.
#include <string>

#include "harness.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// A queue's usage counter, as blk-mq's q_usage_counter: users enter with tryget_live, the
// queue is frozen by killing it, and the release says it is frozen.
struct request_queue {
    struct percpu_ref q_usage_counter {
        "q_usage_counter"
    };
    shared<int> work0{"work0"};
    shared<int> work1{"work1"};
    shared<int> released{"released"};
    shared<int> confirmed{"confirmed"};
    wait_queue_head_t mq_freeze_wq{"mq_freeze_wq"};
};

void queue_usage_released(struct percpu_ref* ref) {
    auto* q = container_of(ref, &request_queue::q_usage_counter);
    check(q->work0.read() + q->work1.read() >= 0, "the users' work seen"); // plain reads
    WRITE_ONCE(q->released, READ_ONCE(q->released) + 1);
    wake_up_all(&q->mq_freeze_wq);
}

void queue_usage_confirmed(struct percpu_ref* ref) {
    auto* q = container_of(ref, &request_queue::q_usage_counter);
    check(!percpu_ref_tryget_live(ref), "tryget_live fails once the kill is confirmed");
    WRITE_ONCE(q->confirmed, 1);
}

SearchResult check_lkmm(const Setup& setup) {
    CheckOptions options;
    options.memory_model = MemoryModel::lkmm;
    return check_model(setup, options);
}

// Two users on two CPUs and a freeze on the first; `extra_put`: the second user puts twice.
Setup users_and_a_freeze(bool extra_put) {
    return [extra_put] {
        set_nr_cpus(2);
        request_queue& q = model_state<request_queue>();
        percpu_ref_init(&q.q_usage_counter, queue_usage_released, 0, 0);
        spawn_on(0, "user0", [&q] {
            if (!percpu_ref_tryget_live(&q.q_usage_counter)) return;
            q.work0.write(1);
            percpu_ref_put(&q.q_usage_counter);
        });
        spawn_on(1, "user1", [&q, extra_put] {
            if (!percpu_ref_tryget_live(&q.q_usage_counter)) return;
            q.work1.write(1);
            percpu_ref_put(&q.q_usage_counter);
            if (extra_put) percpu_ref_put(&q.q_usage_counter);
        });
        spawn_on(0, "freeze",
                 [&q] { percpu_ref_kill_and_confirm(&q.q_usage_counter, queue_usage_confirmed); });
        final_check("released once", [&q] { return q.released.peek() == 1; });
        final_check("kill confirmed", [&q] { return q.confirmed.peek() == 1; });
    };
}

} // namespace

TEST_GROUP(PercpuRef){};

TEST(PercpuRef, the_release_runs_once_after_the_last_put_on_any_cpu) {
    expect_verified_by_every_search(users_and_a_freeze(false), "freeze");
}

TEST(PercpuRef, under_lkmm_the_release_sees_what_every_user_wrote_before_its_put) {
    const SearchResult r = check_lkmm(users_and_a_freeze(false));
    expect_verified(r, "lkmm");
    CHECK(r.stats.executions > 1);
}

TEST(PercpuRef, a_put_too_many_is_the_kernels_warning_after_switching_to_atomic) {
    const SearchResult r = check_model(users_and_a_freeze(true));
    const Violation& v = only_violation(r);
    CHECK_EQUAL(ViolationKind::refcount, v.kind);
    CHECK_EQUAL("percpu-ref-underflow", v.property);
    CHECK_TEXT(contains(v.message, "percpu ref (q_usage_counter) <= 0 ("), v.message.c_str());
    CHECK_TEXT(contains(v.message, ") after switching to atomic"), v.message.c_str());
}

TEST(PercpuRef, killing_twice_is_the_kernels_warning) {
    const SearchResult r = check_model([] {
        request_queue& q = model_state<request_queue>();
        percpu_ref_init(&q.q_usage_counter, queue_usage_released, PERCPU_REF_INIT_ATOMIC, 0);
        spawn("t", [&q] {
            percpu_ref_get(&q.q_usage_counter);
            percpu_ref_kill(&q.q_usage_counter);
            percpu_ref_kill(&q.q_usage_counter);
        });
    });
    CHECK_EQUAL("percpu_ref_kill_and_confirm called more than once on q_usage_counter!",
                only_violation(r).message);
}

TEST(PercpuRef, an_object_freed_by_its_release_is_used_after_free_by_a_later_get) {
    struct obj {
        struct percpu_ref ref {
            "obj->ref"
        };
    };
    const SearchResult r = check_model([] {
        spawn("t", [] {
            obj* o = kmalloc<obj>("obj");
            percpu_ref_init(
                &o->ref, [](struct percpu_ref* ref) { kfree(container_of(ref, &obj::ref)); },
                PERCPU_REF_INIT_ATOMIC, 0);
            percpu_ref_put(&o->ref);
            percpu_ref_get(&o->ref);
        });
    });
    CHECK_EQUAL(ViolationKind::use_after_free, only_violation(r).kind);
}

TEST(PercpuRef, reinit_makes_a_released_ref_live_again_when_it_may) {
    std::string seen;
    // Each release's steps may come anywhere after it: DPOR runs one order of the independent ones.
    const SearchResult first = check_model(
        [&seen] {
            request_queue& q = model_state<request_queue>();
            percpu_ref_init(&q.q_usage_counter, queue_usage_released, PERCPU_REF_ALLOW_REINIT, 0);
            spawn("t", [&q, &seen] {
                struct percpu_ref* ref = &q.q_usage_counter;
                seen = std::to_string(percpu_ref_is_zero(ref));
                percpu_ref_kill(ref);
                seen += std::to_string(percpu_ref_tryget_live(ref));
                wait_event(q.mq_freeze_wq, percpu_ref_is_zero(ref)); // blk_mq_freeze_queue_wait()
                percpu_ref_reinit(ref);
                seen += std::to_string(percpu_ref_tryget_live(ref));
                percpu_ref_put(ref);
                percpu_ref_kill(ref);
                wait_event(q.mq_freeze_wq, percpu_ref_is_zero(ref));
                percpu_ref_exit(ref);
            });
        },
        Search::dpor, CheckOptions{});
    expect_verified(first);
    CHECK_EQUAL("001", seen);
    const SearchResult r = check_model([] {
        request_queue& q = model_state<request_queue>();
        percpu_ref_init(&q.q_usage_counter, queue_usage_released, 0, 0);
        spawn("t", [&q] {
            percpu_ref_kill(&q.q_usage_counter);
            wait_event(q.mq_freeze_wq, percpu_ref_is_zero(&q.q_usage_counter));
            percpu_ref_reinit(&q.q_usage_counter);
        });
    });
    CHECK_EQUAL("percpu-ref-no-percpu-counters", only_violation(r).property);
}

TEST(PercpuRef, exit_during_the_switch_and_a_get_after_exit_are_found) {
    const SearchResult during = check_model([] {
        request_queue& q = model_state<request_queue>();
        percpu_ref_init(&q.q_usage_counter, queue_usage_released, 0, 0);
        spawn("t", [&q] {
            percpu_ref_kill(&q.q_usage_counter);
            percpu_ref_exit(&q.q_usage_counter);
        });
    });
    CHECK_EQUAL("percpu-ref-exit-while-switching", only_violation(during).property);
    const SearchResult after = check_model([] {
        request_queue& q = model_state<request_queue>();
        percpu_ref_init(&q.q_usage_counter, queue_usage_released, PERCPU_REF_INIT_ATOMIC, 0);
        spawn("t", [&q] {
            percpu_ref_exit(&q.q_usage_counter);
            percpu_ref_get(&q.q_usage_counter);
        });
    });
    CHECK_EQUAL("percpu-ref-without-data", only_violation(after).property);
}
