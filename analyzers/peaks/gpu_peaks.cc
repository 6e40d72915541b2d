// GPU peaks: matching device names to rows of the table in gpu_peaks_table.cc, the
// gpu_peaks.tsv parser for user tables, and the per-precision peak.
#include "analyzers/peaks/gpu_peaks.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <sstream>

#include "base/read_file.h"
#include "base/tensor_cores.h"

namespace ampscope {
namespace {

// Upper case, and runs of ' ', '-', '_' as one space: "NVIDIA A100-SXM4-80GB" == "nvidia a100 sxm4 80gb".
std::string Normalize(std::string_view s) {
  std::string out;
  bool sep = false;
  for (char c : s) {
    if (c == ' ' || c == '-' || c == '_' || c == '\t') {
      sep = !out.empty();
      continue;
    }
    if (sep) out.push_back(' ');
    sep = false;
    out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return out;
}

std::vector<std::string> Tokens(std::string_view name) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool HasDigit(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Device names that need more than the name to say which part it is, or that name no part.
struct NameRule {
  const char* name;
  int32_t sms;           // 0 = any
  double min_mem_gib;    // 0 = any
  double max_mem_gib;    // 0 = any
  const char* row;       // nullptr: not found with `reason`
  const char* reason;
};
constexpr NameRule kNameRules[] = {
    // ROCm's marketing name for device 0x740c, shared by both parts (Ray's AMD product table lists
    // it as "AMD-Instinct-MI250X-MI250"); a GCD of an MI250X has 110 CUs, of an MI250 104.
    {"AMD Instinct MI250X/MI250", 110, 0, 0, "MI250X-GCD", nullptr},
    {"AMD Instinct MI250X/MI250", 104, 0, 0, "MI250-GCD", nullptr},
    {"AMD Instinct MI250X/MI250", 0, 0, 0, nullptr,
     "ROCm gives this name to both the MI250X (110 CUs per GCD) and the MI250 (104): the trace gives no CU "
     "count that tells them apart; pass --gpu MI250X-GCD or --gpu MI250-GCD"},
    // ROCm's name when no marketing name was found; the HTA MI250 trace has it (gfx90a, 104 CUs,
    // 64 GB: an MI210 and one GCD of an MI250 look the same).
    {"AMD Radeon Graphics", 0, 0, 0, nullptr,
     "a generic ROCm device name that does not say which GPU it is; pass --gpu with the part (e.g. MI210, "
     "MI250-GCD, MI300X)"},
    // A100 SXM4 boards reported by their board number (AITemplate#749 saw it for the 80 GB SXM part;
    // the shared HTA traces have it with 40 GB): the memory size says which.
    // The 10 GB and 12 GB RTX 3080 share CUDA's name: 68 SMs is the 10 GB part (its row's own
    // name), 70 the 12 GB part.
    {"NVIDIA GeForce RTX 3080", 70, 0, 0, "RTX-3080-12GB", nullptr},
    {"GeForce RTX 3080", 70, 0, 0, "RTX-3080-12GB", nullptr},
    {"NVIDIA A100-PG509-200", 108, 30, 48, "A100-40GB-SXM4", nullptr},
    {"NVIDIA A100-PG509-200", 108, 70, 90, "A100-80GB-SXM4", nullptr},
    {"NVIDIA A100-PG509-200", 0, 0, 0, nullptr,
     "an A100 SXM4 board number: 40 GB or 80 GB (1,555 or 2,039 GB/s) is told by the memory size and SM "
     "count, which the trace does not give; pass --gpu A100-40GB-SXM4 or A100-80GB-SXM4"},
};

bool RuleApplies(const NameRule& r, const GpuQuery& q) {
  if (r.sms > 0 && q.sm_count != r.sms) return false;
  const double gib = static_cast<double>(q.memory_bytes) / (1024.0 * 1024.0 * 1024.0);
  if (r.min_mem_gib > 0 && (q.memory_bytes <= 0 || gib < r.min_mem_gib)) return false;
  if (r.max_mem_gib > 0 && (q.memory_bytes <= 0 || gib > r.max_mem_gib)) return false;
  return true;
}

const GpuPeak* FindRow(const std::vector<GpuPeak>& table, std::string_view id) {
  for (const GpuPeak& p : table)
    if (p.id == id) return &p;
  return nullptr;
}

// A row whose id or one of whose device names equals `norm` (normalized).
const GpuPeak* ExactRow(const std::vector<GpuPeak>& table, const std::string& norm, std::string* how) {
  for (const GpuPeak& p : table) {
    if (Normalize(p.id) == norm) {
      *how = "row id";
      return &p;
    }
    for (const std::string& n : p.device_names) {
      if (Normalize(n) == norm) {
        *how = "device name";
        return &p;
      }
    }
  }
  return nullptr;
}

// Rows sharing a model token (one with a digit, e.g. "H100", "MI300X") with the name.
std::vector<std::string> CloseRows(const std::vector<GpuPeak>& table, std::string_view name) {
  std::set<std::string> want;
  for (const std::string& t : Tokens(name))
    if (HasDigit(t) && t.size() >= 2) want.insert(t);
  std::vector<std::string> out;
  for (const GpuPeak& p : table) {
    std::vector<std::string> toks = Tokens(p.id);
    for (const std::string& n : p.device_names) {
      std::vector<std::string> more = Tokens(n);
      toks.insert(toks.end(), more.begin(), more.end());
    }
    bool hit = false;
    for (const std::string& t : toks) {
      for (const std::string& w : want) {
        // "H100" matches "H100"; "A100" matches "A100"; "4090" matches "RTX 4090".
        if (t == w || (w.size() >= 3 && t.find(w) != std::string::npos) ||
            (t.size() >= 3 && w.find(t) != std::string::npos && HasDigit(t))) {
          hit = true;
        }
      }
    }
    if (hit) out.push_back(p.id);
    if (out.size() >= 6) break;
  }
  return out;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

// The first number in a cell ("125 (fp16 only, no bf16)" -> 125, "Gen4 64" -> 64, "n/a" -> 0).
double FirstNumber(std::string_view cell) {
  std::string s(cell);
  if (s.rfind("Gen", 0) == 0) {
    size_t sp = s.find(' ');
    s = sp == std::string::npos ? "" : s.substr(sp + 1);
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      std::string num;
      while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == ',')) {
        if (s[i] != ',') num.push_back(s[i]);
        ++i;
      }
      return std::strtod(num.c_str(), nullptr);
    }
  }
  return 0;
}

}  // namespace

double GpuPeak::DenseTflops(Precision p) const {
  switch (p) {
    case Precision::kFp64: return fp64_matrix_tflops > 0 ? fp64_matrix_tflops : fp64_tflops;
    case Precision::kFp32: return std::max(fp32_tflops, fp32_matrix_tflops);
    case Precision::kTf32: return tf32_tflops;
    case Precision::kFp16: return fp16_tflops;
    case Precision::kBf16: return bf16 ? (bf16_tflops > 0 ? bf16_tflops : fp16_tflops) : 0;
    case Precision::kFp8: return fp8_tflops;
    case Precision::kInt8: return int8_tops;
    case Precision::kUnknown:
    case Precision::kCount: break;
  }
  return 0;
}

StatusOr<std::vector<GpuPeak>> ParseGpuPeaksTsv(std::string_view text, const std::string& display_name) {
  std::vector<GpuPeak> rows;
  std::istringstream in{std::string(text)};
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#' || line.rfind("gpu\t", 0) == 0) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) cells.push_back(cell);
    if (cells.size() < 7) {
      return Status::Error(display_name + ": line " + std::to_string(line_no) +
                           ": expected at least 7 tab-separated columns (gpu, fp16, tf32, fp32, hbm, nvlink, pcie)");
    }
    GpuPeak p;
    p.id = cells[0];
    p.fp16_tflops = FirstNumber(cells[1]);
    p.tf32_tflops = FirstNumber(cells[2]);
    p.fp32_tflops = FirstNumber(cells[3]);
    p.hbm_gbs = FirstNumber(cells[4]);
    p.nvlink_gbs = FirstNumber(cells[5]);
    p.pcie_gbs = FirstNumber(cells[6]);
    p.bf16 = RowHasBf16TensorCores(p.tf32_tflops, cells[1].find("no bf16") != std::string::npos);
    if (p.fp16_tflops <= 0 || p.fp32_tflops <= 0) {
      return Status::Error(display_name + ": line " + std::to_string(line_no) + ": no fp16 or fp32 peak for " + p.id);
    }
    rows.push_back(std::move(p));
  }
  if (rows.empty()) return Status::Error(display_name + ": no GPU rows");
  return rows;
}

StatusOr<std::vector<GpuPeak>> LoadGpuPeaksTsv(const std::string& path) {
  StatusOr<std::string> text = ReadFileCapped(path, "a GPU peak table (gpu_peaks.tsv)");
  if (!text.ok()) return text.status();
  return ParseGpuPeaksTsv(*text, path);
}

GpuQuery QueryFor(const Device& d) {
  GpuQuery q;
  q.name = d.name;
  q.sm_count = d.sm_count > 0 ? d.sm_count : 0;
  q.memory_bytes = d.total_memory_bytes > 0 ? d.total_memory_bytes : 0;
  if (!d.arch_basis.empty() && d.name.empty()) {
    q.inferred_cc_major = d.cc_major;
    q.inferred_cc_minor = d.cc_minor;
  }
  return q;
}

const char* AssumedGpuForArch(int32_t cc_major, int32_t cc_minor) {
  if (cc_minor != 0) return nullptr;
  switch (cc_major) {
    case 7: return "V100-SXM2-16/32GB";
    case 8: return "A100-80GB-SXM4";
    case 9: return "H100-SXM5-80GB";
    case 10: return "B200";
    default: return nullptr;
  }
}

GpuMatch MatchGpu(const GpuQuery& device, const std::vector<GpuPeak>& table) {
  GpuMatch m;
  if (device.name.empty()) {
    const char* assumed = AssumedGpuForArch(device.inferred_cc_major, device.inferred_cc_minor);
    if (assumed != nullptr) m.peak = FindRow(table, assumed);
    if (m.peak != nullptr) {
      m.reason = "assumed: the trace names no GPU; its kernel names prove compute capability >= " +
                 std::to_string(device.inferred_cc_major) + ".0, whose datacenter GPU is the " + m.peak->id +
                 " (a later GPU also runs these kernels); pass --gpu to name the GPU";
      return m;
    }
    m.reason = device.inferred_cc_major >= 0
                   ? "the trace names no GPU; its kernel names prove compute capability >= " + std::to_string(device.inferred_cc_major) +
                         "." + std::to_string(device.inferred_cc_minor) + ", which many GPUs share; pass --gpu"
                   : "the trace names no GPU (no deviceProperties); pass --gpu";
    return m;
  }
  const std::string norm = Normalize(device.name);
  const std::vector<std::string> tokens = Tokens(device.name);
  if (std::find(tokens.begin(), tokens.end(), "MIG") != tokens.end()) {
    m.reason = "\"" + std::string(device.name) +
               "\" is a MIG instance: a slice of the GPU whose share of the peaks is not known; pass --gpu to use "
               "the whole GPU's peaks";
    return m;
  }
  for (const NameRule& r : kNameRules) {
    if (Normalize(r.name) != norm || !RuleApplies(r, device)) continue;
    if (r.row == nullptr) {
      m.reason = "\"" + std::string(device.name) + "\": " + r.reason;
      m.close = CloseRows(table, device.name);
      return m;
    }
    m.peak = FindRow(table, r.row);
    if (m.peak != nullptr) {
      m.reason = std::string("device name with ") + (r.sms > 0 ? "its SM/CU count" : "") +
                 (r.sms > 0 && r.min_mem_gib > 0 ? " and " : "") + (r.min_mem_gib > 0 ? "its memory size" : "");
      return m;
    }
  }
  std::string how;
  const GpuPeak* row = ExactRow(table, norm, &how);
  if (row == nullptr) {
    m.close = CloseRows(table, device.name);
    m.reason = "\"" + std::string(device.name) + "\" is not in the GPU peak table" +
               (m.close.empty() ? std::string() : " (close: " + Join(m.close) + ")") +
               "; no other GPU's peaks are used. Pass --gpu with a row id (docs/roofline.md lists them)";
    return m;
  }
  if (device.sm_count > 0 && row->sm_count > 0 && device.sm_count != row->sm_count) {
    m.reason = "\"" + std::string(device.name) + "\" reports " + std::to_string(device.sm_count) +
               " SMs/CUs but the " + row->id + " has " + std::to_string(row->sm_count) +
               ": a partition of the GPU (MIG, CPX) or another part; pass --gpu to use " + row->id + "'s peaks";
    m.close = {row->id};
    return m;
  }
  m.peak = row;
  m.reason = how;
  return m;
}

StatusOr<const GpuPeak*> ResolveGpuOverride(std::string_view name, const std::vector<GpuPeak>& table) {
  const std::string norm = Normalize(name);
  std::string how;
  if (const GpuPeak* row = ExactRow(table, norm, &how)) return row;
  std::vector<std::string> close = CloseRows(table, name);
  std::string msg = "--gpu \"" + std::string(name) + "\" is not a GPU of the peak table (row ids and device names "
                    "match exactly, ignoring case and -/_/space)";
  for (const NameRule& r : kNameRules) {
    if (Normalize(r.name) == norm && r.row == nullptr) msg += ": " + std::string(r.reason);
  }
  msg += close.empty() ? std::string("; docs/roofline.md lists the rows") : "; close matches: " + Join(close);
  return Status::Error(msg);
}

const GpuPeak* LookupGpuPeak(std::string_view device_name, const std::vector<GpuPeak>& table) {
  GpuQuery q;
  q.name = device_name;
  return MatchGpu(q, table).peak;
}

}  // namespace ampscope
