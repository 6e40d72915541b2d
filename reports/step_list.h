// Which steps the report lists one by one. A trace of 200,000 ProfilerSteps wrote every step
// twice (steps.windows and steps.per_step, again under ranks[], and roofline.steps): a 226 MB
// report, and 1.5 GB to build it. The report lists the steps that matter and says how many it
// left out; steps.durations_us keeps every step (gate's Mann-Whitney test reads it), and
// `analyze --sqlite` has the full per-step table.
#pragma once

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope {

// At most this many steps are listed: the first kListedHead, the last kListedTail and the
// kListedLongest longest of the others, in step order. Traces with fewer list them all.
inline constexpr size_t kListedHead = 50;
inline constexpr size_t kListedTail = 50;
inline constexpr size_t kListedLongest = 100;
inline constexpr size_t kMaxListedSteps = kListedHead + kListedTail + kListedLongest;

// The positions (into a per-step array of durations.size() entries) of the listed steps, in
// order. A duration that is not a number counts as the shortest.
std::vector<size_t> ListedStepPositions(const std::vector<double>& durations);

// {count, listed, truncated, rule}: what a reader needs to tell a bounded list from a whole one.
nlohmann::json ListedStepsJson(size_t total, size_t listed);

}  // namespace ampscope
