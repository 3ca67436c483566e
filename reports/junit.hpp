// JUnit XML for CI test reporters (Jenkins, GitLab, GitHub Actions): each model/variant
// checked is a test case that fails when the check found a violation. It takes the same
// RunReport as the JSON report, so the two cannot disagree; it decides no verdict itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "json_report.hpp"

namespace lockcheck::detail {

// One <testsuites> holding one <testsuite name="lockcheck">, with per run
//   <testcase classname="MODEL" name="VARIANT SIZE=N ..." time="SECONDS">
// (name="atomic renames=1 fsyncs=1"; the variant alone for a model without sizes)
// and, when the run fails, one <failure message="..." type="KIND"> per counterexample whose
// text is that counterexample as the command line prints it (violation, trace, replay
// command). What fails a run depends on the command: a check of one variant fails when it
// found a violation; check-all judges each run against its variant's declared verdict,
// failing one that differs. Under both, a run that found nothing but could not look
// everywhere (a limit stopped it, the depth bound cut executions, it sampled) is <skipped>
// with the reason, never a pass. <system-out> holds the run's summary block. Elapsed times are
// the only part that varies. Bytes that XML cannot carry even as references (control
// characters, invalid UTF-8) are written as the text "\xNN", so that the document is always
// well-formed.
enum class JUnitJudging : std::uint8_t { any_violation_fails, against_declared_verdict };
std::string to_junit(const std::vector<RunReport>& runs,
                     JUnitJudging judging = JUnitJudging::any_violation_fails);

} // namespace lockcheck::detail
