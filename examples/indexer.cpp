// indexer: the hash-table benchmark of Flanagan and Godefroid, "Dynamic Partial-Order
// Reduction for Model Checking Software" (POPL 2005), the first DPOR paper, and a benchmark
// of every DPOR paper since (Abdulla et al., POPL 2014 and J. ACM 2017).
//
// The program (Nidhugg's benchmarks/SV-COMP/indexer.c, from SV-COMP's
// pthread/indexer_true-unreach-call.c), indexer(N):
//     #define SIZE 128
//     #define MAX  4
//     int table[SIZE];                         // all zero
//     thread tid, 0..N-1:
//         for (m = 1; m <= MAX; m++) {
//             w = m * 11 + tid;                // the message
//             h = (w * 7) % SIZE;              // its hash
//             while (cas(&table[h], 0, w) == 0)
//                 h = (h + 1) % SIZE;          // linear probing
//         }
// Two threads insert the same message, and so race for the same slot, only when their ids
// differ by 11 (w = 11m + tid): below 12 threads no step depends on another thread's, from
// 12 on each such pair of threads races for 3 slots, and each race has 2 outcomes.
//
// Steps against the original's events: FG05's cas is one compare-and-swap instruction, here
// one atomic_cmpxchg (the `cas` variant). SV-COMP's and Nidhugg's C versions implement cas()
// under a per-slot pthread mutex: lock, load, store if zero, unlock, each one event, here
// mutex_lock, atomic_read, atomic_set, mutex_unlock (the `mutex-cas` variant). A failed
// atomic_cmpxchg counts as a write for partial-order reduction (docs/dpor.md), as the mutex
// around a failed cas does: that orders two failures on one slot, which matters only when
// three threads race for it (N >= 23). The threads exist from the start: the original's main
// thread only initializes and creates them, events ordered before all of theirs.
//
// Counts: Mazurkiewicz traces (what optimal DPOR runs) of indexer(N) for N = 11..16 are 1, 8,
// 64, 512, 4096, 32768 (Nidhugg, benchmarks/SWSC_experiment/summary.txt, the mutex version):
// 2^(3(N - 11)). docs/dpor.md, "Classic benchmarks", has lockcheck's own counts.
#include <algorithm>
#include <array>
#include <deque>
#include <string>
#include <vector>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::examples {

namespace {

constexpr int SIZE = 128;
constexpr int MAX = 4;

struct IndexerPolicy {
    bool cas_under_mutex = false; // SV-COMP's cas(): a pthread mutex per slot
};

struct IndexerVariant {
    Variant variant;
    IndexerPolicy policy;
};

const std::array<IndexerVariant, 2>& variants() {
    static const std::array<IndexerVariant, 2> table = {{
        {{"cas", "FG05's program: cas is one compare-and-swap step", Expectation::verified()}, {}},
        {{"mutex-cas",
          "SV-COMP's and Nidhugg's C program: cas() under a per-slot mutex, 3 or 4 steps",
          Expectation::verified()},
         {.cas_under_mutex = true}},
    }};
    return table;
}

const std::string kEveryMessage = "the table holds every message inserted, once per insertion";

struct Indexer {
    explicit Indexer(bool with_mutexes) {
        for (int h = 0; h < SIZE; ++h) {
            table.emplace_back("table[" + std::to_string(h) + "]", 0);
            if (with_mutexes) cas_mutex.emplace_back("cas_mutex[" + std::to_string(h) + "]");
        }
    }
    std::deque<atomic_t> table;
    std::deque<struct mutex> cas_mutex;
};

// 1 if table[h] held `val` and now holds `new_val`.
int cas(Indexer& ix, const IndexerPolicy& p, int h, int val, int new_val) {
    if (!p.cas_under_mutex) return atomic_cmpxchg(&ix.table[h], val, new_val) == val;
    int ret_val = 0;
    mutex_lock(&ix.cas_mutex[h]);
    if (atomic_read(&ix.table[h]) == val) {
        atomic_set(&ix.table[h], new_val);
        ret_val = 1;
    }
    mutex_unlock(&ix.cas_mutex[h]);
    return ret_val;
}

int message(int m, int tid) {
    return m * 11 + tid;
}

void thread_routine(Indexer& ix, const IndexerPolicy& p, int tid) {
    for (int m = 1; m <= MAX; ++m) {
        const int w = message(m, tid);
        int h = (w * 7) % SIZE;
        while (cas(ix, p, h, 0, w) == 0)
            h = (h + 1) % SIZE;
    }
}

void setup(std::size_t variant, const ParameterValues& values) {
    const IndexerPolicy& p = variants()[variant].policy;
    const int threads = values[0];
    Indexer& ix = model_state<Indexer>(p.cas_under_mutex);
    for (int tid = 0; tid < threads; ++tid)
        spawn("thread" + std::to_string(tid), [&ix, &p, tid] { thread_routine(ix, p, tid); });
    final_check(kEveryMessage, [&ix, threads] {
        std::vector<int> inserted, held;
        for (int tid = 0; tid < threads; ++tid)
            for (int m = 1; m <= MAX; ++m)
                inserted.push_back(message(m, tid));
        for (const atomic_t& slot : ix.table)
            if (slot.peek() != 0) held.push_back(slot.peek());
        std::sort(inserted.begin(), inserted.end());
        std::sort(held.begin(), held.end());
        return inserted == held;
    });
}

} // namespace

Protocol indexer() {
    return Protocol{
        .name = "indexer",
        .summary = "FG05 indexer(N): N threads insert 4 messages each into a hash table with "
                   "compare-and-swap",
        .variants = variants_of(variants()),
        // Up to SIZE / MAX threads: with more, one could loop forever on a full table.
        .parameters = {{"threads", "N: threads, each inserting 4 messages", 13, 1, SIZE / MAX}},
        .default_depth = 2000,
        .kind = ModelKind::benchmark,
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(indexer);

} // namespace lockcheck::examples
