// Building an execution graph event by event, and taking back the last event tried.
#include "graph.hpp"

#include <algorithm>
#include <cassert>

namespace lockcheck::detail::memory {

std::uint32_t Graph::append(const Event& e) {
    events_.push_back(e);
    return static_cast<std::uint32_t>(events_.size() - 1);
}

std::uint32_t Graph::add_location(std::int64_t init) {
    const auto loc = static_cast<std::uint32_t>(co_.size());
    const std::uint32_t e =
        append(Event{.kind = Kind::write, .tags = kInit, .loc = loc, .value = init});
    co_.push_back({e});
    return loc;
}

std::uint32_t Graph::add_read(std::uint16_t task, std::uint32_t loc, std::uint16_t tags,
                              std::uint32_t write, std::uint32_t step, std::int64_t value) {
    assert(write == kNone || (events_[write].kind == Kind::write && events_[write].loc == loc));
    return append(Event{.kind = Kind::read,
                        .tags = tags,
                        .task = task,
                        .loc = loc,
                        .value = write == kNone ? value : events_[write].value,
                        .rf = write,
                        .step = step});
}

std::uint32_t Graph::add_write(std::uint16_t task, std::uint32_t loc, std::uint16_t tags,
                               std::int64_t value, std::size_t co_position, std::uint32_t step) {
    const std::uint32_t e = append(Event{
        .kind = Kind::write, .tags = tags, .task = task, .loc = loc, .value = value, .step = step});
    auto& order = co_[loc];
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(co_position) + 1, e);
    return e;
}

std::uint32_t Graph::add_fence(std::uint16_t task, Fence fence, std::uint32_t step) {
    return append(Event{.kind = Kind::fence, .fence = fence, .task = task, .step = step});
}

void Graph::pop() {
    const Event& e = events_.back();
    if (e.kind == Kind::write) {
        auto& order = co_[e.loc];
        order.erase(std::find(order.begin(), order.end(), events_.size() - 1));
        if (e.is(kInit)) co_.pop_back();
    }
    events_.pop_back();
}

std::size_t Graph::co_position(std::uint32_t write) const {
    const auto& order = co_[events_[write].loc];
    return static_cast<std::size_t>(std::find(order.begin(), order.end(), write) - order.begin());
}

} // namespace lockcheck::detail::memory
