// The report's `inputs` and `devices` sections (docs/report_schema.md: what was read, and the
// GPUs it ran on) as the header lines read them: typed, and lenient as render/ has always been
// (a missing field, or one of another type, is nullopt / "" / an empty list, never an
// exception). Their field names are declared here once (inputs_key): the reader
// (inputs_view.cc) and the writer (reports/json_report.cc) both use them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::reports {

namespace inputs_key {
inline constexpr const char kInputs[] = "inputs";
inline constexpr const char kPath[] = "path";
inline constexpr const char kFormat[] = "format";
inline constexpr const char kDevices[] = "devices";
inline constexpr const char kName[] = "name";
inline constexpr const char kVendor[] = "vendor";
inline constexpr const char kComputeCapability[] = "compute_capability";
inline constexpr const char kComputeCapabilityBasis[] = "compute_capability_basis";
inline constexpr const char kPeak[] = "peak";
inline constexpr const char kMatched[] = "matched";
}  // namespace inputs_key

// inputs[]: one input (a rank's trace, a snapshot, a CSV).
struct InputRow {
  std::optional<std::string> path;
  std::string format;  // "kineto", "nsys", ...
};

// devices[]: one GPU.
struct DeviceRow {
  std::string name;                      // "" without deviceProperties
  std::string vendor;                    // "nvidia" | "amd" | ...
  std::string compute_capability;        // "8.0"; "" when unknown and for AMD
  std::string compute_capability_basis;  // "device_properties", else how the kernel names prove it
  std::string peak_matched;              // peak.matched: the peak-table row found for it
};

struct InputsView {
  std::vector<InputRow> inputs;    // one per element of inputs[]
  std::vector<DeviceRow> devices;  // one per element of devices[]
};

InputsView ReadInputsView(const nlohmann::json& report);
// devices[] alone (asked per text: is every device AMD?), without reading a job's inputs.
std::vector<DeviceRow> ReadDevices(const nlohmann::json& report);

}  // namespace ampscope::reports
