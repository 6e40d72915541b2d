// An Nsight Compute CSV export as read (`ncu --csv`, long `--page details` or wide `--page raw`):
// one NcuLaunch per profiled kernel launch, with the values ampscope reads from it already in
// base units (ns, %, bytes, Hz) and `std::nullopt` where the file lacks the metric.
//
// Which metric names feed which field is one table (ncu_fields.cc, documented in docs/ncu.md).
// The reader keeps only these typed values per launch, plus the file's metric set once, so memory
// grows with the launches, not with the rows.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.h"

namespace ampscope {

enum class NcuShape : uint8_t {
  kLong,  // `--page details` (the default): one row per (launch, section, metric) and rule rows
  kWide,  // `--page raw`: one row per launch, a column per metric, a units row under the header
};
const char* NcuShapeName(NcuShape s);  // "long" | "wide"

// The per-launch values ampscope reads. Units: kDurationNs in ns; *_pct 0-100; kIpc instructions
// per active cycle; kDramBytes bytes; kSmCyclesPerSecond Hz; the rest plain counts.
enum class NcuField : uint8_t {
  kDurationNs,
  kSmThroughputPct,          // "Compute (SM) Throughput"
  kIpc,                      // "Executed Ipc Active"
  kDramThroughputPct,        // "DRAM Throughput"
  kMemoryThroughputPct,      // "Memory Throughput" (%): the busiest of DRAM, L1, L2
  kL1HitRatePct,
  kL2HitRatePct,
  kAchievedOccupancyPct,
  kTheoreticalOccupancyPct,
  kTensorPipeActivePct,
  kIssueActivePct,           // "One or More Eligible": cycles a scheduler issued an instruction
  kWavesPerSm,
  kRegistersPerThread,
  kSmCount,
  kDramBytes,                // dram__bytes.sum
  kDramBytesRead,            // dram__bytes_read.sum (with _write: their sum stands in for kDramBytes)
  kDramBytesWrite,
  kSmCyclesElapsed,          // sm__cycles_elapsed.avg and ...
  kSmCyclesPerSecond,        // ... sm__cycles_elapsed.avg.per_second: the duration when there is none
  kBlockLimitRegisters,      // occupancy limiters: blocks per SM each resource allows
  kBlockLimitSharedMem,
  kBlockLimitWarps,
  kBlockLimitSm,
  kBlockLimitBarriers,
  kGridSize,                 // blocks in the grid (Launch Statistics "Grid Size", launch__grid_size)
  kBlockSize,                // threads per block
  kGridDimX, kGridDimY, kGridDimZ,
  kBlockDimX, kBlockDimY, kBlockDimZ,
  kCount
};
inline constexpr size_t kNcuFieldCount = static_cast<size_t>(NcuField::kCount);
const char* NcuFieldName(NcuField f);  // the report's key: "duration_ns", "sm_throughput_pct", ...

// One warp stall reason, as a share of the launch's stalls (0-100).
struct NcuStall {
  std::string reason;  // "long_scoreboard", "barrier", ... (the metric's own spelling)
  double value = 0;    // as the file gives it (cycles per instruction, %, or samples)
  double share_pct = 0;
};

// Floating-point (or integer tensor) operations of one precision on one path.
struct NcuFlops {
  std::string precision;  // "fp64", "fp32", "fp16" (half: fp16 or bf16 on the SIMT path), "bf16", "tf32", "fp8", "int8", ...
  std::string path;       // "tensor" | "simt"
  double flop = 0;
  std::string metric;     // the metric(s) it comes from
};

// A rule row of `--page details` (ncu's own advice: "OPT", "WRN", "INF").
struct NcuRule {
  std::string section;      // e.g. "SpeedOfLight"
  std::string name;         // e.g. "SOLBottleneck"
  std::string type;         // "OPT" | "WRN" | "INF" | ...
  std::string description;
  std::string speedup_type; // "local" | "global" | ""
  std::optional<double> est_speedup_pct;
};

struct NcuLaunch {
  int64_t id = -1;            // the file's "ID" (0-based launch index of the profile)
  std::string name;           // "Kernel Name" as ncu prints it (demangled)
  int64_t process_id = -1;
  std::string process_name;
  int32_t context = -1;
  int32_t stream = -1;
  int32_t device = -1;
  std::string cc;             // "12.0" ("" when the file has no CC column)
  // Launch shape: the "Grid Size"/"Block Size" columns "(x, y, z)" or launch__*_dim_*; else
  // only the totals (kGridSize/kBlockSize) are known.
  bool dims_known = false;
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  std::array<std::optional<double>, kNcuFieldCount> values{};
  std::string duration_source;  // the metric the duration comes from ("" when none)
  std::vector<NcuStall> stalls;  // by share, largest first ([] when the file has no stall metrics)
  std::string stall_metric;      // the family they come from
  std::vector<NcuFlops> flops;
  std::vector<NcuRule> rules;
  int64_t first_offset = -1;     // byte offset of the launch's first row
  uint32_t part = 0;             // the file it came from (NcuReport::parts) when several were merged

  const std::optional<double>& get(NcuField f) const { return values[static_cast<size_t>(f)]; }
  std::optional<double>& at(NcuField f) { return values[static_cast<size_t>(f)]; }
  // Threads per block and blocks per grid, from the dims or the totals (0: unknown).
  uint64_t grid_blocks() const;
  uint64_t block_threads() const;
};

// A metric the file has, listed once.
struct NcuMetric {
  std::string name;     // display name (long) or raw metric name
  std::string section;  // long form: "Section Name"; wide: ""
  std::string unit;
};

struct NcuReport {
  std::string path;                 // the file (the first one, for several merged)
  std::vector<std::string> parts;   // every file read into it, in order (MergeNcuReports)
  NcuShape shape = NcuShape::kLong;
  std::vector<NcuLaunch> launches;  // in file order
  std::vector<NcuMetric> metrics;   // the file's metric set, in first-seen order
  // The metric each field was first read from (its display or raw name; "" when no launch has it).
  std::array<std::string, kNcuFieldCount> field_sources;
  std::string device_name;          // wide form: device__attribute_display_name ("" otherwise)
  uint64_t preamble_lines = 0;      // lines before the header (==PROF==, program output)
  uint64_t rows = 0;                // CSV records after the header
  uint64_t bytes = 0;               // bytes read (uncompressed)
  Diagnostics diagnostics;
};

}  // namespace ampscope
