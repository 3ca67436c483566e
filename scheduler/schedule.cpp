// Printing and parsing schedules.
#include "schedule.hpp"

#include <charconv>

#include "one_line.hpp"

namespace lockcheck::detail {

namespace {
// The schedule of no step: a violation met while the tasks start, before any step is taken.
// A word, so that the replay line has something to paste.
constexpr std::string_view kNoSteps = "none";
} // namespace

std::string format_schedule(const Schedule& schedule) {
    if (schedule.empty()) return std::string(kNoSteps);
    std::string out;
    for (std::size_t i = 0; i < schedule.size(); ++i) {
        if (i) out += '.';
        out += std::to_string(schedule[i]);
    }
    return out;
}

bool parse_schedule(std::string_view text, Schedule& schedule, std::string& error) {
    schedule.clear();
    if (text == kNoSteps) return true;
    if (text.empty()) {
        error = "the schedule is empty (one of no step is 'none')";
        return false;
    }
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find('.', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view item = text.substr(pos, end - pos);
        unsigned value = 0;
        auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
        if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() ||
            value >= static_cast<unsigned>(kMaxTasks)) {
            error = "step " + std::to_string(schedule.size() + 1) + ": '" + one_line(item) +
                    "' is not a task id (0.." + std::to_string(kMaxTasks - 1) + ")";
            return false;
        }
        schedule.push_back(static_cast<TaskId>(value));
        pos = end + 1;
    }
    return true;
}

} // namespace lockcheck::detail
