// The split search of split_schedules.hpp: a strategy that logs what it runs, and a
// BetweenExecutions that splits it.
#include "split_schedules.hpp"

#include <list>

#include "checker/explore_loop.hpp"

#include <CppUTest/TestHarness.h>

namespace lockcheck::detail::testing {

namespace {

// Forwards to a strategy and logs the schedule of every execution it runs; what it hands over
// logs into the same list.
class Logged final : public Strategy {
  public:
    Logged(std::unique_ptr<Strategy> inner, std::vector<Schedule>& log)
        : inner_(std::move(inner)), log_(log) {}
    TaskId pick(std::uint32_t step, TaskSet enabled, const Execution& ex) override {
        return record(inner_->pick(step, enabled, ex));
    }
    std::uint32_t choose(std::uint32_t step, std::uint32_t n) override {
        return record(inner_->choose(step, n));
    }
    void end(const Execution& ex) override {
        inner_->end(ex);
        log_.push_back(std::move(current_));
        current_.clear();
    }
    bool next_execution() override { return inner_->next_execution(); }
    bool splits() const override { return inner_->splits(); }
    Handoff split() override {
        Handoff h = inner_->split();
        if (h.part) h.part = std::make_unique<Logged>(std::move(h.part), log_);
        return h;
    }
    bool resume(Strategy& part) override {
        return inner_->resume(*dynamic_cast<Logged&>(part).inner_);
    }

  private:
    std::uint32_t record(std::uint32_t value) {
        current_.push_back(value);
        return value;
    }
    std::unique_ptr<Strategy> inner_;
    std::vector<Schedule>& log_;
    Schedule current_;
};

// A part of a search: a strategy handed over, or the rest of one that resumes after `after`.
struct Part {
    std::unique_ptr<Strategy> owned;
    Strategy* strategy;
    Strategy* after = nullptr;
};

// Splits the strategy after every `every` executions, the part it hands over next in line and
// the strategy's rest after it if it resumes.
class SplitEvery final : public BetweenExecutions {
  public:
    using Parts = std::list<Part>;
    SplitEvery(Parts& parts, Parts::iterator at, unsigned every)
        : parts_(parts), at_(at), every_(every) {}
    bool go_on(const SearchResult& so_far, Strategy& strategy) override {
        if (so_far.stats.executions % every_ != 0) return true;
        if (Handoff h = strategy.split(); h.part) {
            CHECK(h.share > 0 && h.share <= 1);
            Strategy* handed = h.part.get();
            const auto next = parts_.insert(std::next(at_), Part{std::move(h.part), handed});
            if (h.resumes) parts_.insert(std::next(next), Part{nullptr, &strategy, handed});
            ++splits;
        }
        return true;
    }
    unsigned splits = 0;

  private:
    Parts& parts_;
    Parts::iterator at_;
    unsigned every_;
};

} // namespace

std::pair<std::vector<Schedule>, unsigned>
split_schedules(const Setup& setup, std::unique_ptr<Strategy> root, unsigned every) {
    CheckOptions options;
    options.keep_going = true;
    StackPool stacks(options.stack_size);
    std::vector<Schedule> log;
    SplitEvery::Parts parts;
    auto logged = std::make_unique<Logged>(std::move(root), log);
    Strategy* first = logged.get();
    parts.push_back(Part{std::move(logged), first});
    unsigned splits = 0;
    for (auto it = parts.begin(); it != parts.end(); ++it) {
        if (it->after && !it->strategy->resume(*it->after)) continue;
        SplitEvery between(parts, it, every ? every : ~0u);
        SearchResult result;
        (void)run_executions(setup, *it->strategy, options, stacks, result, between);
        splits += between.splits;
    }
    return {log, splits};
}

} // namespace lockcheck::detail::testing
