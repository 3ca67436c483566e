// Saving an execution before a decision and going on from there later (checkpoint.hpp): the
// byte copies, the store, and Execution's side of it, the switch to the main context that
// saves and the restore in place that resumes.
#include "checkpoint.hpp"

#include <algorithm>
#include <cstring>

#include <valgrind/memcheck.h>

#include "execution.hpp"

namespace lockcheck::detail {

void Bytes::reserve(std::size_t size) {
    if (size <= capacity_) return;
    const std::size_t capacity = std::max(size, 2 * capacity_);
    auto grown = std::make_unique_for_overwrite<char[]>(capacity);
    if (size_) std::memcpy(grown.get(), data_.get(), size_);
    data_ = std::move(grown);
    capacity_ = capacity;
}

void Bytes::assign(const void* from, std::size_t size) {
    size_ = 0;
    append(from, size);
}

std::size_t Bytes::append(const void* from, std::size_t size) {
    reserve(size_ + size);
    std::memcpy(data_.get() + size_, from, size);
    const std::size_t at = size_;
    size_ += size;
    return at;
}

Checkpoint& Checkpoints::make(std::uint32_t position) {
    // clear() keeps the slots, and their buffers, for the next ones.
    if (position >= slots_.size()) slots_.resize(position + 1);
    if (position >= held_.size()) held_.resize(position + 1, false);
    if (!slots_[position]) slots_[position] = std::make_unique<Checkpoint>();
    held_[position] = true;
    ++saved;
    return *slots_[position];
}

void Checkpoints::forget_from(std::uint32_t position) {
    for (std::size_t p = position; p < held_.size(); ++p)
        held_[p] = false;
}

std::uint32_t Checkpoints::deepest_up_to(std::uint32_t position) const {
    for (std::size_t p = std::min<std::size_t>(position + 1, held_.size()); p-- > 0;)
        if (held_[p]) return static_cast<std::uint32_t>(p);
    return kNone;
}

void Execution::offer_checkpoint() {
    Checkpoints& store = *limits_.checkpoints;
    const std::uint32_t position = strategy_.position();
    // Only where every byte the execution's future depends on is one the checkpoint copies:
    // no exception held by the C++ runtime for a task (drops_tasks()).
    if (position == Checkpoints::kNone || store.holds(position) || unwinding_ || !drops_tasks())
        return;
    // Copying an execution costs what several steps do: not closer than kCheckpointSpacing to
    // the last checkpoint on the path (a restored execution keeps the step of its own).
    if (saved_step_ != 0 && step_ < saved_step_ + kCheckpointSpacing) return;
    saved_step_ = std::max<std::uint32_t>(step_, 1);
    Task* const self = fiber_;
    asker_ = self;
    asked_at_ = position;
    // The main context saves, every fiber suspended, and switches back here.
    switch_to(&self->context_, nullptr);
}

void Execution::wait_for_tasks(Task* next) {
    for (;;) {
        main_waiting_ = true;
        switch_to(&main_context_, next);
        main_waiting_ = false;
        if (!asker_) return; // the execution is over
        next = asker_;
        asker_ = nullptr;
        const CheckerMemory search(*this); // the checkpoints are the search's
        save(limits_.checkpoints->make(asked_at_), *next);
    }
}

void Execution::save(Checkpoint& cp, Task& asker) {
    Arena& arena = *arena_.arena;
    cp.arena_next = arena.mark();
    cp.arena.assign(arena_.mark, static_cast<std::size_t>(cp.arena_next - arena_.mark));
    cp.execution.assign(static_cast<const void*>(this), sizeof(Execution));
    cp.parts.clear();
    cp.stacks.clear();
    for (std::size_t i = 0; i < started_; ++i) {
        const Task& t = *tasks_[i];
        // A finished task is never resumed, but the one asking may be finishing (its fiber
        // picks the next task as it leaves).
        if ((t.finished_ && &t != &asker) || !t.context_) continue;
        char* const from = static_cast<char*>(t.context_);
        const auto size = static_cast<std::size_t>(static_cast<char*>(t.stack_.top) - from);
        cp.parts.push_back({from, size, cp.stacks.append(from, size)});
    }
    races_.save(cp.races, step_);
    cp.resumed = &asker;
    cp.started = started_;
    cp.step = step_;
}

Outcome Execution::resume(std::uint32_t position) {
    const Checkpoint& cp = limits_.checkpoints->at(position);
    // The checkpoint comes before the execution that just ended, on its path: the tasks it had
    // started then are the same, with the same stacks; those started since give theirs back.
    for (std::size_t i = cp.started; i < started_; ++i)
        if (tasks_[i]->stack_.top) stacks_.release(tasks_[i]->stack_);
    arena_.arena->restore(cp.arena_next);
    std::memcpy(arena_.mark, cp.arena.data(), cp.arena.size());
    std::memcpy(static_cast<void*>(this), cp.execution.data(), sizeof(Execution));
    for (const Checkpoint::StackPart& part : cp.parts) {
        // Below where its fiber last left it, valgrind takes a stack's bytes for dead ones.
        VALGRIND_MAKE_MEM_UNDEFINED(part.at, part.size);
        std::memcpy(part.at, cp.stacks.data() + part.offset, part.size);
    }
    races_.restore(cp.races, step_);
    // What was saved mid-switch: the search's memory while saving, the task that asked.
    checker_memory_ = false;
    asker_ = nullptr;
    return go(cp.resumed);
}

} // namespace lockcheck::detail
