// The threads' arenas: one reservation of address space, a slot of it per thread that runs
// executions, its pages committed as they are first touched and given back to the system past
// what an execution usually uses.
#include "arena.hpp"

#include <bitset>
#include <mutex>
#include <new>

#include <sys/mman.h>

#ifdef LOCKCHECK_SANITIZE
#include <sanitizer/asan_interface.h>
#endif

namespace lockcheck::detail {

namespace {

// What release() keeps mapped above its mark: an execution that used more gives the rest back,
// so that one large execution does not keep its pages for the rest of the search.
constexpr std::size_t kKeep = std::size_t{4} << 20;

std::mutex g_slots_mutex;
std::bitset<Arena::kThreads> g_slots_taken;
char* g_space = nullptr;

char* reserve_space() {
    // PROT_NONE and MAP_NORESERVE: address space only, nothing committed or counted until a
    // slot is taken and its pages are touched.
    void* p = ::mmap(nullptr, Arena::kSize * Arena::kThreads, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
}

} // namespace

// A thread's hold on its slot, given back when the thread ends.
struct ArenaSlot {
    std::size_t index = Arena::kThreads;
    Arena* arena = nullptr;
    alignas(Arena) unsigned char storage[sizeof(Arena)];

    ArenaSlot() {
        const std::lock_guard lock(g_slots_mutex);
        if (!g_space) {
            g_space = reserve_space();
            if (!g_space) return;
            Arena::space_begin_ = reinterpret_cast<std::uintptr_t>(g_space);
            Arena::space_size_ = Arena::kSize * Arena::kThreads;
        }
        for (std::size_t i = 0; i < Arena::kThreads; ++i) {
            if (g_slots_taken[i]) continue;
            char* begin = g_space + i * Arena::kSize;
            if (::mprotect(begin, Arena::kSize, PROT_READ | PROT_WRITE) != 0) return;
            g_slots_taken[i] = true;
            index = i;
            arena = new (storage) Arena(begin);
#ifdef LOCKCHECK_SANITIZE
            ASAN_POISON_MEMORY_REGION(begin, Arena::kSize); // until allocated
#endif
            return;
        }
    }
    // The slot's pages stay as they are until a thread takes it again: an exception that a
    // model's set-up threw on a worker thread carries text in them, and is rethrown on the
    // thread that started the workers once they have ended.
    ~ArenaSlot() {
        if (!arena) return;
        const std::lock_guard lock(g_slots_mutex);
        g_slots_taken[index] = false;
    }
};

Arena* Arena::of_thread() {
    thread_local ArenaSlot slot;
    return slot.arena;
}

void Arena::release(char* mark) {
    char* const high = next_;
    next_ = mark;
#ifdef LOCKCHECK_SANITIZE
    ASAN_POISON_MEMORY_REGION(mark, static_cast<std::size_t>(high - mark));
#endif
    if (static_cast<std::size_t>(high - mark) <= kKeep) return;
    constexpr std::uintptr_t kPage = 4096;
    const auto from = (reinterpret_cast<std::uintptr_t>(mark) + kKeep + kPage - 1) & ~(kPage - 1);
    const auto to = reinterpret_cast<std::uintptr_t>(high);
    if (from < to) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

} // namespace lockcheck::detail
