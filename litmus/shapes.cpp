// The classic shapes (MP, SB, LB, 3.LB, WRC, IRIW, R, S, 2+2W, ISA2, Z6.0, CoRR, CoWR), each in
// five versions, as the model `lkmm-shapes`: a shape is its threads' accesses and its exists
// clause, a version is how every access and every gap between two accesses of a thread is written.
//
//   once     READ_ONCE() and WRITE_ONCE(), nothing between them
//   mb       the same with smp_mb() between each two accesses of a thread
//   relacq   smp_load_acquire() and smp_store_release()
//   locked   the once accesses, each thread's inside spin_lock(s) ... spin_unlock(s)
//   xchg     the stores as xchg() (fully ordered: a value-returning RMW), the loads READ_ONCE()
//
// The verdicts (kVerdicts) are LKMM's, and only ones that follow for certain: the once
// versions are herd7's results for the +poonceonces tests (the kernel's litmus-tests hold most
// of them); smp_mb() between every two accesses, and one lock around every thread, leave only
// sequentially consistent outcomes, none of which an exists clause here names; the relacq
// and xchg verdicts are worked out from linux-kernel.cat in docs/memory-model.md, shape by
// shape (a Never is a cycle of hb or pb, a Sometimes has none in any axiom).
#include <array>
#include <string>

#include "litmus.hpp"

namespace lockcheck::litmus {

namespace {

using R = Result;

enum class Version : std::uint8_t { once, mb, relacq, locked, xchg };
constexpr std::array<const char*, 5> kVersionNames = {"once", "mb", "relacq", "locked", "xchg"};
constexpr std::array<const char*, 5> kVersionSummaries = {
    "READ_ONCE/WRITE_ONCE", "smp_mb() between each two accesses",
    "smp_load_acquire/smp_store_release", "each thread under one spinlock",
    "stores as xchg(), loads READ_ONCE"};

// One access of a thread: a store of `value`, or a load into register `reg`.
struct Access {
    enum Kind : std::uint8_t { load, store };
    Kind kind;
    shared<int> Memory::*loc;
    int value_or_reg;
};

Access st(shared<int> Memory::*loc, int value) {
    return {Access::store, loc, value};
}
Access ld(shared<int> Memory::*loc, int reg) {
    return {Access::load, loc, reg};
}

struct Shape {
    const char* name;
    std::vector<std::vector<Access>> threads;
    const char* exists;
    bool (*holds)(const Memory& m);
    std::array<Result, 5> lkmm; // by Version
};

void perform(const Access& a, Version v, Memory& m, int* r) {
    shared<int>& loc = m.*a.loc;
    if (a.kind == Access::store) {
        if (v == Version::relacq)
            smp_store_release(&loc, a.value_or_reg);
        else if (v == Version::xchg)
            (void)xchg(&loc, a.value_or_reg);
        else
            WRITE_ONCE(loc, a.value_or_reg);
        return;
    }
    r[a.value_or_reg] = v == Version::relacq ? smp_load_acquire(&loc) : READ_ONCE(loc);
}

// A thread of the shape as the version writes it.
void run(const std::vector<Access>& accesses, Version v, Memory& m, int* r) {
    if (v == Version::locked) spin_lock(&m.s);
    for (std::size_t i = 0; i < accesses.size(); ++i) {
        if (i > 0 && v == Version::mb) smp_mb();
        perform(accesses[i], v, m, r);
    }
    if (v == Version::locked) spin_unlock(&m.s);
}

constexpr R N = R::never, S = R::sometimes;
constexpr auto x = &Memory::x;
constexpr auto y = &Memory::y;
constexpr auto z = &Memory::z;

//                                  once mb relacq locked xchg
const std::vector<Shape> kShapes = {
    {"MP",
     {{st(x, 1), st(y, 1)}, {ld(y, 0), ld(x, 1)}},
     "(1:r0=1 /\\ 1:r1=0)",
     +[](const Memory& m) { return m.r[1][0] == 1 && m.r[1][1] == 0; },
     {S, N, N, N, S}},
    {"SB",
     {{st(x, 1), ld(y, 0)}, {st(y, 1), ld(x, 0)}},
     "(0:r0=0 /\\ 1:r0=0)",
     +[](const Memory& m) { return m.r[0][0] == 0 && m.r[1][0] == 0; },
     {S, N, S, N, N}},
    {"LB",
     {{ld(x, 0), st(y, 1)}, {ld(y, 0), st(x, 1)}},
     "(0:r0=1 /\\ 1:r0=1)",
     +[](const Memory& m) { return m.r[0][0] == 1 && m.r[1][0] == 1; },
     {S, N, N, N, N}},
    // Three tasks in a ring of load buffering: one store taking effect before its load is
    // enough, as in LB.
    {"3.LB",
     {{ld(x, 0), st(y, 1)}, {ld(y, 0), st(z, 1)}, {ld(z, 0), st(x, 1)}},
     "(0:r0=1 /\\ 1:r0=1 /\\ 2:r0=1)",
     +[](const Memory& m) { return m.r[0][0] == 1 && m.r[1][0] == 1 && m.r[2][0] == 1; },
     {S, N, N, N, N}},
    {"WRC",
     {{st(x, 1)}, {ld(x, 0), st(y, 1)}, {ld(y, 0), ld(x, 1)}},
     "(1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0)",
     +[](const Memory& m) { return m.r[1][0] == 1 && m.r[2][0] == 1 && m.r[2][1] == 0; },
     {S, N, N, N, S}},
    {"IRIW",
     {{st(x, 1)}, {ld(x, 0), ld(y, 1)}, {st(y, 1)}, {ld(y, 0), ld(x, 1)}},
     "(1:r0=1 /\\ 1:r1=0 /\\ 3:r0=1 /\\ 3:r1=0)",
     +[](const Memory& m) {
         return m.r[1][0] == 1 && m.r[1][1] == 0 && m.r[3][0] == 1 && m.r[3][1] == 0;
     },
     {S, N, S, N, S}},
    {"R",
     {{st(x, 1), st(y, 1)}, {st(y, 2), ld(x, 0)}},
     "(y=2 /\\ 1:r0=0)",
     +[](const Memory& m) { return m.y.peek() == 2 && m.r[1][0] == 0; },
     {S, N, S, N, N}},
    {"S",
     {{st(x, 2), st(y, 1)}, {ld(y, 0), st(x, 1)}},
     "(x=2 /\\ 1:r0=1)",
     +[](const Memory& m) { return m.x.peek() == 2 && m.r[1][0] == 1; },
     {S, N, N, N, N}},
    {"2+2W",
     {{st(x, 1), st(y, 2)}, {st(y, 1), st(x, 2)}},
     "(x=1 /\\ y=1)",
     +[](const Memory& m) { return m.x.peek() == 1 && m.y.peek() == 1; },
     {S, N, S, N, N}},
    {"ISA2",
     {{st(x, 1), st(y, 1)}, {ld(y, 0), st(z, 1)}, {ld(z, 0), ld(x, 1)}},
     "(1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0)",
     +[](const Memory& m) { return m.r[1][0] == 1 && m.r[2][0] == 1 && m.r[2][1] == 0; },
     {S, N, N, N, S}},
    {"Z6.0",
     {{st(x, 1), st(y, 1)}, {ld(y, 0), st(z, 1)}, {st(z, 2), ld(x, 1)}},
     "(1:r0=1 /\\ z=2 /\\ 2:r1=0)",
     +[](const Memory& m) { return m.r[1][0] == 1 && m.z.peek() == 2 && m.r[2][1] == 0; },
     {S, N, S, N, N}},
    {"CoRR",
     {{st(x, 1)}, {ld(x, 0), ld(x, 1)}},
     "(1:r0=1 /\\ 1:r1=0)",
     +[](const Memory& m) { return m.r[1][0] == 1 && m.r[1][1] == 0; },
     {N, N, N, N, N}},
    {"CoWR",
     {{st(x, 1), ld(x, 0)}, {st(x, 2)}},
     "(x=1 /\\ 0:r0=2)",
     +[](const Memory& m) { return m.x.peek() == 1 && m.r[0][0] == 2; },
     {N, N, N, N, N}},
};

std::vector<Test> shape_tests() {
    std::vector<Test> tests;
    for (const Shape& shape : kShapes)
        for (std::size_t v = 0; v < kVersionNames.size(); ++v) {
            const auto version = static_cast<Version>(v);
            Test t{.name = std::string(shape.name) + "+" + kVersionNames[v],
                   .summary = kVersionSummaries[v],
                   .lkmm = shape.lkmm[v],
                   .threads = {},
                   .exists = shape.exists,
                   .holds = shape.holds};
            for (const std::vector<Access>& accesses : shape.threads)
                t.threads.push_back(
                    [&accesses, version](Memory& m, int* r) { run(accesses, version, m, r); });
            tests.push_back(std::move(t));
        }
    return tests;
}

Protocol lkmm_shapes() {
    return family("lkmm-shapes",
                  "the classic shapes (MP, SB, LB, 3.LB, WRC, IRIW, R, S, 2+2W, ISA2, Z6.0, CoRR, "
                  "CoWR), each once, with smp_mb(), release/acquire, locked and with xchg()",
                  shape_tests());
}

} // namespace

LOCKCHECK_MODEL(lkmm_shapes);

} // namespace lockcheck::litmus
