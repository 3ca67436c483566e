// lastzero: the synthetic benchmark of Abdulla, Aronis, Jonsson and Sagonas, "Optimal Dynamic
// Partial Order Reduction" (POPL 2014; J. ACM 64(4), 2017, as "Source Sets"), where
// source-DPOR runs executions that sleep sets then block and optimal DPOR runs none.
//
// The program (Concuerror's tests/suites/dpor_tests/src/last_zero.erl; the C version in
// Nidhugg's and GenMC's benchmark folders), lastzero(N):
//     int array[N + 1];                        // all zero
//     reader:            for (i = N; array[i] != 0; i--) ;
//     writer j, 1..N:    array[j] = array[j - 1] + 1;
//
// Steps against the original's events: each array access is one step, a load a read and a
// store a write of that cell (shared<int> per cell: cells are independent objects). The
// originals use plain, racy accesses on purpose; the model marks them (READ_ONCE/WRITE_ONCE)
// because the benchmark counts interleavings, not data races, and a marked access is one step
// exactly as a plain load or store is one event. The `plain` variant keeps the C program's
// plain accesses, and the data-race detector reports them. The threads exist from the start: the
// original's main thread only zeroes the array and creates the threads, events ordered before
// everything the threads do, so they change no count.
//
// Counts: Mazurkiewicz traces (what optimal DPOR runs) of lastzero(N) for N = 2, 4, 6, 8, 10,
// 12 are 5, 28, 144, 704, 3328, 15360 (Nidhugg, benchmarks/SWSC_experiment/summary.txt);
// lastzero(5) has 64, of which Concuerror's source-DPOR runs 97 executions, 33 of them
// sleep-set blocked (Concuerror, tests/suites/dpor_tests/results/last_zero-test-inf-source.txt).
// docs/dpor.md, "Classic benchmarks", has lockcheck's own counts.
#include <deque>
#include <string>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::examples {

namespace {

struct LastZero {
    LastZero(int n, bool plain) : plain(plain) {
        for (int i = 0; i <= n; ++i)
            array.emplace_back("array[" + std::to_string(i) + "]", 0);
    }
    // The `plain` variant: the C program's own loads and stores, which race.
    int load(int i) { return plain ? array[i].read() : READ_ONCE(array[i]); }
    void store(int i, int v) { plain ? array[i].write(v) : WRITE_ONCE(array[i], v); }
    std::deque<shared<int>> array;
    bool plain;
};

void reader(LastZero& z, int n) {
    for (int i = n; z.load(i) != 0; --i) {
    }
}

void writer(LastZero& z, int j) {
    z.store(j, z.load(j - 1) + 1);
}

void setup(std::size_t variant, const ParameterValues& values) {
    const int n = values[0];
    LastZero& z = model_state<LastZero>(n, variant == 1);
    spawn("reader", [&z, n] { reader(z, n); });
    for (int j = 1; j <= n; ++j)
        spawn("writer" + std::to_string(j), [&z, j] { writer(z, j); });
}

} // namespace

Protocol lastzero() {
    return Protocol{
        .name = "lastzero",
        .summary = "POPL'14 lastzero(N): a reader looks for the last zero while N writers fill "
                   "the array",
        .variants = {{"original", "the program as published: one step per array access",
                      Expectation::verified()},
                     {"plain", "the same with plain loads and stores, as in C: a data race",
                      Expectation::violation(ViolationKind::data_race, "data race on array[1]")}},
        .parameters = {{"writers", "N: writer threads, besides the reader", 5, 1, kMaxTasks - 1}},
        .kind = ModelKind::benchmark,
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(lastzero);

} // namespace lockcheck::examples
