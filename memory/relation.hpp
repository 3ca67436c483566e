// EventSet and Relation: sets of events and binary relations over the events of one execution
// graph, as bit matrices, with the operators a cat model is written in (union, intersection,
// sequence, closure). The LKMM check (lkmm.hpp) spells the kernel's linux-kernel.cat
// with them, line for line, so that a reader can hold the two side by side.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lockcheck::detail::memory {

class EventSet {
  public:
    explicit EventSet(std::size_t n = 0) : n_(n), bits_((n + 63) / 64, 0) {}
    std::size_t size() const { return n_; }
    bool has(std::size_t e) const { return (bits_[e / 64] >> (e % 64)) & 1; }
    void add(std::size_t e) { bits_[e / 64] |= std::uint64_t{1} << (e % 64); }
    EventSet operator|(const EventSet& o) const;
    EventSet operator&(const EventSet& o) const;
    EventSet operator-(const EventSet& o) const; // the cat model's `\`
    const std::vector<std::uint64_t>& words() const { return bits_; }

  private:
    friend class Relation;
    std::size_t n_;
    std::vector<std::uint64_t> bits_;
};

class Relation {
  public:
    explicit Relation(std::size_t n = 0) : n_(n), words_((n + 63) / 64), bits_(n * words_, 0) {}
    // S * T: every pair of an event of S and one of T.
    static Relation product(const EventSet& s, const EventSet& t);

    std::size_t size() const { return n_; }
    bool has(std::size_t a, std::size_t b) const { return (row(a)[b / 64] >> (b % 64)) & 1; }
    void add(std::size_t a, std::size_t b) { row(a)[b / 64] |= std::uint64_t{1} << (b % 64); }
    // a relates to every event of s, besides what it related to.
    void add_row(std::size_t a, const EventSet& s);
    bool empty() const;

    // Each operator that makes a new relation from this one also has a form for a temporary,
    // which it changes in place and returns: a chain such as po.from(S).to(T) | r allocates one
    // matrix, not one per operator.
    Relation operator|(const Relation& o) const& { return Relation(*this) | o; }
    Relation operator|(const Relation& o) &&;
    Relation operator&(const Relation& o) const& { return Relation(*this) & o; }
    Relation operator&(const Relation& o) &&;
    Relation operator-(const Relation& o) const& { return Relation(*this) - o; } // `\`
    Relation operator-(const Relation& o) &&;
    // r ; s
    Relation then(const Relation& s) const;
    // r ; s? and r ; s*, without the identity pairs that would make s dense: r | r ; s and
    // r | r ; s+.
    Relation then_optional(const Relation& s) const;
    Relation then_star(const Relation& s) const;
    // [S] ; r and r ; [S]
    Relation from(const EventSet& s) const& { return Relation(*this).from(s); }
    Relation from(const EventSet& s) &&;
    Relation to(const EventSet& s) const& { return Relation(*this).to(s); }
    Relation to(const EventSet& s) &&;
    Relation optional() const& { return Relation(*this).optional(); } // r? : r | id
    Relation optional() &&;
    Relation plus() const;                                                            // r+
    Relation star() const;                                                            // r*
    Relation without_identity() const& { return Relation(*this).without_identity(); } // r \ id
    Relation without_identity() &&;
    Relation inverse() const; // r^-1
    bool acyclic() const;
    // Fills `order` with the events such that each comes before all it relates to; false if
    // the relation has a cycle (then `order` holds only the events outside every cycle's
    // reach).
    bool topological_order(std::vector<std::uint32_t>& order) const;

  private:
    // f(b) for each b that a relates to, visiting only the set bits of a's row.
    template <class F> void each_successor(std::size_t a, F&& f) const {
        const std::uint64_t* in = row(a);
        for (std::size_t w = 0; w < words_; ++w)
            for (std::uint64_t bits = in[w]; bits; bits &= bits - 1)
                f(w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits)));
    }
    // Row a |= the row `in` (words_ words).
    void or_row(std::size_t a, const std::uint64_t* in);
    std::uint64_t* row(std::size_t a) { return bits_.data() + a * words_; }
    const std::uint64_t* row(std::size_t a) const { return bits_.data() + a * words_; }

    std::size_t n_;
    std::size_t words_;
    std::vector<std::uint64_t> bits_;
};

} // namespace lockcheck::detail::memory
