// struct completion: a counted "done" event; wait_for_completion sleeps until done > 0.
#pragma once

#include <climits>

#include "task.hpp"

namespace lockcheck::detail {

struct completion final : Object {
    explicit completion(std::string name) : Object(std::move(name)) {}
    void describe(std::string& out) const override;
    void fingerprint(StateHasher& h) const override { h.add(done); }

    unsigned done = 0; // UINT_MAX after complete_all: every waiter passes
};

void init_completion(struct completion* x,
                     std::source_location loc = std::source_location::current());
void reinit_completion(struct completion* x,
                       std::source_location loc = std::source_location::current());
void wait_for_completion(struct completion* x,
                         std::source_location loc = std::source_location::current());
// True if it consumed a completion without sleeping.
bool try_wait_for_completion(struct completion* x,
                             std::source_location loc = std::source_location::current());
bool completion_done(struct completion* x,
                     std::source_location loc = std::source_location::current());
void complete(struct completion* x, std::source_location loc = std::source_location::current());
void complete_all(struct completion* x, std::source_location loc = std::source_location::current());

} // namespace lockcheck::detail
