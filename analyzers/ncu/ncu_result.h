// Measured kernel metrics and what the analysis made of them (analyzers/ncu/): an Nsight Compute
// CSV alone, or joined to a trace's kernels, or a trace's own hardware-counter tracks (Kineto PM
// sampling, nsys GPU_METRICS). reports/ncu_json.cc writes it as the report's `ncu` block.
// Units: *_ns ns, *_pct 0-100.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trace/classify/kernel_classifier.h"
#include "trace/formats/ncu/ncu_model.h"

namespace ampscope::ncu {

// Where a launch's time goes, from Nsight Compute's speed-of-light numbers (its SOLBottleneck
// rule): at or above kRoofPct of one unit's peak a kernel is bound by that unit; below it on both
// it is latency-bound (the GPU waits rather than works).
enum class Bound : uint8_t { kCompute, kMemory, kLatency, kUnknown };
const char* BoundName(Bound b);  // "compute" | "memory" | "latency" | "unknown"
inline constexpr double kRoofPct = 60.0;  // ncu: "below 60% of peak ... latency issues" [ncu SOLBottleneck]

// One profiled launch with what the analysis adds.
struct KernelRow {
  size_t launch = 0;  // index into NcuResult::report->launches
  KernelClass cls;
  // The time this launch's metrics are weighted by: its own duration (alone; 1 ns per launch when
  // the file has no duration), or the trace time of the trace kernels joined to it.
  double weight_ns = 0;
  uint64_t trace_kernels = 0;  // beside a trace: kernels joined to it
  std::vector<uint32_t> trace_kernel_ids;  // their indices into the trace's kernels (the fix's replay)
  std::string match;           // "alone" | "name+shape" | "base_name+shape" | "" (no trace kernel)
  Bound bound = Bound::kUnknown;
};

// One matrix value measured over the kernels: the weighted mean of the launches that have it.
struct MeasuredValue {
  std::optional<double> value;
  double coverage_pct = 0;  // share of the weighted kernel time whose launches have the metric
  std::string metric;       // the metric it comes from (the file's first source for the field)
};

// A counter track of the trace (PM sampling) and what it fills.
struct CounterTrack {
  std::string name;   // the counter's name in the trace
  std::string field;  // the NcuField name it fills ("dram_throughput_pct", ...), or "sm_active_pct"
  uint64_t samples = 0;
  double mean = 0;    // over the samples inside the analysed windows
};

struct NcuResult {
  std::shared_ptr<const NcuReport> report;  // null for counter tracks alone
  std::string source;     // "Nsight Compute" | "PM sampling"
  bool alone = false;     // the CSV analysed without a trace
  std::string weighting;  // "ncu duration" | "trace kernel time" | "launch count (no duration in the file)"
  std::vector<KernelRow> kernels;  // in file order
  // Weighted means over the kernels (or counter means), by NcuField; sm_active_pct separately.
  std::array<MeasuredValue, kNcuFieldCount> measured{};
  MeasuredValue sm_active_pct;
  std::vector<NcuStall> stalls;  // weighted shares of the launches with stall metrics
  double stall_coverage_pct = 0;
  double total_weight_ns = 0;    // the kernel time behind the means
  // Beside a trace: the join.
  uint64_t launches_matched = 0;
  uint64_t trace_kernels = 0;          // trace kernels in the analysed windows
  uint64_t trace_kernels_matched = 0;
  double kernel_time_covered_pct = 0;  // trace kernel time joined to a launch
  std::vector<CounterTrack> counters;  // counter tracks used (PM sampling)
  double counter_coverage_pct = 0;     // kernel time inside the sampled span

  const MeasuredValue& get(NcuField f) const { return measured[static_cast<size_t>(f)]; }
};

}  // namespace ampscope::ncu
