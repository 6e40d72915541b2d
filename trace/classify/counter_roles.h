// What a sampled hardware counter of a trace measures, from its name: the collector's and nsys's
// own names ("tensor_active_pct", "dram_read_bandwidth_pct", trace/formats/nsys), CUPTI PM
// sampling's metric names as torch.profiler writes them into Kineto JSON (`ph: "C"` events on a
// "GPU N Counters" process: the raw metric name, or its display label such as "DRAM BW (%)";
// pytorch/pytorch#188019 `_pm_label`, kineto#1527/#1530), and the same metrics' Nsight Compute
// names. All are percentages of peak (0-100). docs/ncu.md lists them.
#pragma once

#include <cstdint>
#include <string_view>

namespace ampscope {

enum class CounterRole : uint8_t {
  kNone,
  kTensorActive,    // tensor pipe active, % of elapsed cycles
  kSmActive,        // SMs with a warp resident, % of elapsed cycles (not SM throughput)
  kSmThroughput,    // sm__throughput: the busiest SM unit, % of peak
  kDramThroughput,  // DRAM bandwidth, % of peak
  kDramRead,        // DRAM read bandwidth, % of peak (read + write = throughput)
  kDramWrite,
  kAchievedOccupancy,
  kL1HitRate,
  kL2HitRate,
};
const char* CounterRoleName(CounterRole r);  // "tensor_pipe_active_pct", "sm_active_pct", ..., "" for kNone

CounterRole CounterRoleOf(std::string_view counter_name);

}  // namespace ampscope
