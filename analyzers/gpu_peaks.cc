#include "analyzers/gpu_peaks.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ampscope {
namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
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

// Device-name token rules, most specific first: every token listed must appear in the name.
struct NameRule {
  std::vector<const char*> tokens;
  const char* row;
};
const std::vector<NameRule>& NameRules() {
  static const std::vector<NameRule> rules = {
      {{"H200"}, "H200-SXM-141GB"},
      {{"H100", "PCIE"}, "H100-PCIe-80GB"},
      {{"H100"}, "H100-SXM5-80GB"},  // "H100 80GB HBM3", "H100-SXM5-80GB"
      {{"A100", "PCIE", "80GB"}, "A100-80GB-PCIe"},
      {{"A100", "80GB"}, "A100-80GB-SXM4"},
      {{"A100"}, "A100-40GB-SXM4"},  // 40 GB SXM4 and PCIe share the compute peaks and 1555 GB/s
      {{"V100", "PCIE"}, "V100-PCIe"},
      {{"V100"}, "V100-SXM2-16/32GB"},  // SXM2, SXM3, DGXS (DGX Station) parts
      {{"L4"}, "L4-24GB"},
      {{"RTX", "4090"}, "RTX-4090"},
      {{"RTX", "3090"}, "RTX-3090"},
      {{"T4"}, "T4-16GB"},
  };
  return rules;
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

const std::vector<GpuPeak>& BuiltinGpuPeaks() {
  // shared/reference/gpu_peaks.tsv: dense TFLOP/s and GB/s from NVIDIA datasheets.
  static const std::vector<GpuPeak> table = {
      // id                 fp16   tf32   fp32  hbm   nvlink pcie  bf16
      {"V100-SXM2-16/32GB", 125, 0, 15.7, 900, 300, 32, false},
      {"V100-PCIe", 112, 0, 14, 900, 0, 32, false},
      {"A100-40GB-SXM4", 312, 156, 19.5, 1555, 600, 64, true},
      {"A100-80GB-SXM4", 312, 156, 19.5, 2039, 600, 64, true},
      {"A100-80GB-PCIe", 312, 156, 19.5, 1935, 600, 64, true},
      {"H100-SXM5-80GB", 989.4, 494.7, 66.9, 3350, 900, 128, true},
      {"H100-PCIe-80GB", 756, 378, 51, 2000, 600, 128, true},
      {"H200-SXM-141GB", 989, 494.7, 67, 4800, 900, 128, true},
      {"L4-24GB", 121, 60, 30.3, 300, 0, 64, true},
      {"RTX-4090", 165.2, 82.6, 82.6, 1008, 0, 64, true},
      {"RTX-3090", 71, 35.6, 35.6, 936, 112.5, 64, true},
      {"T4-16GB", 65, 0, 8.1, 320, 0, 32, false},
  };
  return table;
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
    p.bf16 = cells[1].find("no bf16") == std::string::npos && p.tf32_tflops > 0;
    if (p.fp16_tflops <= 0 || p.fp32_tflops <= 0) {
      return Status::Error(display_name + ": line " + std::to_string(line_no) + ": no fp16 or fp32 peak for " + p.id);
    }
    rows.push_back(std::move(p));
  }
  if (rows.empty()) return Status::Error(display_name + ": no GPU rows");
  return rows;
}

StatusOr<std::vector<GpuPeak>> LoadGpuPeaksTsv(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::Error(path + ": cannot open");
  std::stringstream ss;
  ss << f.rdbuf();
  return ParseGpuPeaksTsv(ss.str(), path);
}

const GpuPeak* LookupGpuPeak(std::string_view device_name, const std::vector<GpuPeak>& table) {
  const std::string upper = Upper(device_name);
  for (const GpuPeak& p : table)
    if (Upper(p.id) == upper) return &p;
  const std::vector<std::string> tokens = Tokens(device_name);
  auto has = [&](const char* t) {
    for (const std::string& x : tokens)
      if (x == t) return true;
    return false;
  };
  for (const NameRule& r : NameRules()) {
    bool all = true;
    for (const char* t : r.tokens) all = all && has(t);
    if (!all) continue;
    for (const GpuPeak& p : table)
      if (p.id == r.row) return &p;
  }
  return nullptr;
}

}  // namespace ampscope
