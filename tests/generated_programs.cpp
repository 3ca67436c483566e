// The generator of tests/generated_programs.hpp and the model code that runs a program.
#include "generated_programs.hpp"

#include <string>

#include <lockcheck/lockcheck.hpp>

#include "checker/random_source.hpp"

namespace lockcheck::generated {

using detail::RandomSource;

namespace {

struct Shared {
    shared<int> vars[3] = {shared<int>{"x"}, shared<int>{"y"}, shared<int>{"z"}};
    atomic_t atomics[2] = {atomic_t{"a"}, atomic_t{"b"}};
    struct mutex locks[2] = {mutex{"m0"}, mutex{"m1"}};
    struct completion done {
        "done"
    };
};

// At most kMaxOps visible operations in all, so that DFS stays small; racy programs have 2-3
// tasks and room for two nested sections.
constexpr int kMaxOps = 9;
constexpr int kMaxRacyOps = 14;

void run(const std::vector<Op>& ops, Shared& s) {
    int reg = 0;
    for (const Op& op : ops) {
        switch (op.kind) {
        case Kind::read:
            reg = READ_ONCE(s.vars[op.target]);
            break;
        case Kind::write:
            WRITE_ONCE(s.vars[op.target], reg + op.value);
            break;
        case Kind::plain_read:
            reg = s.vars[op.target].read();
            break;
        case Kind::plain_write:
            s.vars[op.target].write(reg + op.value);
            break;
        case Kind::atomic_inc:
            atomic_inc(&s.atomics[op.target]);
            break;
        case Kind::atomic_read:
            reg = atomic_read(&s.atomics[op.target]);
            break;
        case Kind::lock:
            mutex_lock(&s.locks[op.target]);
            break;
        case Kind::unlock:
            mutex_unlock(&s.locks[op.target]);
            break;
        case Kind::wait:
            wait_for_completion(&s.done);
            break;
        case Kind::complete:
            complete(&s.done);
            break;
        }
    }
}

} // namespace

// The draws that decide what `racy` adds are made only then, so that the other programs stay as
// they were.
Program generate(std::uint64_t seed, bool racy) {
    RandomSource random(seed);
    const int tasks = 2 + static_cast<int>(random.below(racy ? 2 : 3));
    Program program(static_cast<std::size_t>(tasks));
    int budget = racy ? kMaxRacyOps : kMaxOps;
    for (auto& ops : program) {
        const int n = 1 + static_cast<int>(random.below(3));
        for (int i = 0; i < n && budget > 0; ++i, --budget) {
            const int target = static_cast<int>(random.below(3));
            const int value = static_cast<int>(random.below(3));
            switch (random.below(6)) {
            case 0:
                ops.push_back({racy && random.below(2) ? Kind::plain_read : Kind::read, target, 0});
                break;
            case 1:
                ops.push_back(
                    {racy && random.below(2) ? Kind::plain_write : Kind::write, target, value});
                break;
            case 2:
                ops.push_back({Kind::atomic_inc, target % 2, 0});
                break;
            case 3:
                ops.push_back({Kind::atomic_read, target % 2, 0});
                break;
            default: {
                // A critical section around one access: lock, access, unlock; racy, maybe
                // with the other lock taken inside.
                if (budget < 3) break;
                const bool nested = racy && budget >= 5 && random.below(2);
                const int outer = target % 2, inner = 1 - outer;
                ops.push_back({Kind::lock, outer, 0});
                if (nested) ops.push_back({Kind::lock, inner, 0});
                const bool plain = racy && random.below(2);
                ops.push_back({random.below(2) ? (plain ? Kind::plain_read : Kind::read)
                                               : (plain ? Kind::plain_write : Kind::write),
                               target, value});
                if (nested) ops.push_back({Kind::unlock, inner, 0});
                ops.push_back({Kind::unlock, outer, 0});
                budget -= nested ? 4 : 2;
            }
            }
        }
    }
    // Random blocking: one task may wait for the completion, another may signal it.
    if (random.below(2) && budget > 0) {
        program[0].insert(program[0].begin() +
                              random.below(static_cast<std::uint32_t>(program[0].size() + 1)),
                          Op{Kind::wait, 0, 0});
        if (random.below(4) && budget > 1) program[1].push_back({Kind::complete, 0, 0});
    }
    return program;
}

void spawn_program(const Program& program) {
    Shared& s = model_state<Shared>();
    for (std::size_t t = 0; t < program.size(); ++t)
        spawn("t" + std::to_string(t), [&s, &ops = program[t]] { run(ops, s); });
}

} // namespace lockcheck::generated
