// The race detector's tables, grown as tasks spawn and objects register and handed from one
// execution to the next; the clocks catching up with the log of steps; the check of an access
// against the other tasks' last accesses of its variable.
//
// Why the log may start at the first access: whether an access at step k happens before a
// later one depends only on the steps from k on (a chain of synchronizations from one to the
// other), and the clocks computed from there, starting at zero, answer exactly that.
#include "race_detector.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <utility>

namespace lockcheck::detail {

thread_local std::vector<std::unique_ptr<RaceDetector::Tables>> RaceDetector::spare_tables_;
thread_local std::size_t RaceDetector::tables_made_ = 0;

RaceDetector::RaceDetector() {
    if (spare_tables_.empty()) {
        // Room to keep it when it is given back: the destructor allocates nothing.
        spare_tables_.reserve(++tables_made_);
        t_ = std::make_unique<Tables>();
        return;
    }
    t_ = std::move(spare_tables_.back());
    spare_tables_.pop_back();
    t_->task_clocks.clear();
    t_->sync_clocks.clear();
    t_->section_clocks.clear();
    t_->cpu_clocks.clear();
    t_->variable_ids.clear();
    t_->variable_of.clear();
    t_->seen.clear(); // `last` is read only where `seen` says: it keeps what it holds
}

RaceDetector::~RaceDetector() {
    spare_tables_.push_back(std::move(t_));
}

void RaceDetector::prepare_thread() {
    // Its first use registers its destructor with the C library, which allocates.
    spare_tables_.reserve(1);
}

void RaceDetector::reserve(std::size_t steps) {
    if (t_->log_capacity >= steps) return;
    t_->log.reset(new Entry[steps]);
    t_->log_capacity = steps;
}

namespace {
template <class Tables> void copy_clocks(const Tables& from, Tables& to) {
    to.task_clocks = from.task_clocks;
    to.sync_clocks = from.sync_clocks;
    to.section_clocks = from.section_clocks;
    to.cpu_clocks = from.cpu_clocks;
    to.variable_ids = from.variable_ids;
    to.variable_of = from.variable_of;
    to.last = from.last;
    to.seen = from.seen;
}
} // namespace

void RaceDetector::save(Saved& saved, std::uint32_t step) const {
    copy_clocks(*t_, saved.tables);
    if (log_ && step >= first_) saved.entry = log_[step - first_];
}

void RaceDetector::restore(const Saved& saved, std::uint32_t step) {
    copy_clocks(saved.tables, *t_);
    if (log_ && step >= first_) log_[step - first_] = saved.entry;
}

void RaceDetector::add_object(int id, ObjectKind kind) {
    // Tables are sized when the steps need them: a step of an object makes its clock as the
    // clocks catch up, an access of a variable indexes it.
    objects_ = static_cast<std::size_t>(id) + 1;
    if (kind == ObjectKind::variable) t_->variable_ids.push_back(id);
}

void RaceDetector::add_task(TaskId id, TaskId parent, std::uint32_t step) {
    const auto tasks = static_cast<std::size_t>(id) + 1;
    if (tasks > width_) widen(std::bit_ceil(tasks));
    t_->task_clocks.resize(tasks * width_, 0);
    t_->section_clocks.resize(tasks * width_, 0);
    if (parent == kNoTask || !log_) return; // nothing before the log can order an access
    catch_up(step);
    std::copy_n(clock_of(parent), width_, clock_of(id));
}

void RaceDetector::widen(std::size_t width) {
    // Each table's rows move to the new stride, last row first (over rows already moved).
    auto restride = [this, width](auto& table) {
        using T = typename std::decay_t<decltype(table)>::value_type;
        const std::size_t old = width_, rows = table.size() / old;
        table.resize(rows * width, T{});
        for (std::size_t r = rows; r-- > 0;) {
            auto at = [&table](std::size_t i) { return table.begin() + static_cast<long>(i); };
            std::copy_backward(at(r * old), at(r * old + old), at(r * width + old));
            std::fill(at(r * width + old), at(r * width + width), T{});
        }
    };
    restride(t_->task_clocks);
    restride(t_->sync_clocks);
    restride(t_->section_clocks);
    restride(t_->cpu_clocks);
    t_->last.resize(variables_ * kClasses * width_);
    restride(t_->last);
    width_ = width;
}

void RaceDetector::index_variables() {
    Tables& t = *t_;
    t.variable_of.resize(objects_, -1);
    for (; variables_ < t.variable_ids.size(); ++variables_)
        t.variable_of[static_cast<std::size_t>(t.variable_ids[variables_])] =
            static_cast<std::int32_t>(variables_);
    if (t.last.size() < variables_ * kClasses * width_)
        t.last.resize(variables_ * kClasses * width_);
    t.seen.resize(variables_ * kClasses, 0);
}

void RaceDetector::begin_access(TaskId task, std::uint32_t step, const Operation& op) {
    const auto id = static_cast<std::size_t>(op.obj->id());
    if (t_->variable_of.size() <= id) index_variables();
    const std::int32_t variable = id < t_->variable_of.size() ? t_->variable_of[id] : -1;
    if (variable < 0) return; // a data access of an object that is no variable: nothing to check
    if (!log_) {
        assert(step <= t_->log_capacity);
        log_ = t_->log.get();
        first_ = step;
        applied_ = step - 1;
    }
    pending_ = Pending{true,    !op.read_only, op.access == DataAccess::plain, task, variable, step,
                       op.name, op.location};
}

void RaceDetector::catch_up(std::uint32_t step) {
    t_->sync_clocks.resize((objects_ + 1) * width_, 0);
    for (; applied_ < step; ++applied_) {
        const Entry& e = log_[applied_ + 1 - first_];
        std::uint32_t* clock = clock_of(e.task);
        clock[e.task] = applied_ + 1;
        order_step(e, clock);
        // An entry or exit of a read-side section (declared by the operation, or made during
        // the step's code after it) releases into its task's section clock.
        if (e.read_side & read_side_change) [[unlikely]]
            std::copy_n(clock, width_, section_clock(e.task));
    }
}

void RaceDetector::order_step(const Entry& e, std::uint32_t* clock) {
    const std::size_t width = width_;
    // Plain and marked accesses order nothing; atomic ones do, as operations on their
    // variable's clock. Operations on no object, spin turns and global operations use the
    // execution-wide clock (row 0).
    if (e.access == DataAccess::plain || e.access == DataAccess::marked) {
        if (e.cpu_section) [[unlikely]]
            order_in_cpu_section(clock, e.cpu_section);
        return;
    }
    if (e.access == DataAccess::acquire || e.access == DataAccess::release) {
        // A release joins the task's clock into its variable's, an acquire the variable's
        // into the task's: only one direction each, unlike an atomic operation.
        std::uint32_t* row = sync_clock(static_cast<std::size_t>(e.obj->conflict_id()) + 1);
        std::uint32_t* to = e.access == DataAccess::acquire ? clock : row;
        const std::uint32_t* from = e.access == DataAccess::acquire ? row : clock;
        for (std::size_t i = 0; i < width; ++i)
            to[i] = std::max(to[i], from[i]);
        return;
    }
    if (e.read_side & read_side_census) [[unlikely]] {
        // After what every task did before it last entered or left its section.
        const std::uint32_t* row = t_->section_clocks.data();
        for (const std::uint32_t* end = row + t_->section_clocks.size(); row != end; row += width)
            for (std::size_t i = 0; i < width; ++i)
                clock[i] = std::max(clock[i], row[i]);
    }
    const bool own = e.obj && !e.fallback;
    std::uint32_t* rows[2] = {own ? sync_clock(static_cast<std::size_t>(e.obj->conflict_id()) + 1)
                                  : nullptr,
                              !own || e.global ? sync_clock(0) : nullptr};
    for (std::uint32_t* row : rows)
        if (row)
            for (std::size_t i = 0; i < width; ++i)
                clock[i] = std::max(clock[i], row[i]);
    // rcu_read_lock() and rcu_read_unlock() release only into their task's section clock.
    if (e.read_only || (e.read_side & read_side_entry) == read_side_entry) return;
    for (std::uint32_t* row : rows)
        if (row) std::copy_n(clock, width, row); // the clock is the join now
}

void RaceDetector::order_in_cpu_section(std::uint32_t* clock, std::uint16_t section) {
    const std::size_t width = width_;
    const auto [cpu, context, excludes] = unpack(section);
    const std::size_t rows = (cpu + 1) * kCpuContexts * kCpuContexts;
    if (t_->cpu_clocks.size() < rows * width) t_->cpu_clocks.resize(rows * width, 0);
    auto row = [&](std::size_t from, std::size_t to) {
        return &t_->cpu_clocks[((cpu * kCpuContexts + from) * kCpuContexts + to) * width];
    };
    // After the accesses from the contexts it keeps out whose sections keep its own out...
    for (std::size_t from = 0; from <= excludes; ++from) {
        const std::uint32_t* r = row(from, context);
        for (std::size_t i = 0; i < width; ++i)
            clock[i] = std::max(clock[i], r[i]);
    }
    // ... and before the later ones of the contexts it keeps out.
    for (std::size_t to = 0; to <= excludes; ++to) {
        std::uint32_t* r = row(context, to);
        for (std::size_t i = 0; i < width; ++i)
            r[i] = std::max(r[i], clock[i]);
    }
}

bool RaceDetector::check_access() {
    const Pending& a = pending_;
    const auto var = static_cast<std::size_t>(a.variable);
    Tables& t = *t_;
    const TaskSet* seen = &t.seen[var * kClasses];
    // The other tasks' conflicting accesses, at least one of the two plain.
    TaskSet candidates[kClasses] = {};
    TaskSet any = 0;
    for (int c = 0; c < kClasses; ++c) {
        const bool c_write = c == plain_write || c == marked_write;
        const bool c_plain = c == plain_write || c == plain_read;
        if ((a.write || c_write) && (a.plain || c_plain))
            any |= candidates[c] = seen[c] & ~task_bit(a.task);
    }
    if (any) {
        catch_up(a.step);
        // The latest one this step is not ordered after.
        const std::uint32_t* clock = clock_of(a.task);
        const Last* last = &t.last[var * kClasses * width_];
        bool found = false;
        for (int c = 0; c < kClasses; ++c) {
            for (TaskSet others = candidates[c]; others; others &= others - 1) {
                const TaskId u = lowest(others);
                const Last& l = last[static_cast<std::size_t>(c) * width_ + u];
                if (l.step <= clock[u] || (found && l.step <= race_.earlier.step)) continue;
                found = true;
                race_.earlier = Access{u,
                                       l.step,
                                       l.op,
                                       c == plain_write || c == marked_write,
                                       c == plain_write || c == plain_read,
                                       l.location};
            }
        }
        if (found) {
            race_.variable = t.variable_ids[var];
            race_.later = Access{a.task, a.step, a.op, a.write, a.plain, a.location};
            return true;
        }
    }
    const int mine =
        a.write ? (a.plain ? plain_write : marked_write) : (a.plain ? plain_read : marked_read);
    const std::size_t slot = var * kClasses + static_cast<std::size_t>(mine);
    t.last[slot * width_ + a.task] = Last{a.step, a.op, a.location};
    t.seen[slot] |= task_bit(a.task);
    return false;
}

} // namespace lockcheck::detail
