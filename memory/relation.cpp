// The relation operators over bit matrices: a row per event, a bit per event it relates to.
#include "relation.hpp"

#include <cassert>
#include <utility>

namespace lockcheck::detail::memory {

namespace {
// a[i] = a[i] op b[i], word by word: the set and relation operators share it.
template <class Op>
void combine(std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b, Op op) {
    for (std::size_t i = 0; i < a.size(); ++i)
        a[i] = op(a[i], b[i]);
}
constexpr auto kOr = [](std::uint64_t x, std::uint64_t y) { return x | y; };
constexpr auto kAnd = [](std::uint64_t x, std::uint64_t y) { return x & y; };
constexpr auto kMinus = [](std::uint64_t x, std::uint64_t y) { return x & ~y; };
} // namespace

EventSet EventSet::operator|(const EventSet& o) const {
    EventSet r = *this;
    combine(r.bits_, o.bits_, kOr);
    return r;
}

EventSet EventSet::operator&(const EventSet& o) const {
    EventSet r = *this;
    combine(r.bits_, o.bits_, kAnd);
    return r;
}

EventSet EventSet::operator-(const EventSet& o) const {
    EventSet r = *this;
    combine(r.bits_, o.bits_, kMinus);
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
    or_row(a, s.bits_.data());
}

void Relation::or_row(std::size_t a, const std::uint64_t* in) {
    std::uint64_t* out = row(a);
    for (std::size_t w = 0; w < words_; ++w)
        out[w] |= in[w];
}

bool Relation::empty() const {
    for (std::uint64_t w : bits_)
        if (w) return false;
    return true;
}

Relation Relation::operator|(const Relation& o) && {
    assert(n_ == o.n_);
    combine(bits_, o.bits_, kOr);
    return std::move(*this);
}

Relation Relation::operator&(const Relation& o) && {
    combine(bits_, o.bits_, kAnd);
    return std::move(*this);
}

Relation Relation::operator-(const Relation& o) && {
    combine(bits_, o.bits_, kMinus);
    return std::move(*this);
}

Relation Relation::then(const Relation& s) const {
    // Row by row: a relates to all that each b it relates to relates to in s. Only the b whose
    // row of s is not empty contribute, so a's row is masked with those first: that skips the
    // pairs that add nothing, which dominate when s is sparse (r ; rfe with r dense, as prop
    // has), and costs a word per row when it is not.
    thread_local std::vector<std::uint64_t> live;
    live.assign(words_, 0);
    for (std::size_t b = 0; b < n_; ++b) {
        const std::uint64_t* next = s.row(b);
        for (std::size_t k = 0; k < words_; ++k)
            if (next[k]) {
                live[b / 64] |= std::uint64_t{1} << (b % 64);
                break;
            }
    }
    Relation r(n_);
    for (std::size_t a = 0; a < n_; ++a) {
        const std::uint64_t* in = row(a);
        for (std::size_t w = 0; w < words_; ++w)
            for (std::uint64_t bits = in[w] & live[w]; bits; bits &= bits - 1)
                r.or_row(a, s.row(w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits))));
    }
    return r;
}

Relation Relation::then_optional(const Relation& s) const {
    return then(s) | *this;
}

Relation Relation::then_star(const Relation& s) const {
    return then(s.plus()) | *this;
}

Relation Relation::from(const EventSet& s) && {
    for (std::size_t a = 0; a < n_; ++a)
        if (!s.has(a))
            for (std::size_t w = 0; w < words_; ++w)
                row(a)[w] = 0;
    return std::move(*this);
}

Relation Relation::to(const EventSet& s) && {
    for (std::size_t a = 0; a < n_; ++a)
        for (std::size_t w = 0; w < words_; ++w)
            row(a)[w] &= s.bits_[w];
    return std::move(*this);
}

Relation Relation::optional() && {
    for (std::size_t e = 0; e < n_; ++e)
        add(e, e);
    return std::move(*this);
}

Relation Relation::plus() const {
    // On an acyclic relation, in reverse topological order: an event reaches its successors
    // and all they reach, each already complete. That costs a row per edge, where Warshall's
    // algorithm below costs a bit test per pair of events: the relations the LKMM check closes
    // (cumul-fence, rf;rmw) are mostly sparse and acyclic.
    Relation r = *this;
    std::vector<std::uint32_t> order;
    if (topological_order(order)) {
        for (std::size_t i = order.size(); i-- > 0;) {
            const std::size_t a = order[i];
            each_successor(a, [&](std::size_t b) { r.or_row(a, r.row(b)); });
        }
        return r;
    }
    // Warshall's algorithm, a row at a time: whoever reaches k reaches what k reaches.
    for (std::size_t k = 0; k < n_; ++k) {
        for (std::size_t a = 0; a < n_; ++a)
            if (r.has(a, k)) r.or_row(a, r.row(k));
    }
    return r;
}

Relation Relation::star() const {
    return plus().optional();
}

Relation Relation::without_identity() && {
    for (std::size_t e = 0; e < n_; ++e)
        row(e)[e / 64] &= ~(std::uint64_t{1} << (e % 64));
    return std::move(*this);
}

Relation Relation::inverse() const {
    Relation r(n_);
    for (std::size_t a = 0; a < n_; ++a)
        each_successor(a, [&](std::size_t b) { r.add(b, a); });
    return r;
}

bool Relation::topological_order(std::vector<std::uint32_t>& order) const {
    // Kahn's algorithm: repeatedly take an event nothing left points to. The counts live in a
    // buffer of the thread's, as this runs for every candidate of every read.
    thread_local std::vector<std::uint32_t> indegree;
    indegree.assign(n_, 0);
    for (std::size_t a = 0; a < n_; ++a)
        each_successor(a, [&](std::size_t b) { ++indegree[b]; });
    order.clear();
    for (std::size_t e = 0; e < n_; ++e)
        if (indegree[e] == 0) order.push_back(static_cast<std::uint32_t>(e));
    for (std::size_t next = 0; next < order.size(); ++next)
        each_successor(order[next], [&](std::size_t b) {
            if (--indegree[b] == 0) order.push_back(static_cast<std::uint32_t>(b));
        });
    return order.size() == n_;
}

bool Relation::acyclic() const {
    thread_local std::vector<std::uint32_t> order;
    return topological_order(order);
}

} // namespace lockcheck::detail::memory
