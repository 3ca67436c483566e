// The pacing of progress reports and the explored-fraction estimate.
#include "progress.hpp"

#include <algorithm>
#include <csignal>

namespace lockcheck::detail {

namespace {
// Clock reads aim to be this far apart (seconds).
constexpr double kReadLow = 0.002;
constexpr double kReadHigh = 0.02;
constexpr std::uint32_t kMaxStride = 1u << 16;
// Reports are due this often (seconds): a line redrawn a few times a second.
constexpr double kReportEvery = 0.25;
// Levels whose share of the tree is below this change no digit shown.
constexpr double kNegligible = 1e-4;
} // namespace

std::string signal_name(int signal) {
    switch (signal) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGHUP:
        return "SIGHUP";
    default:
        return "signal " + std::to_string(signal);
    }
}

bool ProgressPacer::read_clock() {
    since_read_ = 0;
    const auto now = std::chrono::steady_clock::now();
    const double gap = std::chrono::duration<double>(now - last_read_).count();
    last_read_ = now;
    if (gap < kReadLow) stride_ = std::min(stride_ * 2, kMaxStride);
    if (gap > kReadHigh) stride_ = std::max(stride_ / 2, 1u);
    seconds_ = std::chrono::duration<double>(now - start_).count();
    if (seconds_ - last_report_ < kReportEvery) return false;
    last_report_ = seconds_;
    return true;
}

bool ExploredFraction::level(int finished, int branches) {
    if (branches <= 0 || weight_ < kNegligible) return false;
    weight_ /= branches;
    fraction_ += weight_ * finished;
    return true;
}

} // namespace lockcheck::detail
