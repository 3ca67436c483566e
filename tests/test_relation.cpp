// The bit-matrix relations the LKMM check is written in (memory/relation.hpp), against the
// definitions spelled out pair by pair: their sequence and closure each pick between two
// methods by the shape of the operands, and both methods must give the definition's answer.
#include <random>
#include <vector>

#include "CppUTest/TestHarness.h"
#include "memory/relation.hpp"

using lockcheck::detail::memory::Relation;

namespace {

// A random relation over n events: each pair with probability `density`; `forward` keeps only
// pairs a < b, so that it is acyclic.
Relation random_relation(std::mt19937& rng, std::size_t n, double density, bool forward) {
    std::bernoulli_distribution pick(density);
    Relation r(n);
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = 0; b < n; ++b)
            if ((!forward || a < b) && pick(rng)) r.add(a, b);
    return r;
}

bool same(const Relation& x, const Relation& y) {
    for (std::size_t a = 0; a < x.size(); ++a)
        for (std::size_t b = 0; b < x.size(); ++b)
            if (x.has(a, b) != y.has(a, b)) return false;
    return true;
}

// r ; s by its definition: a relates to c when some b has a r b and b s c.
Relation naive_then(const Relation& r, const Relation& s) {
    Relation out(r.size());
    for (std::size_t a = 0; a < r.size(); ++a)
        for (std::size_t b = 0; b < r.size(); ++b)
            if (r.has(a, b))
                for (std::size_t c = 0; c < r.size(); ++c)
                    if (s.has(b, c)) out.add(a, c);
    return out;
}

// r+ on a plain matrix of bools, by Warshall's textbook loop: a reaches c when a reaches b and b
// reaches c, through each b in turn.
Relation naive_plus(const Relation& r) {
    const std::size_t n = r.size();
    std::vector<std::vector<bool>> reach(n, std::vector<bool>(n));
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t c = 0; c < n; ++c)
            reach[a][c] = r.has(a, c);
    for (std::size_t b = 0; b < n; ++b)
        for (std::size_t a = 0; a < n; ++a)
            if (reach[a][b])
                for (std::size_t c = 0; c < n; ++c)
                    if (reach[b][c]) reach[a][c] = true;
    Relation out(n);
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t c = 0; c < n; ++c)
            if (reach[a][c]) out.add(a, c);
    return out;
}

struct Shape {
    std::size_t n;
    double density;
    bool forward;
};

// Sizes across the 64-bit word boundaries, densities from a few pairs to most of them.
const Shape kShapes[] = {{1, 0.5, false},   {5, 0.3, false},   {63, 0.02, true}, {64, 0.5, true},
                         {65, 0.03, false}, {90, 0.01, true},  {90, 0.4, true},  {130, 0.01, false},
                         {130, 0.2, true},  {129, 0.005, true}};

} // namespace

TEST_GROUP(Relation){};

TEST(Relation, SequenceIsTheDefinitionWhateverTheOperandsDensity) {
    std::mt19937 rng(1);
    for (const Shape& x : kShapes)
        for (const double other : {0.005, 0.1, 0.6}) {
            const Relation r = random_relation(rng, x.n, x.density, x.forward);
            const Relation s = random_relation(rng, x.n, other, false);
            CHECK(same(r.then(s), naive_then(r, s)));
            CHECK(same(s.then(r), naive_then(s, r)));
            CHECK(same(r.then_optional(s), r | naive_then(r, s)));
            CHECK(same(r.then_star(s), r | naive_then(r, naive_plus(s))));
        }
}

TEST(Relation, ClosureIsTheDefinitionOnAcyclicAndCyclicRelations) {
    std::mt19937 rng(2);
    for (const Shape& x : kShapes) {
        const Relation r = random_relation(rng, x.n, x.density, x.forward);
        CHECK(same(r.plus(), naive_plus(r)));
        if (x.forward) CHECK(r.acyclic());
        // A cycle through every event: the closure relates each to all, and it is cyclic.
        Relation ring = r;
        for (std::size_t a = 0; a < x.n; ++a)
            ring.add(a, (a + 1) % x.n);
        CHECK(same(ring.plus(), naive_plus(ring)));
        CHECK_FALSE(ring.acyclic());
    }
}

TEST(Relation, InverseSwapsEveryPair) {
    std::mt19937 rng(3);
    for (const Shape& x : kShapes) {
        const Relation r = random_relation(rng, x.n, x.density, x.forward);
        const Relation inverse = r.inverse();
        for (std::size_t a = 0; a < x.n; ++a)
            for (std::size_t b = 0; b < x.n; ++b)
                CHECK(inverse.has(b, a) == r.has(a, b));
    }
}
