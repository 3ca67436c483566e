// Checkpoints: an execution saved before one of its decisions (a pick or a model choice), to be
// restored in place for the next execution that makes the same decisions up to there, instead
// of replaying them from the start (issue 41). An execution's state is a set of byte ranges
// lockcheck knows (docs/scaling.md, "Checkpoints"): its arena up to the mark (the model's
// objects, the tasks, and with checkpoints the execution's own tables), the Execution object,
// each live fiber stack from its saved stack pointer up, and the race detector's clocks, which
// are the thread's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "race_detector.hpp"

namespace lockcheck::detail {

class Task;

// Bytes copied out and back: a buffer that grows and is reused, never zero-filled.
class Bytes {
  public:
    void assign(const void* from, std::size_t size);
    // Appends `size` bytes, returning where they start in the buffer.
    std::size_t append(const void* from, std::size_t size);
    void clear() { size_ = 0; }
    const char* data() const { return data_.get(); }
    std::size_t size() const { return size_; }

  private:
    void reserve(std::size_t size);
    std::unique_ptr<char[]> data_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

// The fewest steps between two checkpoints on one execution's path. Saving one (about 20 KB)
// takes as long as 5 to 15 steps, restoring one 3 to 5 (lockcheck-bench --only checkpoint):
// saved at every decision, most are never restored (DPOR comes back to few of them). The
// spacing is measured in docs/PERFORMANCE.md ("Checkpoints").
inline constexpr std::uint32_t kCheckpointSpacing = 8;

struct Checkpoint {
    Bytes arena; // the execution's arena, from its start to `arena_next`
    char* arena_next = nullptr;
    Bytes execution; // the Execution object itself
    struct StackPart {
        char* at; // a suspended fiber's stack, from its saved context up to its top
        std::size_t size;
        std::size_t offset; // in `stacks`
    };
    std::vector<StackPart> parts;
    Bytes stacks;
    RaceDetector::Saved races;
    Task* resumed = nullptr; // the task whose decision it comes before: it goes on from it
    std::uint32_t step = 0;  // the steps taken before it
    std::size_t started = 0; // tasks started then (those after it are not)
};

// A search's checkpoints, by the position of the decision each comes before (the strategy's
// count of picks and choices from the execution's start): positions along the current path
// only. Each thread running a search keeps its own; they are valid for one Execution object.
class Checkpoints {
  public:
    static constexpr std::uint32_t kNone = static_cast<std::uint32_t>(-1);
    bool holds(std::uint32_t position) const { return position < held_.size() && held_[position]; }
    // The slot for `position`, held from now on (it is filled before the execution goes on).
    Checkpoint& make(std::uint32_t position);
    const Checkpoint& at(std::uint32_t position) const { return *slots_[position]; }
    // Forgets those at `position` and past it: the next execution decides otherwise there.
    void forget_from(std::uint32_t position);
    // The deepest one held at `position` or before it; kNone if there is none.
    std::uint32_t deepest_up_to(std::uint32_t position) const;
    void clear() { held_.clear(); }

    std::uint64_t saved = 0; // checkpoints made

  private:
    std::vector<std::unique_ptr<Checkpoint>> slots_;
    std::vector<bool> held_;
};

} // namespace lockcheck::detail
