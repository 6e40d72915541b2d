#include "trace/formats/ncu/ncu_fields.h"

#include <algorithm>
#include <cctype>
#include <tuple>
#include <unordered_map>

#include "base/saturating.h"

namespace ampscope {

const char* NcuFieldName(NcuField f) {
  switch (f) {
    case NcuField::kDurationNs: return "duration_ns";
    case NcuField::kSmThroughputPct: return "sm_throughput_pct";
    case NcuField::kIpc: return "ipc";
    case NcuField::kDramThroughputPct: return "dram_throughput_pct";
    case NcuField::kMemoryThroughputPct: return "memory_throughput_pct";
    case NcuField::kL1HitRatePct: return "l1_hit_rate_pct";
    case NcuField::kL2HitRatePct: return "l2_hit_rate_pct";
    case NcuField::kAchievedOccupancyPct: return "achieved_occupancy_pct";
    case NcuField::kTheoreticalOccupancyPct: return "theoretical_occupancy_pct";
    case NcuField::kTensorPipeActivePct: return "tensor_pipe_active_pct";
    case NcuField::kIssueActivePct: return "issue_active_pct";
    case NcuField::kWavesPerSm: return "waves_per_sm";
    case NcuField::kRegistersPerThread: return "registers_per_thread";
    case NcuField::kSmCount: return "sm_count";
    case NcuField::kDramBytes: return "dram_bytes";
    case NcuField::kDramBytesRead: return "dram_bytes_read";
    case NcuField::kDramBytesWrite: return "dram_bytes_write";
    case NcuField::kSmCyclesElapsed: return "sm_cycles_elapsed";
    case NcuField::kSmCyclesPerSecond: return "sm_cycles_per_second";
    case NcuField::kBlockLimitRegisters: return "block_limit_registers";
    case NcuField::kBlockLimitSharedMem: return "block_limit_shared_mem";
    case NcuField::kBlockLimitWarps: return "block_limit_warps";
    case NcuField::kBlockLimitSm: return "block_limit_sm";
    case NcuField::kBlockLimitBarriers: return "block_limit_barriers";
    case NcuField::kGridSize: return "grid_size";
    case NcuField::kBlockSize: return "block_size";
    case NcuField::kGridDimX: return "grid_dim_x";
    case NcuField::kGridDimY: return "grid_dim_y";
    case NcuField::kGridDimZ: return "grid_dim_z";
    case NcuField::kBlockDimX: return "block_dim_x";
    case NcuField::kBlockDimY: return "block_dim_y";
    case NcuField::kBlockDimZ: return "block_dim_z";
    case NcuField::kCount: break;
  }
  return "unknown";
}

const char* NcuShapeName(NcuShape s) { return s == NcuShape::kWide ? "wide" : "long"; }

uint64_t NcuLaunch::grid_blocks() const {
  if (dims_known) return uint64_t{grid[0]} * grid[1] * grid[2];
  const std::optional<double>& g = get(NcuField::kGridSize);
  return g && *g > 0 ? SaturatingCast<uint64_t>(*g) : 0;
}

uint64_t NcuLaunch::block_threads() const {
  if (dims_known) return uint64_t{block[0]} * block[1] * block[2];
  const std::optional<double>& b = get(NcuField::kBlockSize);
  return b && *b > 0 ? SaturatingCast<uint64_t>(*b) : 0;
}

namespace ncu {

namespace {

using F = NcuField;
using K = UnitKind;

// Display names are those of `ncu --page details` (sections SpeedOfLight, ComputeWorkloadAnalysis,
// MemoryWorkloadAnalysis, Occupancy, SchedulerStats, LaunchStats; older ncu spelled some "SM [%]");
// raw names are the metrics behind them (ncu's section files, `ncu --query-metrics`).
const std::vector<FieldSource> kSources = {
    {F::kDurationNs, "gpu__time_duration.sum", K::kTime},
    {F::kDurationNs, "Duration", K::kTime},
    {F::kDurationNs, "gpu__time_duration.avg", K::kTime},
    {F::kSmThroughputPct, "sm__throughput.avg.pct_of_peak_sustained_elapsed", K::kPercent},
    {F::kSmThroughputPct, "Compute (SM) Throughput", K::kPercent},
    {F::kSmThroughputPct, "SM [%]", K::kPercent},
    {F::kSmThroughputPct, "Compute (SM) [%]", K::kPercent},
    {F::kIpc, "sm__inst_executed.avg.per_cycle_active", K::kPlain},
    {F::kIpc, "Executed Ipc Active", K::kPlain},
    {F::kDramThroughputPct, "dram__throughput.avg.pct_of_peak_sustained_elapsed", K::kPercent},
    {F::kDramThroughputPct, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", K::kPercent},
    {F::kDramThroughputPct, "DRAM Throughput", K::kPercent},
    {F::kMemoryThroughputPct, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", K::kPercent},
    {F::kMemoryThroughputPct, "Memory Throughput", K::kPercent},
    {F::kMemoryThroughputPct, "Memory [%]", K::kPercent},
    {F::kL1HitRatePct, "l1tex__t_sector_hit_rate.pct", K::kPercent},
    {F::kL1HitRatePct, "L1/TEX Hit Rate", K::kPercent},
    {F::kL2HitRatePct, "lts__t_sector_hit_rate.pct", K::kPercent},
    {F::kL2HitRatePct, "L2 Hit Rate", K::kPercent},
    {F::kAchievedOccupancyPct, "sm__warps_active.avg.pct_of_peak_sustained_active", K::kPercent},
    {F::kAchievedOccupancyPct, "Achieved Occupancy", K::kPercent},
    {F::kTheoreticalOccupancyPct, "sm__maximum_warps_per_active_cycle_pct", K::kPercent},
    {F::kTheoreticalOccupancyPct, "Theoretical Occupancy", K::kPercent},
    // Tensor pipe: share of the kernel's elapsed cycles (what PM sampling and nsys "Tensor Active"
    // measure), else of its active cycles; HMMA/GMMA pipes of older/newer ncu.
    {F::kTensorPipeActivePct, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", K::kPercent},
    {F::kTensorPipeActivePct, "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed", K::kPercent},
    {F::kTensorPipeActivePct, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent},
    {F::kTensorPipeActivePct, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent},
    {F::kTensorPipeActivePct, "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent},
    {F::kTensorPipeActivePct, "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active", K::kPercent},
    {F::kIssueActivePct, "smsp__issue_active.avg.pct_of_peak_sustained_active", K::kPercent},
    {F::kIssueActivePct, "One or More Eligible", K::kPercent},
    {F::kWavesPerSm, "launch__waves_per_multiprocessor", K::kPlain},
    {F::kWavesPerSm, "Waves Per SM", K::kPlain},
    {F::kRegistersPerThread, "launch__registers_per_thread", K::kPlain},
    {F::kRegistersPerThread, "Registers Per Thread", K::kPlain},
    {F::kSmCount, "launch__sm_count", K::kPlain},
    {F::kSmCount, "# SMs", K::kPlain},
    {F::kSmCount, "device__attribute_multiprocessor_count", K::kPlain},
    {F::kDramBytes, "dram__bytes.sum", K::kBytes},
    {F::kDramBytesRead, "dram__bytes_read.sum", K::kBytes},
    {F::kDramBytesWrite, "dram__bytes_write.sum", K::kBytes},
    {F::kSmCyclesElapsed, "sm__cycles_elapsed.avg", K::kPlain},
    {F::kSmCyclesPerSecond, "sm__cycles_elapsed.avg.per_second", K::kFrequency},
    {F::kBlockLimitRegisters, "launch__occupancy_limit_registers", K::kPlain},
    {F::kBlockLimitRegisters, "Block Limit Registers", K::kPlain},
    {F::kBlockLimitSharedMem, "launch__occupancy_limit_shared_mem", K::kPlain},
    {F::kBlockLimitSharedMem, "Block Limit Shared Mem", K::kPlain},
    {F::kBlockLimitWarps, "launch__occupancy_limit_warps", K::kPlain},
    {F::kBlockLimitWarps, "Block Limit Warps", K::kPlain},
    {F::kBlockLimitSm, "launch__occupancy_limit_blocks", K::kPlain},
    {F::kBlockLimitSm, "Block Limit SM", K::kPlain},
    {F::kBlockLimitBarriers, "launch__occupancy_limit_barriers", K::kPlain},
    {F::kBlockLimitBarriers, "Block Limit Barriers", K::kPlain},
    {F::kGridSize, "launch__grid_size", K::kPlain},
    {F::kGridSize, "Grid Size", K::kPlain},
    {F::kBlockSize, "launch__block_size", K::kPlain},
    {F::kBlockSize, "Block Size", K::kPlain},
    {F::kGridDimX, "launch__grid_dim_x", K::kPlain},
    {F::kGridDimY, "launch__grid_dim_y", K::kPlain},
    {F::kGridDimZ, "launch__grid_dim_z", K::kPlain},
    {F::kBlockDimX, "launch__block_dim_x", K::kPlain},
    {F::kBlockDimY, "launch__block_dim_y", K::kPlain},
    {F::kBlockDimZ, "launch__block_dim_z", K::kPlain},
};

struct Ranked {
  F field;
  int rank;
  K kind;
  const char* name;
};

const std::unordered_map<std::string_view, std::vector<Ranked>>& Index() {
  static const auto* index = [] {
    auto* m = new std::unordered_map<std::string_view, std::vector<Ranked>>();
    std::array<int, kNcuFieldCount> next{};
    for (const FieldSource& s : kSources) {
      const size_t i = static_cast<size_t>(s.field);
      (*m)[s.name].push_back({s.field, next[i]++, s.kind, s.name});
    }
    return m;
  }();
  return *index;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// Warp stall families, in order of preference: the average number of warps stalled per issued
// instruction (ncu >= 2021 WarpStateStats), the older latency-per-issue ratio, the share of
// active warp cycles, and PC sampling counts (SourceCounters). `reason` is what is between.
struct StallFamily {
  const char* prefix;
  const char* suffix;
};
constexpr StallFamily kStallFamilies[] = {
    {"smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"},
    {"smsp__average_warp_latency_issue_stalled_", ".ratio"},
    {"smsp__warp_issue_stalled_", "_per_warp_active.pct"},
    {"smsp__pcsamp_warps_issue_stalled_", ""},
    // The WarpStateStats chart's rows in `--page details --print-details all` ("Stall Long
    // Scoreboard", "Stall MIO Throttle", ...): warp cycles per issued instruction by reason.
    {"Stall ", ""},
};
constexpr size_t kStallFamilyCount = sizeof(kStallFamilies) / sizeof(kStallFamilies[0]);

// "Long Scoreboard" -> "long_scoreboard", as the raw metrics spell the reason.
std::string SnakeCase(std::string_view words) {
  std::string out;
  for (char c : words) {
    if (c == ' ') {
      if (!out.empty() && out.back() != '_') out.push_back('_');
    } else {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

// -> (family, reason); family -1 when `name` is not a stall metric.
std::pair<int, std::string> StallOf(std::string_view name) {
  for (size_t f = 0; f < kStallFamilyCount; ++f) {
    const StallFamily& fam = kStallFamilies[f];
    if (!StartsWith(name, fam.prefix) || !EndsWith(name, fam.suffix)) continue;
    std::string_view words = name.substr(std::string_view(fam.prefix).size());
    words.remove_suffix(std::string_view(fam.suffix).size());
    if (words.empty() || words.find('.') != std::string_view::npos) continue;
    const std::string reason = f == kStallFamilyCount - 1 ? SnakeCase(words) : std::string(words);
    if (reason.empty()) continue;
    // Not stalls: the issuing warp itself, and PC-sampling's split of each reason.
    if (reason == "selected" || EndsWith(reason, "_not_issued")) return {-2, {}};
    return {static_cast<int>(f), reason};
  }
  return {-1, {}};
}

// FLOPs metrics -> (precision, path, family, weight); family -1 when not one. Families (lower
// preferred per precision and path): 0 sm__sass thread instructions, 1 smsp__sass, 2 the
// nvprof-era flop_count_*, 3 tensor ops.
struct FlopOf {
  int family = -1;
  std::string precision;
  const char* path = "simt";
  double weight = 1;
};
FlopOf FlopMetric(std::string_view name) {
  FlopOf out;
  for (auto [prefix, family] : {std::pair<std::string_view, int>{"sm__sass_thread_inst_executed_op_", 0},
                                std::pair<std::string_view, int>{"smsp__sass_thread_inst_executed_op_", 1}}) {
    if (!StartsWith(name, prefix) || !EndsWith(name, "_pred_on.sum")) continue;
    std::string_view op = name.substr(prefix.size());
    op.remove_suffix(std::string_view("_pred_on.sum").size());
    if (op.size() != 4) continue;  // dadd, fmul, hfma, ...
    const char p = op[0];
    const std::string_view kind = op.substr(1);
    if ((p != 'd' && p != 'f' && p != 'h') || (kind != "add" && kind != "mul" && kind != "fma")) continue;
    out.family = family;
    out.precision = p == 'd' ? "fp64" : p == 'f' ? "fp32" : "fp16";
    out.weight = kind == "fma" ? 2 : 1;  // an FMA is two operations (ncu's roofline counts it so)
    return out;
  }
  for (auto [metric, precision] : {std::pair<std::string_view, const char*>{"flop_count_dp", "fp64"},
                                   std::pair<std::string_view, const char*>{"flop_count_sp", "fp32"},
                                   std::pair<std::string_view, const char*>{"flop_count_hp", "fp16"}}) {
    if (name == metric || (StartsWith(name, metric) && name.substr(metric.size()) == ".sum")) {
      out.family = 2;
      out.precision = precision;
      return out;
    }
  }
  constexpr std::string_view kTensor = "sm__ops_path_tensor_src_";
  if (StartsWith(name, kTensor) && EndsWith(name, ".sum")) {
    std::string_view rest = name.substr(kTensor.size());
    rest.remove_suffix(4);
    const size_t dst = rest.find("_dst_");
    std::string_view src = rest.substr(0, dst);
    if (src.empty() || src.find('.') != std::string_view::npos) return out;
    out.family = 3;
    out.path = "tensor";
    // fp8_e4m3 / fp8_e5m2 are fp8; the others are spelled as the report spells precisions.
    out.precision = StartsWith(src, "fp8") ? "fp8" : std::string(src);
    return out;
  }
  return out;
}

}  // namespace

const std::vector<FieldSource>& FieldSources() { return kSources; }

bool IsReadMetric(std::string_view name) {
  return Index().count(name) > 0 || StallOf(name).first >= 0 || FlopMetric(name).family >= 0;
}

LaunchValues::LaunchValues() { rank_.fill(1 << 20); }

bool LaunchValues::Offer(std::string_view name, double value, const UnitScale& unit) {
  const auto it = Index().find(name);
  if (it != Index().end()) {
    bool fits = false;
    for (const Ranked& r : it->second) {
      if (!unit.known || r.kind != unit.kind) continue;
      fits = true;
      const size_t i = static_cast<size_t>(r.field);
      if (r.rank >= rank_[i]) continue;
      rank_[i] = r.rank;
      values_[i] = value * unit.factor;
      source_[i] = r.name;
    }
    // A display name used with another unit elsewhere ("Memory Throughput" in Gbyte/s) is not a
    // scaling problem; an unknown unit is.
    return fits || unit.known;
  }
  if (const auto [family, reason] = StallOf(name); family >= 0) {
    stalls_[static_cast<size_t>(family)].emplace(reason, value * unit.factor);
    return unit.known;
  }
  if (const FlopOf f = FlopMetric(name); f.family >= 0) {
    auto& [flop, metrics] = flops_[{f.precision, f.path, f.family}];
    flop += value * unit.factor * f.weight;
    metrics += (metrics.empty() ? "" : " + ") + std::string(name);
    return unit.known;
  }
  return true;
}

void LaunchValues::Finish(NcuLaunch& launch, std::array<std::string, kNcuFieldCount>& sources) {
  for (size_t i = 0; i < kNcuFieldCount; ++i) {
    if (!values_[i] || launch.values[i]) continue;
    launch.values[i] = values_[i];
    if (sources[i].empty()) sources[i] = source_[i];
  }
  const size_t dur = static_cast<size_t>(F::kDurationNs);
  if (launch.values[dur]) {
    launch.duration_source = source_[dur] ? source_[dur] : "";
  } else {
    // No duration: SM cycles over the SM clock (how ncu's own gpu__time_duration relates to them).
    const std::optional<double>& cycles = launch.get(F::kSmCyclesElapsed);
    const std::optional<double>& hz = launch.get(F::kSmCyclesPerSecond);
    if (cycles && hz && *hz > 0) {
      launch.at(F::kDurationNs) = *cycles / *hz * 1e9;
      launch.duration_source = "sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second";
      if (sources[dur].empty()) sources[dur] = launch.duration_source;
    }
  }
  if (!launch.get(F::kDramBytes) && launch.get(F::kDramBytesRead) && launch.get(F::kDramBytesWrite))
    launch.at(F::kDramBytes) = *launch.get(F::kDramBytesRead) + *launch.get(F::kDramBytesWrite);
  if (!launch.dims_known && launch.get(F::kGridDimX) && launch.get(F::kBlockDimX)) {
    auto dim = [&](F f) { return SaturatingCast<uint32_t>(std::max(1.0, launch.get(f).value_or(1))); };
    launch.grid[0] = dim(F::kGridDimX), launch.grid[1] = dim(F::kGridDimY), launch.grid[2] = dim(F::kGridDimZ);
    launch.block[0] = dim(F::kBlockDimX), launch.block[1] = dim(F::kBlockDimY), launch.block[2] = dim(F::kBlockDimZ);
    launch.dims_known = true;
  }
  // Stalls: the preferred family present, each reason's share of their sum.
  for (size_t f = 0; f < stalls_.size(); ++f) {
    double total = 0;
    for (const auto& [reason, v] : stalls_[f]) total += std::max(0.0, v);
    if (total <= 0) continue;
    launch.stalls.clear();
    for (const auto& [reason, v] : stalls_[f])
      if (v > 0) launch.stalls.push_back({reason, v, 100.0 * v / total});
    std::stable_sort(launch.stalls.begin(), launch.stalls.end(),
                     [](const NcuStall& a, const NcuStall& b) { return a.share_pct > b.share_pct; });
    launch.stall_metric = std::string(kStallFamilies[f].prefix) + "*" + kStallFamilies[f].suffix;
    break;
  }
  // FLOPs: per precision and path, the preferred family present.
  std::map<std::pair<std::string, std::string>, int> best;
  for (const auto& [key, v] : flops_) {
    const auto& [precision, path, family] = key;
    auto [it, fresh] = best.emplace(std::make_pair(precision, path), family);
    if (!fresh && family >= it->second) continue;
    it->second = family;
  }
  for (const auto& [pp, family] : best) {
    const auto& [flop, metrics] = flops_.at({pp.first, pp.second, family});
    launch.flops.push_back({pp.first, pp.second, flop, metrics});
  }
}

}  // namespace ncu
}  // namespace ampscope
