// The store of checkpoints (scheduler/checkpoint.hpp): which positions it holds as a search goes
// back and forth along its path. Whether a restored execution reports what a replayed one does
// is tests/checkpoints.sh's (the test binary keeps CppUTest's operator new, so its searches
// replay).
#include "CppUTest/TestHarness.h"
#include "scheduler/checkpoint.hpp"

using lockcheck::detail::Checkpoints;

TEST_GROUP(CheckpointStore){};

TEST(CheckpointStore, the_deepest_checkpoint_held_up_to_a_divergence_is_the_one_resumed) {
    Checkpoints store;
    for (std::uint32_t p : {1u, 4u, 9u})
        store.make(p);
    CHECK(store.holds(4));
    CHECK_FALSE(store.holds(3));
    LONGS_EQUAL(9, store.deepest_up_to(12));
    LONGS_EQUAL(4, store.deepest_up_to(8));
    LONGS_EQUAL(Checkpoints::kNone, store.deepest_up_to(0));
    // The next execution decides otherwise at 5: what lay past it is another path's.
    store.forget_from(6);
    CHECK_FALSE(store.holds(9));
    LONGS_EQUAL(4, store.deepest_up_to(12));
    LONGS_EQUAL(3, store.saved);
}

// A fresh execution clears the store; the slots stay for their buffers, and what is made after
// is held as before (it was not: clear() emptied the flags and a later make() set one past
// their end, so no checkpoint made after a search went back to its root was ever resumed).
TEST(CheckpointStore, checkpoints_made_after_a_clear_are_held) {
    Checkpoints store;
    for (std::uint32_t p = 1; p <= 20; ++p)
        store.make(p);
    store.clear();
    CHECK_FALSE(store.holds(7));
    LONGS_EQUAL(Checkpoints::kNone, store.deepest_up_to(20));
    store.make(7);
    store.make(18);
    CHECK(store.holds(7));
    CHECK(store.holds(18));
    LONGS_EQUAL(18, store.deepest_up_to(20));
    LONGS_EQUAL(7, store.deepest_up_to(17));
}
