// The allocations of an execution, kmalloc()'s scheduling point and kfree()'s checks, in the
// words of KASAN's reports.
#include "slab.hpp"

#include <cstring>
#include <vector>

#include "debugobjects.hpp"
#include "rcu.hpp"
#include "weak_memory.hpp"

namespace lockcheck::detail {

namespace {

// The allocator of an execution, as one object: kmalloc()'s scheduling points are operations
// on it, so that two allocations are dependent steps and come in one order in equivalent
// executions (the ids of the objects inside them follow that order).
struct kmalloc_caches final : Object {
    kmalloc_caches() : Object("slab") {}
    void fingerprint(StateHasher& h) const override { h.add(slabs.size()); }
    void describe(std::string& out) const override {
        std::string in_use;
        for (const slab_object* slab : slabs)
            if (!slab->freed_at) in_use += (in_use.empty() ? "" : ", ") + slab->name();
        out += in_use.empty() ? "nothing in use" : "in use: " + in_use;
    }
    // The allocation `p` points into, if any.
    slab_object* containing(const void* p) const {
        for (slab_object* slab : slabs)
            if (slab->contains(p)) return slab;
        return nullptr;
    }

    std::vector<slab_object*> slabs; // every allocation of the execution, in order
};

std::string by(const Task* task, std::uint32_t step) {
    return task->name() + " at step " + std::to_string(step);
}

} // namespace

slab_object::slab_object(std::string name, std::size_t size, std::size_t align)
    : Object(std::move(name)), memory_(this_execution().allocate(size, align)), size_(size) {
    std::memset(memory_, 0, size);
}

slab_object::~slab_object() {
    if (destroy) destroy(memory_);
    Execution::deallocate(memory_);
}

void slab_object::describe(std::string& out) const {
    out += freed_at ? "freed by " + by(freed_by, freed_at) : std::string("in use");
}

void slab_object::describe_use(std::string& out, const Task& user,
                               std::vector<std::uint32_t>& cited) const {
    describe(out);
    out += rcu_unwaited_section(user, freed_at, cited);
}

bool slab_object::contains(const void* p) const {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const auto begin = reinterpret_cast<std::uintptr_t>(memory_);
    return at >= begin && at - begin < size_;
}

slab_object& slab_alloc(std::string name, std::size_t size, std::size_t align,
                        std::source_location loc) {
    Execution& ex = this_execution();
    kmalloc_caches& caches = ex.local<kmalloc_caches>();
    if (ex.in_task()) {
        ex.visible("kmalloc", &caches, loc);
        if (weak_memory::on()) weak_memory::orders_nothing();
    }
    slab_object& slab = ex.make<slab_object>(std::move(name), size, align);
    caches.slabs.push_back(&slab);
    if (ex.in_task()) ex.observe(static_cast<std::uint64_t>(slab.id())); // the address returned
    return slab;
}

namespace {

// A token's parts: the object's id + 1 above bit 32, the offset into it below.
constexpr int kTokenShift = 32;

} // namespace

std::int64_t pointer_token(const void* p) {
    if (!p) return 0;
    const Execution& ex = this_execution();
    const auto token = [](const Object& obj, std::uintptr_t offset) {
        return (static_cast<std::int64_t>(obj.id()) + 1) << kTokenShift |
               static_cast<std::int64_t>(offset);
    };
    if (const kmalloc_caches* caches = ex.find_local<kmalloc_caches>())
        if (const slab_object* slab = caches->containing(p))
            return token(*slab, reinterpret_cast<std::uintptr_t>(p) -
                                    reinterpret_cast<std::uintptr_t>(slab->memory()));
    for (const Object* obj : ex.objects())
        if (static_cast<const void*>(obj) == p) return token(*obj, 0);
    return kPointerElsewhere;
}

const void* allocation_of(const void* p) {
    if (const kmalloc_caches* caches = this_execution().find_local<kmalloc_caches>())
        if (const slab_object* slab = caches->containing(p)) return slab->memory();
    return p;
}

std::string pointer_text(std::int64_t token) {
    if (token == 0) return "NULL";
    const auto id = static_cast<std::size_t>((token >> kTokenShift) - 1);
    const std::vector<Object*>& objects = this_execution().objects();
    if (token == kPointerElsewhere || id >= objects.size())
        return "(memory of no allocation or object)";
    const Object& obj = *objects[id];
    const std::int64_t offset = token & ((std::int64_t{1} << kTokenShift) - 1);
    if (!dynamic_cast<const slab_object*>(&obj)) return "&" + obj.name();
    return obj.name() + (offset ? "+" + std::to_string(offset) : "");
}

void kfree(const void* objp, std::source_location loc) {
    if (!objp) return;
    Execution& ex = this_execution();
    slab_object* slab = ex.local<kmalloc_caches>().containing(objp);
    ex.visible_global("kfree", slab, loc);
    if (weak_memory::on()) weak_memory::orders_nothing();
    if (slab && slab->memory() == objp && !slab->freed_at) {
        if (weak_memory::on()) weak_memory::freed(*slab);
        debug_check_no_obj_freed(*slab, slab->memory(), slab->size(), loc);
        slab->freed_by = current();
        slab->freed_at = ex.step();
        ex.free_memory(*slab, slab->memory(), slab->size());
        return;
    }
    // KASAN's report: "BUG: KASAN: double-free in kfree(obj) by put1 at step 9; ..."
    // A double-free cites the first kfree(): a drawing ties it to the second.
    auto report = [&](ViolationKind kind, const std::string& property, const char* bug,
                      const std::string& detail, std::vector<std::uint32_t> cited = {}) {
        const std::string what = slab ? "kfree(" + slab->name() + ")" : std::string("kfree");
        ex.fail_with_details(kind, property,
                             std::string("BUG: KASAN: ") + bug + " in " + what + " by " +
                                 by(current(), ex.step()) + detail,
                             {}, loc, std::move(cited));
    };
    if (!slab) {
        report(ViolationKind::invalid_free, "invalid-free", "invalid-free",
               ": not a pointer kmalloc returned");
    } else if (slab->memory() != objp) {
        const auto inside =
            static_cast<const char*>(objp) - static_cast<const char*>(slab->memory());
        report(ViolationKind::invalid_free, "invalid-free", "invalid-free",
               ": " + std::to_string(inside) + " bytes inside " + slab->name() + ", not its start");
    } else {
        report(ViolationKind::use_after_free, "double-free of " + slab->name(), "double-free",
               "; " + slab->name() + ": freed by " + by(slab->freed_by, slab->freed_at),
               {slab->freed_at});
    }
}

} // namespace lockcheck::detail
