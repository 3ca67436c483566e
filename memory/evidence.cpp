// The catalogue of writes and the reads before them, and the independence it gives evidence of.
#include "evidence.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace lockcheck::detail::memory {

void Catalogue::record(const Made& made, std::span<const Seen> reads) {
    std::vector<Seen> history(reads.begin(), reads.end());
    const std::lock_guard lock(mutex_);
    std::set<std::vector<Seen>>& seen = writes_[made];
    if (!seen.insert(std::move(history)).second) return;
    if (seen.size() <= kCap) {
        ++entries_;
        return;
    }
    seen.erase(std::prev(seen.end()));
    ++dropped_;
}

std::uint64_t Catalogue::independent(const Made& made, std::span<const Seen> reads) const {
    const auto found = writes_.find(made);
    if (found == writes_.end()) return 0;
    std::uint64_t mask = 0;
    for (const std::vector<Seen>& other : found->second) {
        if (other.size() != reads.size()) continue;
        // The one read whose value differed, at the same locations everywhere.
        std::size_t differs = reads.size();
        bool fits = true;
        for (std::size_t i = 0; i < reads.size() && fits; ++i) {
            if (other[i] == reads[i]) continue;
            fits = other[i].loc == reads[i].loc && differs == reads.size();
            differs = i;
        }
        const std::size_t back = reads.size() - 1 - differs;
        if (fits && differs < reads.size() && back < 64) mask |= std::uint64_t{1} << back;
    }
    return mask;
}

bool Catalogue::any_independent() const {
    for (const auto& [made, histories] : writes_)
        for (const std::vector<Seen>& reads : histories)
            if (independent(made, reads) != 0) return true;
    return false;
}

void Catalogue::may_read_ahead(const Reader& reader, const Made& made) {
    const std::lock_guard lock(mutex_);
    std::vector<Made>& writes = ahead_[reader];
    const auto at = std::lower_bound(writes.begin(), writes.end(), made);
    if (at == writes.end() || *at != made) writes.insert(at, made);
}

bool Catalogue::knows_read_ahead(const Reader& reader, const Made& made) const {
    const std::lock_guard lock(mutex_);
    const auto found = ahead_.find(reader);
    return found != ahead_.end() &&
           std::binary_search(found->second.begin(), found->second.end(), made);
}

std::size_t Catalogue::reads_ahead_count() const {
    std::size_t n = 0;
    for (const auto& [reader, writes] : ahead_)
        n += writes.size();
    return n;
}

void Catalogue::freeze() {
    independent_anywhere_ = any_independent();
}

std::span<const Made> Catalogue::reads_ahead(std::uint32_t, const Reader& reader) const {
    const auto found = ahead_.find(reader);
    if (found == ahead_.end()) return {};
    return found->second;
}

std::string Tape::format() const {
    std::string out;
    const auto item = [&out](char kind, std::uint32_t query) {
        if (!out.empty()) out += ',';
        out += kind + std::to_string(query) + '=';
    };
    for (const auto& [query, mask] : masks_) {
        item('m', query);
        char hex[17];
        std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(mask));
        out += hex;
    }
    for (const auto& [query, writes] : futures_) {
        item('f', query);
        for (std::size_t i = 0; i < writes.size(); ++i)
            out += (i ? "+" : "") + std::to_string(writes[i].task) + '.' +
                   std::to_string(writes[i].nth) + '.' + std::to_string(writes[i].value);
    }
    return out;
}

namespace {

template <class T> bool number(std::string_view text, T& value, int base = 10) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

// The pieces of `text` between `separator`s.
std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    for (std::size_t pos = 0;;) {
        const std::size_t end = text.find(separator, pos);
        parts.push_back(text.substr(pos, end - pos));
        if (end == std::string_view::npos) return parts;
        pos = end + 1;
    }
}

} // namespace

bool Tape::parse(std::string_view text, Tape& tape, std::string& error) {
    tape = Tape{};
    if (text.empty()) return true;
    for (const std::string_view item : split(text, ',')) {
        const std::size_t eq = item.find('=');
        std::uint32_t query = 0;
        const char kind = item.empty() ? '\0' : item[0];
        bool ok = eq != std::string_view::npos && (kind == 'm' || kind == 'f') &&
                  number(item.substr(1, eq - 1), query);
        const std::string_view answer = ok ? item.substr(eq + 1) : std::string_view{};
        if (ok && kind == 'm') ok = number(answer, tape.masks_[query], 16);
        if (ok && kind == 'f')
            for (const std::string_view write : split(answer, '+')) {
                const std::vector<std::string_view> fields = split(write, '.');
                Made made;
                ok = ok && fields.size() == 3 && number(fields[0], made.task) &&
                     number(fields[1], made.nth) && number(fields[2], made.value);
                tape.futures_[query].push_back(made);
            }
        if (!ok) {
            error = "'" + std::string(item.substr(0, 40)) +
                    "' is no answer of the evidence (m<query>=<hex mask> or "
                    "f<query>=<task>.<nth>.<value>+...)";
            return false;
        }
    }
    return true;
}

std::uint64_t Tape::independent(std::uint32_t query, const Made&, std::span<const Seen>) const {
    const auto found = masks_.find(query);
    return found == masks_.end() ? 0 : found->second;
}

std::span<const Made> Tape::reads_ahead(std::uint32_t query, const Reader& reader) const {
    answer_.clear();
    if (const auto found = futures_.find(query); found != futures_.end())
        for (Made made : found->second) {
            made.loc = reader.loc;
            answer_.push_back(made);
        }
    return answer_;
}

std::uint64_t Recorder::independent(std::uint32_t query, const Made& made,
                                    std::span<const Seen> reads) const {
    const std::uint64_t mask = inner_.independent(query, made, reads);
    if (mask) tape_.masks_[query] = mask;
    return mask;
}

void Recorder::offered(std::uint32_t query, std::span<const Made> writes) const {
    if (!writes.empty()) tape_.futures_[query].assign(writes.begin(), writes.end());
}

} // namespace lockcheck::detail::memory
