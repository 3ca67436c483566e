// filesystem: the file-system benchmark of Flanagan and Godefroid, "Dynamic Partial-Order
// Reduction for Model Checking Software" (POPL 2005), and of Abdulla et al. (POPL 2014 and
// J. ACM 2017): threads allocate a disk block to an inode, under a lock per inode and a lock
// per block.
//
// The program (Nidhugg's benchmarks/SWSC_experiment/benchmarks/noasserts/from_TRACER/
// filesystem.c; Concuerror's tests/suites/dpor_tests/src/file_system_example.erl),
// filesystem(N):
//     #define NUMBLOCKS 26
//     #define NUMINODE  32
//     lock_t locki[NUMINODE], lockb[NUMBLOCKS];
//     int inode[NUMINODE], busy[NUMBLOCKS];   // all zero
//     thread tid, 0..N-1:
//         i = tid % NUMINODE;
//         acquire(locki[i]);
//         if (inode[i] == 0) {
//             b = (i * 2) % NUMBLOCKS;
//             while (true) {
//                 acquire(lockb[b]);
//                 if (!busy[b]) {
//                     busy[b] = true; inode[i] = b + 1;
//                     release(lockb[b]); break;
//                 }
//                 release(lockb[b]);
//                 b = (b + 1) % NUMBLOCKS;
//             }
//         }
//         release(locki[i]);
// Threads i and i + 13 start at the same block, and the one that comes second takes the next
// (odd) block, which no thread starts at: filesystem(N) has 2^(N - 13) traces for
// 13 <= N <= 26, and one below.
//
// Steps against the original's events: acquire and release are pthread_mutex_lock and
// unlock in the C version, here mutex_lock and mutex_unlock, one step each (with one CPU, the
// default, a mutex offers no migration choice). Each access to inode[] and busy[] is one step
// on its own shared<int>. The originals use plain accesses (under the locks); the model marks
// them (READ_ONCE/WRITE_ONCE) because the benchmark counts interleavings, not data races: a
// marked access is one step exactly as a plain load or store is one event. The threads exist
// from the start: the original's main thread only initializes and creates them, events
// ordered before all of theirs.
//
// Counts: Mazurkiewicz traces (what optimal DPOR runs) of filesystem(N) for N = 12, 14, 16, 18
// are 1, 2, 8, 32 (Nidhugg, benchmarks/SWSC_experiment/summary.txt); Concuerror runs 8 for
// filesystem(16) (tests/suites/dpor_tests/results/file_system_example-test-inf-dpor.txt).
// docs/dpor.md, "Classic benchmarks", has lockcheck's own counts.
#include <deque>
#include <set>
#include <string>

#include <lockcheck/lockcheck.hpp>

namespace lockcheck::examples {

namespace {

constexpr int NUMBLOCKS = 26;
constexpr int NUMINODE = 32;

const std::string kDistinctBlocks =
    "every inode a thread allocated holds a busy block that no other inode holds";

struct FileSystem {
    FileSystem() {
        for (int i = 0; i < NUMINODE; ++i) {
            locki.emplace_back("locki[" + std::to_string(i) + "]");
            inode.emplace_back("inode[" + std::to_string(i) + "]", 0);
        }
        for (int b = 0; b < NUMBLOCKS; ++b) {
            lockb.emplace_back("lockb[" + std::to_string(b) + "]");
            busy.emplace_back("busy[" + std::to_string(b) + "]", 0);
        }
    }
    std::deque<struct mutex> locki;
    std::deque<shared<int>> inode; // the block it holds, plus one; 0: none
    std::deque<struct mutex> lockb;
    std::deque<shared<int>> busy;
};

void thread_routine(FileSystem& fs, int tid) {
    const int i = tid % NUMINODE;
    mutex_lock(&fs.locki[i]);
    if (READ_ONCE(fs.inode[i]) == 0) {
        int b = (i * 2) % NUMBLOCKS;
        while (true) {
            mutex_lock(&fs.lockb[b]);
            if (!READ_ONCE(fs.busy[b])) {
                WRITE_ONCE(fs.busy[b], 1);
                WRITE_ONCE(fs.inode[i], b + 1);
                mutex_unlock(&fs.lockb[b]);
                break;
            }
            mutex_unlock(&fs.lockb[b]);
            b = (b + 1) % NUMBLOCKS;
        }
    }
    mutex_unlock(&fs.locki[i]);
}

void setup(std::size_t, const ParameterValues& values) {
    const int threads = values[0];
    FileSystem& fs = model_state<FileSystem>();
    for (int tid = 0; tid < threads; ++tid)
        spawn("thread" + std::to_string(tid), [&fs, tid] { thread_routine(fs, tid); });
    final_check(kDistinctBlocks, [&fs, threads] {
        std::set<int> held;
        for (int i = 0; i < std::min(threads, NUMINODE); ++i) {
            const int block = fs.inode[i].peek() - 1;
            if (block < 0 || !fs.busy[block].peek() || !held.insert(block).second) return false;
        }
        return true;
    });
}

} // namespace

Protocol filesystem() {
    return Protocol{
        .name = "filesystem",
        .summary = "FG05 filesystem(N): N threads each give an inode a free disk block, under "
                   "inode and block locks",
        .variants = {{"original", "the program as published: locks as mutexes",
                      Expectation::verified()}},
        // Up to one thread per block: with more, one could loop forever on a full disk.
        .parameters = {{"threads", "N: threads, thread i allocating inode i", 14, 1, NUMBLOCKS}},
        .default_depth = 2000,
        .kind = ModelKind::benchmark,
        .setup = &setup,
    };
}

LOCKCHECK_MODEL(filesystem);

} // namespace lockcheck::examples
