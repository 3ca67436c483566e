// libFuzzer target: the schedule parser, which reads `--replay 0.1.1.0` and every saved report's
// "schedule". Any bytes are a schedule or a one-line error, and a schedule that was read prints
// as text that reads back to the same schedule.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "properties.hpp"
#include "scheduler/schedule.hpp"

using lockcheck::detail::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    lockcheck::detail::Schedule schedule;
    std::string error;
    if (!lockcheck::detail::parse_schedule(text, schedule, error)) {
        lockcheck::detail::fuzz::require_one_line(error);
        return 0;
    }
    const std::string printed = lockcheck::detail::format_schedule(schedule);
    lockcheck::detail::Schedule again;
    require(lockcheck::detail::parse_schedule(printed, again, error),
            "a printed schedule does not read", printed + ": " + error);
    require(again == schedule, "a printed schedule reads back as another one", printed);
    return 0;
}
