// One model per family of litmus tests: set-up spawns the test's threads, and its exists
// clause, negated, is the final check.
#include "litmus.hpp"

#include <memory>

namespace lockcheck::litmus {

namespace {

Expectation expectation(Result result, const Test& test) {
    if (result == Result::never) return Expectation::verified();
    if (test.property) return Expectation::violation(test.kind, test.property);
    return Expectation::violation(ViolationKind::final_check, std::string("exists ") + test.exists);
}

} // namespace

int pointer_register(const Memory& m, const shared<int>* p) {
    return p == &m.x ? 'x' : p == &m.z ? 'z' : 0;
}

Protocol family(std::string name, std::string summary, const std::vector<Test>& tests) {
    auto shared_tests = std::make_shared<const std::vector<Test>>(tests);
    Protocol p{.name = std::move(name),
               .summary = std::move(summary),
               .default_depth = 100,
               .kind = ModelKind::litmus};
    for (const Test& t : tests) {
        p.variants.push_back(Variant{.name = t.name,
                                     .summary = t.summary,
                                     .expect = expectation(t.sc, t),
                                     .expect_lkmm = expectation(t.lkmm, t)});
    }
    p.setup = [shared_tests](std::size_t variant, const ParameterValues&) {
        const Test& test = (*shared_tests)[variant];
        Memory& m = model_state<Memory>(test.initial);
        if (test.init) test.init(m);
        for (auto& regs : m.r)
            for (int& reg : regs)
                plain_state(reg);
        for (std::size_t i = 0; i < test.threads.size(); ++i) {
            const Thread& body = test.threads[i]; // lives as long as the model
            spawn("P" + std::to_string(i), [&m, &body, i] { body(m, m.r[i]); });
        }
        final_check(std::string("exists ") + test.exists, [&m, &test] { return !test.holds(m); });
    };
    return p;
}

} // namespace lockcheck::litmus
