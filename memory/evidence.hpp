// Evidence of independence: what the search saw tasks write under lkmm, and after reading what.
// A write that a task made the same way after reading two different values at one read does
// not depend on that read (docs/memory-model.md, "Load buffering"): linux-kernel.cat's
// dependencies then leave the pair out (Event::independent).
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lockcheck::detail::memory {

// A location as it is named in every execution (its object's number, not the graph's
// location, whose number depends on which task touched it first); kUnnamed: none is stable.
inline constexpr std::uint64_t kUnnamed = 0;

// A read of a task: where, and the value it read.
struct Seen {
    std::uint64_t loc = kUnnamed;
    std::int64_t value = 0;
    auto operator<=>(const Seen&) const = default;
};

// A write: the task's n-th write (from 0) of the location, and its value; `choices`, what the
// model chose in the task before it (a migration), as a hash, so that a write that depends on a
// choice and not on a read is never taken for one independent of the read.
struct Made {
    std::uint16_t task = 0;
    std::uint64_t loc = kUnnamed;
    std::uint32_t nth = 0;
    std::int64_t value = 0;
    std::uint64_t choices = 0;
    auto operator<=>(const Made&) const = default;
};

// What an lkmm execution asks of the rounds before it: which reads before a write the write is
// independent of, and which writes of a location a read may read before they are made (its
// future reads). `query` numbers the asks of each kind within one execution from 0, so that a
// replay in another process can be answered from a tape of the answers (Tape) instead of the
// search's whole record.
class Evidence {
  public:
    virtual ~Evidence() = default;
    // Bit k: the write does not depend on reads[size - 1 - k] (Event::independent).
    virtual std::uint64_t independent(std::uint32_t query, const Made& made,
                                      std::span<const Seen> reads) const = 0;
    // Whether any write is independent of a read before it: else no future read is offered.
    virtual bool independent_anywhere() const = 0;
    // The writes of location `loc` recorded, in order; the execution offers those its writer
    // has not made yet, and says which by offered().
    virtual std::span<const Made> writes_of(std::uint32_t query, std::uint64_t loc) const = 0;
    virtual void offered(std::uint32_t query, std::span<const Made> writes) const = 0;
};

// The search-wide record: each write made, with the reads its task made before it, in program
// order. At most kCap read histories per write are kept, the least ones (so the record is the
// same whatever order the executions ran in, on any number of threads).
class Catalogue final : public Evidence {
  public:
    static constexpr std::size_t kCap = 16;

    // Records `made` after `reads`; thread-safe.
    void record(const Made& made, std::span<const Seen> reads);
    // The reads of `reads` (the task's, before `made`) that `made` is independent of: bit k for
    // reads[size - 1 - k] (Event::independent), when the catalogue holds `made` after the same
    // reads but for that one, which read another value. Only the last 64 reads count.
    std::uint64_t independent(const Made& made, std::span<const Seen> reads) const;

    // Fixes the record at the end of its round (no record() after): whether some write was
    // recorded after reads that differ in one value only, and the writes of each location, are
    // worked out once.
    void freeze();
    // Evidence, after freeze().
    std::uint64_t independent(std::uint32_t, const Made& made,
                              std::span<const Seen> reads) const override {
        return independent(made, reads);
    }
    bool independent_anywhere() const override { return independent_anywhere_; }
    std::span<const Made> writes_of(std::uint32_t query, std::uint64_t loc) const override;
    void offered(std::uint32_t, std::span<const Made>) const override {}
    // The number of (write, reads) entries, and how many the cap left out.
    std::size_t size() const { return entries_; }
    std::uint64_t dropped() const { return dropped_; }
    bool operator==(const Catalogue& o) const { return writes_ == o.writes_; }
    // The writes recorded, in order, for reads of a write not made yet.
    const std::map<Made, std::set<std::vector<Seen>>>& writes() const { return writes_; }

  private:
    bool any_independent() const;

    std::mutex mutex_;
    std::map<Made, std::set<std::vector<Seen>>> writes_;
    std::size_t entries_ = 0;
    std::uint64_t dropped_ = 0;
    bool independent_anywhere_ = false;
    std::map<std::uint64_t, std::vector<Made>> by_location_;
};

// The answers one execution got from a round's evidence, recorded as a replay runs it
// (Recorder) and printed with its replay line, so that `--replay` in a fresh process runs the
// same execution without the search's record (`--evidence`).
class Tape final : public Evidence {
  public:
    // "m3=5,f0=1.0.1+2.0.-1": the independent() answers that were not 0 (query=mask, hex) and the
    // future reads offered (query=task.nth.value+...). Empty: no answer was anything.
    std::string format() const;
    // Parses format()'s text; on failure returns false and a one-line reason.
    static bool parse(std::string_view text, Tape& tape, std::string& error);

    std::uint64_t independent(std::uint32_t query, const Made&,
                              std::span<const Seen>) const override;
    bool independent_anywhere() const override { return true; }
    std::span<const Made> writes_of(std::uint32_t query, std::uint64_t loc) const override;
    void offered(std::uint32_t, std::span<const Made>) const override {}

  private:
    friend class Recorder;
    std::map<std::uint32_t, std::uint64_t> masks_;
    std::map<std::uint32_t, std::vector<Made>> futures_;
    mutable std::vector<Made> answer_; // writes_of()'s, with the location asked
};

// Evidence that answers as `inner` does and records the answers on a tape.
class Recorder final : public Evidence {
  public:
    explicit Recorder(const Evidence& inner) : inner_(inner) {}
    const Tape& tape() const { return tape_; }

    std::uint64_t independent(std::uint32_t query, const Made& made,
                              std::span<const Seen> reads) const override;
    bool independent_anywhere() const override { return inner_.independent_anywhere(); }
    std::span<const Made> writes_of(std::uint32_t query, std::uint64_t loc) const override {
        return inner_.writes_of(query, loc);
    }
    void offered(std::uint32_t query, std::span<const Made> writes) const override;

  private:
    const Evidence& inner_;
    mutable Tape tape_;
};

} // namespace lockcheck::detail::memory
