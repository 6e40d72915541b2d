#include "trace/classify/counter_roles.h"

namespace ampscope {

namespace {

struct Row {
  const char* name;
  CounterRole role;
};
constexpr Row kRows[] = {
    // ampscope record --tensor-metrics and nsys GPU_METRICS (trace/formats/nsys/nsys_host_tables.cc)
    {"tensor_active_pct", CounterRole::kTensorActive},
    {"sm_active_pct", CounterRole::kSmActive},
    {"dram_read_bandwidth_pct", CounterRole::kDramRead},
    {"dram_write_bandwidth_pct", CounterRole::kDramWrite},
    // CUPTI PM sampling metric names (and Nsight Compute's)
    {"sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed", CounterRole::kTensorActive},
    {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", CounterRole::kTensorActive},
    {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed", CounterRole::kTensorActive},
    {"sm__cycles_active.avg.pct_of_peak_sustained_elapsed", CounterRole::kSmActive},
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", CounterRole::kSmThroughput},
    {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", CounterRole::kDramThroughput},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", CounterRole::kDramThroughput},
    {"dram__read_throughput.avg.pct_of_peak_sustained_elapsed", CounterRole::kDramRead},
    {"dram__write_throughput.avg.pct_of_peak_sustained_elapsed", CounterRole::kDramWrite},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", CounterRole::kAchievedOccupancy},
    {"sm__warps_active.avg.pct_of_peak_sustained_elapsed", CounterRole::kAchievedOccupancy},
    {"lts__t_sector_hit_rate.pct", CounterRole::kL2HitRate},
    {"l1tex__t_sector_hit_rate.pct", CounterRole::kL1HitRate},
    // torch.profiler's display labels for PM metrics (pytorch/pytorch#188019 _PM_METRIC_LABELS: a
    // "% of peak" rollup gets " (%)"); nsys's GPU-metrics row names
    {"SM Active (%)", CounterRole::kSmActive},
    {"DRAM BW (%)", CounterRole::kDramThroughput},
    {"HBM BW (%)", CounterRole::kDramThroughput},
    {"HBM Read (%)", CounterRole::kDramRead},
    {"HBM Write (%)", CounterRole::kDramWrite},
    {"Tensor Active (%)", CounterRole::kTensorActive},
};

}  // namespace

const char* CounterRoleName(CounterRole r) {
  switch (r) {
    case CounterRole::kTensorActive: return "tensor_pipe_active_pct";
    case CounterRole::kSmActive: return "sm_active_pct";
    case CounterRole::kSmThroughput: return "sm_throughput_pct";
    case CounterRole::kDramThroughput: return "dram_throughput_pct";
    case CounterRole::kDramRead: return "dram_read_throughput_pct";
    case CounterRole::kDramWrite: return "dram_write_throughput_pct";
    case CounterRole::kAchievedOccupancy: return "achieved_occupancy_pct";
    case CounterRole::kL1HitRate: return "l1_hit_rate_pct";
    case CounterRole::kL2HitRate: return "l2_hit_rate_pct";
    case CounterRole::kNone: break;
  }
  return "";
}

CounterRole CounterRoleOf(std::string_view counter_name) {
  for (const Row& r : kRows)
    if (counter_name == r.name) return r.role;
  return CounterRole::kNone;
}

}  // namespace ampscope
