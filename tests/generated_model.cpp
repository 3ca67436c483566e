// generated: the programs of tests/generated_programs.hpp as a model of a lockcheck command of its
// own (lockcheck_generated), a variant a program: `seed-N` (seeds 1 to kPlain) and `racy-N`
// (seeds 1 to kRacy). The test binary runs its searches without model_new.cpp, so never from
// checkpoints; this command runs them as a user's does, and tests/checkpoints.sh holds each
// program's runs with checkpoints to its runs with --no-checkpoints. A variant expects to be
// verified, which many are not (they race, deadlock or leave a waiter): the test compares two
// runs, whatever they find.
#include <string>

#include <lockcheck/lockcheck.hpp>

#include "generated_programs.hpp"

namespace lockcheck::generated {

namespace {

constexpr std::uint64_t kPlain = 30;
constexpr std::uint64_t kRacy = 30;

struct Which {
    std::uint64_t seed;
    bool racy;
};

Which which_of(std::size_t variant) {
    return variant < kPlain ? Which{variant + 1, false} : Which{variant - kPlain + 1, true};
}

void setup(std::size_t variant, const ParameterValues&) {
    const Which which = which_of(variant);
    // The program lives in the execution's memory, as long as its tasks run.
    spawn_program(model_state<Program>(generate(which.seed, which.racy)));
}

Protocol model() {
    std::vector<Variant> variants;
    for (std::size_t v = 0; v < kPlain + kRacy; ++v) {
        const Which which = which_of(v);
        const std::string seed = std::to_string(which.seed);
        variants.push_back(
            {(which.racy ? "racy-" : "seed-") + seed,
             std::string(which.racy ? "racy " : "") + "generated program, seed " + seed,
             Expectation::verified()});
    }
    return Protocol{
        .name = "generated",
        .summary = "small random programs of tests/generated_programs.hpp, a variant each",
        .variants = variants,
        .default_depth = 200,
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(model);

} // namespace

} // namespace lockcheck::generated
