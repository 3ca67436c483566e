// Evidence of independence: what the search saw tasks write under lkmm, and after reading what.
// A write that a task made the same way after reading two different values at one read does
// not depend on that read (docs/memory-model.md, "Load buffering"): linux-kernel.cat's
// dependencies then leave the pair out (Event::independent).
#pragma once

#include <atomic>
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

// A task's n-th read (from 0) of a location: where a read ahead may be offered.
struct Reader {
    std::uint16_t task = 0;
    std::uint64_t loc = kUnnamed;
    std::uint32_t nth = 0;
    auto operator<=>(const Reader&) const = default;
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
    // The writes `reader` may read before they are made, in order (Catalogue::may_read_ahead());
    // the execution offers those its writer has not made yet, and says which by offered().
    virtual std::span<const Made> reads_ahead(std::uint32_t query, const Reader& reader) const = 0;
    virtual void offered(std::uint32_t query, std::span<const Made> writes) const = 0;
};

// The search-wide record: each write made, with the reads its task made before it, in program
// order. At most kCap read histories per write are kept, the least ones (so the record is the
// same whatever order the executions ran in, on any number of threads). With it, what tells
// whether another round can find anything the round did not: the reads that could have read
// a write ahead, and whether a dependency ever decided what LKMM allowed.
class Catalogue final : public Evidence {
  public:
    static constexpr std::size_t kCap = 16;

    // Records `made` after `reads`; thread-safe.
    void record(const Made& made, std::span<const Seen> reads);
    // The reads of `reads` (the task's, before `made`) that `made` is independent of: bit k for
    // reads[size - 1 - k] (Event::independent), when the catalogue holds `made` after the same
    // reads but for that one, which read another value. Only the last 64 reads count.
    std::uint64_t independent(const Made& made, std::span<const Seen> reads) const;
    // `reader` came before `made` in po | rf, read another value, and LKMM, were no write
    // dependent on a read, would allow it to read `made`: a cycle a read ahead could close.
    // Thread-safe, as knows_read_ahead().
    void may_read_ahead(const Reader& reader, const Made& made);
    bool knows_read_ahead(const Reader& reader, const Made& made) const;
    // A check of LKMM came out otherwise than it would have with no dependencies: marking
    // writes independent may change what a round explores even with no read ahead.
    void dependencies_decided() { decided_by_dependencies_.store(true, std::memory_order_relaxed); }
    bool decided_by_dependencies() const {
        return decided_by_dependencies_.load(std::memory_order_relaxed);
    }

    // Fixes the record at the end of its round (nothing recorded after): whether some write was
    // recorded after reads that differ in one value only is worked out once.
    void freeze();
    // Evidence, after freeze().
    std::uint64_t independent(std::uint32_t, const Made& made,
                              std::span<const Seen> reads) const override {
        return independent(made, reads);
    }
    // Whether any write is independent of a read before it (after freeze()).
    bool independent_anywhere() const { return independent_anywhere_; }
    std::span<const Made> reads_ahead(std::uint32_t query, const Reader& reader) const override;
    void offered(std::uint32_t, std::span<const Made>) const override {}
    // Whether a round with this evidence may explore what the round that recorded it did not:
    // a read could have read a write ahead, or a dependency decided a check where some write
    // was seen independent of a read. After freeze().
    bool another_round_may_differ() const {
        return !ahead_.empty() || (independent_anywhere_ && decided_by_dependencies());
    }
    // The number of (write, reads) entries, and how many the cap left out.
    std::size_t size() const { return entries_; }
    std::uint64_t dropped() const { return dropped_; }
    // How many (read, write) pairs may_read_ahead() recorded.
    std::size_t reads_ahead_count() const;
    bool operator==(const Catalogue& o) const {
        return writes_ == o.writes_ && ahead_ == o.ahead_ &&
               decided_by_dependencies() == o.decided_by_dependencies();
    }
    // The writes recorded, in order, for reads of a write not made yet.
    const std::map<Made, std::set<std::vector<Seen>>>& writes() const { return writes_; }

  private:
    bool any_independent() const;

    mutable std::mutex mutex_;
    std::map<Made, std::set<std::vector<Seen>>> writes_;
    std::size_t entries_ = 0;
    std::uint64_t dropped_ = 0;
    bool independent_anywhere_ = false;
    std::map<Reader, std::vector<Made>> ahead_; // sorted, without repeats
    std::atomic<bool> decided_by_dependencies_ = false;
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
    std::span<const Made> reads_ahead(std::uint32_t query, const Reader& reader) const override;
    void offered(std::uint32_t, std::span<const Made>) const override {}

  private:
    friend class Recorder;
    std::map<std::uint32_t, std::uint64_t> masks_;
    std::map<std::uint32_t, std::vector<Made>> futures_;
    mutable std::vector<Made> answer_; // reads_ahead()'s, with the location asked
};

// Evidence that answers as `inner` does and records the answers on a tape.
class Recorder final : public Evidence {
  public:
    explicit Recorder(const Evidence& inner) : inner_(inner) {}
    const Tape& tape() const { return tape_; }

    std::uint64_t independent(std::uint32_t query, const Made& made,
                              std::span<const Seen> reads) const override;
    std::span<const Made> reads_ahead(std::uint32_t query, const Reader& reader) const override {
        return inner_.reads_ahead(query, reader);
    }
    void offered(std::uint32_t query, std::span<const Made> writes) const override;

  private:
    const Evidence& inner_;
    mutable Tape tape_;
};

} // namespace lockcheck::detail::memory
