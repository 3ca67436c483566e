// libFuzzer target: the JSON report reader behind `lockcheck replay FILE.json`, fed the bytes as
// the file's contents. Parse and validate only: the replay itself runs the model on fibers,
// and a valid report may ask for a million steps, so this target stops where the replay would
// start. Any bytes are a replay request or a one-line error; a report that reads is written
// back as a document that reads back to itself; a refused one leaves the report untouched.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/replay_file.hpp"
#include "properties.hpp"
#include "reports/json_report.hpp"

using lockcheck::detail::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    lockcheck::detail::RunReport report;
    std::string error;
    if (lockcheck::detail::from_json(text, report, error)) {
        const std::string written = lockcheck::detail::to_json(report);
        lockcheck::detail::RunReport again;
        require(lockcheck::detail::from_json(written, again, error),
                "a written report does not read", error + "\n" + written);
        require(lockcheck::detail::to_json(again) == written,
                "a written report reads back as another one", written);
    } else {
        lockcheck::detail::fuzz::require_one_line(error);
        require(lockcheck::detail::to_json(report) ==
                    lockcheck::detail::to_json(lockcheck::detail::RunReport{}),
                "a refused report changed what it was read into", error);
    }
    lockcheck::detail::cli::CheckRequest request;
    if (!lockcheck::detail::cli::replay_request(text, 1, request, error))
        lockcheck::detail::fuzz::require_one_line(error);
    return 0;
}
