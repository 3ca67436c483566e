// struct rw_semaphore: many readers or one writer, both sleeping. A reader blocks only while
// a writer holds the semaphore (the kernel's writer-preference queueing is abstracted away).
#pragma once

#include "lockdep.hpp"
#include "rw_holders.hpp"

namespace lockcheck::detail {

struct rw_semaphore final : rw_holders {
    explicit rw_semaphore(std::string name) : rw_holders(name), dep_map(name) { unwatched(); }

    lockdep_map dep_map;
};

void down_read(struct rw_semaphore* sem,
               std::source_location loc = std::source_location::current());
void up_read(struct rw_semaphore* sem, std::source_location loc = std::source_location::current());
void down_write(struct rw_semaphore* sem,
                std::source_location loc = std::source_location::current());
void down_read_nested(struct rw_semaphore* sem, int subclass,
                      std::source_location loc = std::source_location::current());
void down_write_nested(struct rw_semaphore* sem, int subclass,
                       std::source_location loc = std::source_location::current());
void up_write(struct rw_semaphore* sem, std::source_location loc = std::source_location::current());
// 1 if taken, 0 otherwise; never block.
int down_read_trylock(struct rw_semaphore* sem,
                      std::source_location loc = std::source_location::current());
int down_write_trylock(struct rw_semaphore* sem,
                       std::source_location loc = std::source_location::current());
// Turns the caller's write hold into a read hold, letting other readers in.
void downgrade_write(struct rw_semaphore* sem,
                     std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
