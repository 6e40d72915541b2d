// Warm-up and cold-start steps: steady-state detection on step durations, backed by the one-time
// CUDA work a cold step does (first kernel launches that load their module, cuDNN/cuBLAS handle
// and plan creation, context setup, pinned staging buffers, first cudaMallocs).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/context/context.h"
#include "trace/classify/trust_roles.h"

namespace ampscope {

inline constexpr size_t kColdStartRoles = static_cast<size_t>(ColdStartRole::kCount);

// A kernel launch this long is not a launch but work done inside it; on the first launch of a
// kernel that work is loading its module (CUDA_MODULE_LOADING=LAZY, the default since CUDA 11.7).
inline constexpr TimeNs kSlowFirstLaunchNs = 1'000'000;  // [heur] 1 ms: launches take 2-20 µs

// One-time CUDA work found in some host time.
struct ColdStartWork {
  TimeNs first_launch_ns = 0;          // slow first launches of a kernel name
  uint64_t first_launches = 0;
  TimeNs first_launch_min_ns = 0;
  TimeNs first_launch_max_ns = 0;
  std::array<TimeNs, kColdStartRoles> api_ns{};     // by ColdStartRole
  std::array<uint64_t, kColdStartRoles> api_calls{};
  TimeNs malloc_ns = 0;                // device allocations (cudaMalloc*, cuMemAlloc*)
  uint64_t mallocs = 0;

  // Work only a cold process does: slow first launches and the ColdStartRole calls.
  TimeNs one_time_ns() const;
  // The same and the device allocations (a warmed-up caching allocator makes none).
  TimeNs total_ns() const { return one_time_ns() + malloc_ns; }
  // "14 first kernel launches of 7.1-35.8 ms (lazy module loading); handle and plan creation
  // 36.2 ms (1,274 calls); 20 cudaMalloc 3.3 ms" ("" when there is none).
  std::string Describe() const;
};

// Classifies every API call of a trace once; then measures any host interval.
class ColdStartMeter {
 public:
  explicit ColdStartMeter(const Trace& trace);
  // The work of API calls that start in [start, end).
  ColdStartWork In(TimeNs start, TimeNs end) const;

 private:
  enum class Kind : uint8_t { kNone, kFirstLaunch, kMalloc, kRole };
  struct Call {
    TimeNs start_ns;
    TimeNs duration_ns;
    Kind kind;
    ColdStartRole role;
  };
  std::vector<Call> calls_;  // the calls that count, by start
};

// Which leading steps are warm-up, from the steps' durations and the one-time work each did.
// Step detection passes the shorter of each step's host range and analysed window: a first
// window that waits for GPU work queued before the profile began is not a long step. A leading step is warm-up when it is
//   - much longer than every step after it: >= 1.5x their median and > 1.2x their longest; or
//   - longer than every step after it (> 1.1x the median, > the longest) and one-time CUDA work
//     explains at least half of its excess over the median. Its one-time work is, kind by kind
//     (slow first launches, each ColdStartRole, device allocations), what it did beyond the most
//     that any later step did: work that recurs (an optimizer step that allocates every time) is
//     not one-time, however rare.
// Leading steps are judged one by one and the scan stops at the first steady one; at most half
// of the steps are warm-up, and one step alone cannot be judged against others. A longer step
// that recurs later (gradient accumulation, a periodic checkpoint) is never the longest.
struct WarmupVerdict {
  std::vector<size_t> steps;         // indices, leading
  std::vector<std::string> reasons;  // one per step
};
WarmupVerdict FindWarmupSteps(const std::vector<TimeNs>& durations, const std::vector<ColdStartWork>& work);

// "4.80 s", "300.0 ms", "850 µs": a duration for the analyzers' texts.
std::string DurationText(TimeNs ns);

}  // namespace ampscope
