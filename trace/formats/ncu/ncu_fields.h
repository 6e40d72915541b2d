// Which Nsight Compute metric feeds which NcuField: one table of display names (`--page
// details`) and raw metric names (`--page raw`, `--metrics`), in order of preference, plus the
// metric families read by pattern (warp stall reasons, FLOPs by precision). docs/ncu.md lists it.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "trace/formats/ncu/ncu_model.h"
#include "trace/formats/ncu/ncu_units.h"

namespace ampscope::ncu {

// One name a field may come from; lower `rank` is preferred when a launch has several.
struct FieldSource {
  NcuField field;
  const char* name;
  UnitKind kind;  // the unit kind the value must have (a "Memory Throughput" in Gbyte/s is not the % one)
};
// The whole table, in preference order per field.
const std::vector<FieldSource>& FieldSources();

// Whether `name` is one ampscope reads (a table name or one of the pattern families).
bool IsReadMetric(std::string_view name);

// Collects one launch's metric values as its rows (long form) or columns (wide form) are read;
// Finish() writes them into the launch.
class LaunchValues {
 public:
  LaunchValues();
  // One metric of the launch: `value` as printed, in `unit`. Returns false when the metric is one
  // ampscope reads and its unit cannot be scaled to what the field needs (the caller counts it).
  bool Offer(std::string_view name, double value, const UnitScale& unit);
  // Resolves the fields (and the duration from SM cycles when the file has no duration), the
  // stall shares and the FLOPs. `sources` gets the metric each field came from, where empty.
  void Finish(NcuLaunch& launch, std::array<std::string, kNcuFieldCount>& sources);

 private:
  std::array<std::optional<double>, kNcuFieldCount> values_{};
  std::array<int, kNcuFieldCount> rank_{};  // rank of the source that gave values_[i]
  std::array<const char*, kNcuFieldCount> source_{};
  // Stall reasons per family (0 preferred): reason -> value.
  std::array<std::map<std::string, double>, 5> stalls_;
  // FLOPs: (precision, path, family) -> (flop, metrics)
  std::map<std::tuple<std::string, std::string, int>, std::pair<double, std::string>> flops_;
};

}  // namespace ampscope::ncu
