// Hand-built inputs for the report tests: a small trace whose timeline is worked out by hand
// (see report_fixtures.cc for the numbers). The hand-built report JSON for the renderers is in
// tests/render/report_json_fixture.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/results/analysis.h"
#include "trace/model.h"

namespace ampscope::testing {

// Base of the small trace's clock: an epoch-like time in ns with a sub-µs part, so that
// printing it through a double would visibly lose the last digits.
inline constexpr TimeNs kBaseNs = 1'700'000'000'000'000'123;

// Two ProfilerSteps of 100 µs on one GPU stream (see report_fixtures.cc for the timeline).
// Hand-computed with HTA's rules over the two steps (window 200 µs): busy 67 µs; idle
// host_wait 88 µs (gaps [0,20), [50,95), [99,100), [100,112), [190,200) µs), kernel_wait
// 5 µs ([40,45)), other 40 µs ([120,160)).
Trace MakeSmallTrace(int32_t rank = -1);
inline constexpr TimeNs kSmallHostWaitNs = 88'000;
inline constexpr TimeNs kSmallKernelWaitNs = 5'000;
inline constexpr TimeNs kSmallOtherIdleNs = 40'000;
// A kernel name with characters that need escaping in JSON, HTML and Markdown.
extern const char* const kNastyKernelName;

// Adds two findings to every rank (and the job): "test_slow_gap" with one time range
// ([50, 95) µs after kBaseNs) and "test_no_range" with none.
void AddTestFindings(JobAnalysis& job);

// Numbers a JSON value as a decimal string of int64 ns: "1700000000000000.123" -> ns.
// Independent of the writer's formatter (plain digit parsing), used to compare exactly.
bool ParseDecimalMicrosToNs(const std::string& text, int64_t* ns);

}  // namespace ampscope::testing
