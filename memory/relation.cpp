// The relation operators over bit matrices: a row per event, a bit per event it relates to.
#include "relation.hpp"

#include <cassert>

namespace lockcheck::memory {

namespace {
// a[i] = a[i] op b[i], word by word: the set and relation operators share it.
template <class Op>
std::vector<std::uint64_t> combine(std::vector<std::uint64_t> a,
                                   const std::vector<std::uint64_t>& b, Op op) {
    for (std::size_t i = 0; i < a.size(); ++i)
        a[i] = op(a[i], b[i]);
    return a;
}
constexpr auto kOr = [](std::uint64_t x, std::uint64_t y) { return x | y; };
constexpr auto kAnd = [](std::uint64_t x, std::uint64_t y) { return x & y; };
constexpr auto kMinus = [](std::uint64_t x, std::uint64_t y) { return x & ~y; };
} // namespace

EventSet EventSet::operator|(const EventSet& o) const {
    EventSet r(n_);
    r.bits_ = combine(bits_, o.bits_, kOr);
    return r;
}

EventSet EventSet::operator&(const EventSet& o) const {
    EventSet r(n_);
    r.bits_ = combine(bits_, o.bits_, kAnd);
    return r;
}

EventSet EventSet::operator-(const EventSet& o) const {
    EventSet r(n_);
    r.bits_ = combine(bits_, o.bits_, kMinus);
    return r;
}

Relation Relation::product(const EventSet& s, const EventSet& t) {
    Relation r(s.size());
    for (std::size_t a = 0; a < s.size(); ++a)
        if (s.has(a))
            for (std::size_t w = 0; w < r.words_; ++w)
                r.row(a)[w] = t.bits_[w];
    return r;
}

void Relation::add_row(std::size_t a, const EventSet& s) {
    std::uint64_t* out = row(a);
    for (std::size_t w = 0; w < words_; ++w)
        out[w] |= s.bits_[w];
}

bool Relation::empty() const {
    for (std::uint64_t w : bits_)
        if (w) return false;
    return true;
}

Relation Relation::operator|(const Relation& o) const {
    assert(n_ == o.n_);
    Relation r(n_);
    r.bits_ = combine(bits_, o.bits_, kOr);
    return r;
}

Relation Relation::operator&(const Relation& o) const {
    Relation r(n_);
    r.bits_ = combine(bits_, o.bits_, kAnd);
    return r;
}

Relation Relation::operator-(const Relation& o) const {
    Relation r(n_);
    r.bits_ = combine(bits_, o.bits_, kMinus);
    return r;
}

Relation Relation::then(const Relation& s) const {
    Relation r(n_);
    for (std::size_t a = 0; a < n_; ++a) {
        std::uint64_t* out = r.row(a);
        const std::uint64_t* in = row(a);
        for (std::size_t w = 0; w < words_; ++w)
            for (std::uint64_t bits = in[w]; bits; bits &= bits - 1) {
                const std::size_t b = w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
                const std::uint64_t* next = s.row(b);
                for (std::size_t k = 0; k < words_; ++k)
                    out[k] |= next[k];
            }
    }
    return r;
}

Relation Relation::from(const EventSet& s) const {
    Relation r = *this;
    for (std::size_t a = 0; a < n_; ++a)
        if (!s.has(a))
            for (std::size_t w = 0; w < words_; ++w)
                r.row(a)[w] = 0;
    return r;
}

Relation Relation::to(const EventSet& s) const {
    Relation r = *this;
    for (std::size_t a = 0; a < n_; ++a)
        for (std::size_t w = 0; w < words_; ++w)
            r.row(a)[w] &= s.bits_[w];
    return r;
}

Relation Relation::optional() const {
    Relation r = *this;
    for (std::size_t e = 0; e < n_; ++e)
        r.add(e, e);
    return r;
}

Relation Relation::plus() const {
    // Warshall's algorithm, a row at a time: whoever reaches k reaches what k reaches.
    Relation r = *this;
    for (std::size_t k = 0; k < n_; ++k) {
        const std::uint64_t* via = r.row(k);
        for (std::size_t a = 0; a < n_; ++a)
            if (r.has(a, k)) {
                std::uint64_t* out = r.row(a);
                for (std::size_t w = 0; w < words_; ++w)
                    out[w] |= via[w];
            }
    }
    return r;
}

Relation Relation::star() const {
    return plus().optional();
}

Relation Relation::without_identity() const {
    Relation r = *this;
    for (std::size_t e = 0; e < n_; ++e)
        r.row(e)[e / 64] &= ~(std::uint64_t{1} << (e % 64));
    return r;
}

bool Relation::acyclic() const {
    // Kahn's algorithm: repeatedly remove an event nothing left points to. Edges are visited
    // through the set bits of each row only.
    std::vector<std::uint32_t> indegree(n_, 0);
    auto each_successor = [this](std::size_t a, auto&& f) {
        const std::uint64_t* in = row(a);
        for (std::size_t w = 0; w < words_; ++w)
            for (std::uint64_t bits = in[w]; bits; bits &= bits - 1)
                f(w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits)));
    };
    for (std::size_t a = 0; a < n_; ++a)
        each_successor(a, [&](std::size_t b) { ++indegree[b]; });
    std::vector<std::size_t> ready;
    for (std::size_t e = 0; e < n_; ++e)
        if (indegree[e] == 0) ready.push_back(e);
    std::size_t removed = 0;
    while (!ready.empty()) {
        const std::size_t a = ready.back();
        ready.pop_back();
        ++removed;
        each_successor(a, [&](std::size_t b) {
            if (--indegree[b] == 0) ready.push_back(b);
        });
    }
    return removed == n_;
}

} // namespace lockcheck::memory
