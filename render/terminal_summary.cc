#include "render/terminal_summary.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include <fmt/format.h>

#include "render/format.h"

namespace ampscope::render {

namespace {

using nlohmann::json;
namespace rf = render;

enum class Color { kNone, kGreen, kYellow, kRed, kDim, kCyan, kBold };

const char* Ansi(Color c) {
  switch (c) {
    case Color::kGreen: return "\x1b[32m";
    case Color::kYellow: return "\x1b[33m";
    case Color::kRed: return "\x1b[31m";
    case Color::kDim: return "\x1b[2m";
    case Color::kCyan: return "\x1b[36m";
    case Color::kBold: return "\x1b[1m";
    default: return "";
  }
}

Color StatusColor(const std::string& status) {
  switch (rf::StatusClass(status)) {
    case 0: return Color::kGreen;
    case 1: return Color::kYellow;
    case 2: return Color::kRed;
    default: return Color::kDim;
  }
}

Color SeverityColor(const std::string& severity) {
  if (severity == "critical") return Color::kRed;
  if (severity == "warning") return Color::kYellow;
  return Color::kCyan;
}

std::string StatusLabel(const std::string& status) {
  if (status == "not_applicable") return "N/A";
  std::string s = status.empty() ? "UNKNOWN" : status;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

struct Cell {
  std::string text;
  Color color = Color::kNone;
  bool right = false;  // right-aligned (numbers)
};

class Out {
 public:
  explicit Out(bool color) : color_(color) {}
  std::string& str() { return s_; }
  std::string Paint(const std::string& text, Color c) const {
    if (!color_ || c == Color::kNone) return text;
    return std::string(Ansi(c)) + text + "\x1b[0m";
  }
  void Heading(const std::string& title) {
    s_ += "\n" + Paint(title, Color::kBold) + "\n";
  }
  void Line(const std::string& line = "") { s_ += line + "\n"; }

  // Columns padded to their widest cell (display width), two spaces apart, indented by 2.
  // Colour codes are added after padding so they never shift the alignment.
  void Table(const std::vector<std::string>& header, const std::vector<std::vector<Cell>>& rows) {
    std::vector<size_t> width(header.size(), 0);
    for (size_t c = 0; c < header.size(); ++c) width[c] = rf::DisplayWidth(header[c]);
    for (const auto& row : rows)
      for (size_t c = 0; c < row.size() && c < width.size(); ++c)
        width[c] = std::max(width[c], rf::DisplayWidth(row[c].text));
    auto emit = [&](const std::vector<Cell>& row, bool is_header) {
      std::string line = "  ";
      for (size_t c = 0; c < row.size() && c < width.size(); ++c) {
        const Cell& cell = row[c];
        size_t pad = width[c] - rf::DisplayWidth(cell.text);
        bool last = c + 1 == row.size();
        std::string text = Paint(cell.text, is_header ? Color::kDim : cell.color);
        if (cell.right) {
          line += std::string(pad, ' ') + text;
        } else {
          line += text + (last ? "" : std::string(pad, ' '));
        }
        if (!last) line += "  ";
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      s_ += line + "\n";
    };
    bool has_header = std::any_of(header.begin(), header.end(), [](const std::string& h) { return !h.empty(); });
    if (has_header) {
      std::vector<Cell> head;
      for (size_t c = 0; c < header.size(); ++c) {
        bool right = !rows.empty() && c < rows[0].size() && rows[0][c].right;  // align like the column
        head.push_back({header[c], Color::kNone, right});
      }
      emit(head, true);
    }
    for (const auto& row : rows) emit(row, false);
  }

 private:
  bool color_;
  std::string s_;
};

constexpr size_t kNameColumns = 60;
constexpr size_t kEvidenceColumns = 64;
constexpr size_t kMaxRankRows = 16;
constexpr size_t kMaxKernelRows = 10;
constexpr size_t kMaxFindings = 10;

void Overview(Out& o, const json& r) {
  std::string version = rf::String(r, "/tool/version");
  o.Line(o.Paint("ampscope report", Color::kBold) + (version.empty() ? "" : " (ampscope " + version + ")"));
  std::vector<std::vector<Cell>> rows;
  rows.push_back({{"Input"}, {rf::InputsSummary(r)}});
  rows.push_back({{"Device"}, {rf::DevicesSummary(r)}});
  rows.push_back({{"Steps"}, {rf::StepsSummary(r)}});
  if (rf::Number(r, "/steps/time_us/mean")) {
    rows.push_back({{"Step time"},
                    {fmt::format("mean {}   median {}   p90 {}", rf::DurationUs(rf::Number(r, "/steps/time_us/mean")),
                                 rf::DurationUs(rf::Number(r, "/steps/time_us/median")),
                                 rf::DurationUs(rf::Number(r, "/steps/time_us/p90")))}});
  }
  // No header row for this block: label/value pairs.
  for (const auto& row : rows)
    o.Line("  " + o.Paint(fmt::format("{:<10}", row[0].text), Color::kDim) + row[1].text);
}

void GpuTime(Out& o, const json& r) {
  o.Heading("GPU time (share of the analysed steps)");
  auto busy = rf::Number(r, "/gpu/busy_pct");
  std::vector<std::vector<Cell>> rows;
  Color busy_color = !busy ? Color::kDim : *busy >= 80 ? Color::kGreen : *busy >= 60 ? Color::kYellow : Color::kRed;
  rows.push_back({{"GPU busy"}, {rf::Pct(busy), busy_color, true}, {"any GPU work (kernels, copies, memsets)"}});
  rows.push_back({{"  kernels"}, {rf::Pct(rf::Number(r, "/gpu/kernel_busy_pct")), Color::kNone, true},
                  {"what TensorBoard calls GPU utilization"}});
  rows.push_back({{"GPU idle"}, {rf::Pct(rf::Number(r, "/gpu/idle_pct")), Color::kNone, true}, {""}});
  rows.push_back({{"  host_wait"}, {rf::Pct(rf::Number(r, "/gpu/idle_breakdown_pct/host_wait")), Color::kNone, true},
                  {"waiting for the CPU to launch work"}});
  rows.push_back({{"  kernel_wait"},
                  {rf::Pct(rf::Number(r, "/gpu/idle_breakdown_pct/kernel_wait")), Color::kNone, true},
                  {"short gaps between launched kernels"}});
  rows.push_back({{"  other"}, {rf::Pct(rf::Number(r, "/gpu/idle_breakdown_pct/other")), Color::kNone, true},
                  {"syncs, events, anything else"}});
  std::string tc_source = rf::String(r, "/tensor_cores/source", "estimated");
  rows.push_back({{"Tensor Cores"}, {rf::Pct(rf::Number(r, "/tensor_cores/kernel_time_pct")), Color::kNone, true},
                  {"of kernel time in Tensor Core kernels (" + tc_source + ")"}});
  if (auto active = rf::Number(r, "/tensor_cores/active_pct"))
    rows.push_back({{"  active"}, {rf::Pct(active), Color::kNone, true}, {"sampled Tensor Core activity"}});
  o.Table({"", "", ""}, rows);

  auto cats = rf::SortedShares(rf::Section(r, "/gpu/kernel_time_by_category_pct"));
  auto precs = rf::SortedShares(rf::Section(r, "/gpu/kernel_time_by_precision_pct"));
  if (!cats.empty() || !precs.empty()) {
    o.Heading("Kernel time by category and precision");
    std::vector<std::vector<Cell>> kt;
    size_t n = std::min<size_t>(std::max(cats.size(), precs.size()), 8);
    for (size_t i = 0; i < n; ++i) {
      std::vector<Cell> row;
      row.push_back({i < cats.size() ? cats[i].first : ""});
      row.push_back({i < cats.size() ? rf::Pct(cats[i].second) : "", Color::kNone, true});
      row.push_back({""});
      row.push_back({i < precs.size() ? precs[i].first : ""});
      row.push_back({i < precs.size() ? rf::Pct(precs[i].second) : "", Color::kNone, true});
      kt.push_back(row);
    }
    o.Table({"CATEGORY", "TIME", "", "PRECISION", "TIME"}, kt);
  }
}

void Matrix(Out& o, const json& r) {
  const json& m = rf::Section(r, "/matrix");
  if (!m.is_object() || m.empty()) return;
  o.Heading("Five-dimension matrix");
  std::vector<std::vector<Cell>> rows;
  for (const std::string& id : rf::DimensionOrder(r)) {
    if (!m.contains(id)) continue;
    const json& d = m[id];
    std::string status = rf::String(d, "/status", "unknown");
    const json& h = rf::Section(d, "/headline");
    std::string name = rf::String(h, "/name");
    std::string value = h.is_object() && h.contains("value") ? rf::Value(h["value"], rf::String(h, "/unit")) : "n/a";
    std::string findings;
    const json& f = rf::Section(d, "/findings");
    if (f.is_array())
      for (const json& id_json : f)
        if (id_json.is_string()) findings += (findings.empty() ? "" : ", ") + id_json.get<std::string>();
    rows.push_back({{rf::DimensionTitle(id)},
                    {StatusLabel(status), StatusColor(status)},
                    {rf::Truncate(name, 36)},
                    {value, Color::kNone, true},
                    {rf::Truncate(rf::String(h, "/source"), 28), Color::kDim},
                    {rf::Truncate(findings, 40)}});
  }
  o.Table({"DIMENSION", "STATUS", "HEADLINE", "VALUE", "SOURCE", "FINDINGS"}, rows);
}

void Checklist(Out& o, const json& r) {
  const json& c = rf::Section(r, "/checklist");
  if (!c.is_array() || c.empty()) return;
  o.Heading("Optimization checklist");
  std::vector<std::vector<Cell>> rows;
  for (const json& item : c) {
    std::string status = rf::String(item, "/status", "unknown");
    std::string evidence = rf::String(item, "/evidence");
    std::string how = rf::String(item, "/how_to_know");
    if (rf::StatusClass(status) == 3 && !how.empty()) evidence += (evidence.empty() ? "" : "; ") + how;
    rows.push_back({{rf::ChecklistTitle(rf::String(item, "/id"))},
                    {StatusLabel(status), StatusColor(status)},
                    {item.contains("value") ? rf::Value(item["value"]) : "n/a", Color::kNone, true},
                    {rf::String(item, "/threshold", "")},
                    {rf::Truncate(evidence, kEvidenceColumns)}});
  }
  o.Table({"ITEM", "STATUS", "VALUE", "THRESHOLD", "EVIDENCE"}, rows);
}

void Findings(Out& o, const json& r) {
  std::vector<const json*> findings = rf::RankedFindings(r);
  o.Heading(fmt::format("Findings ({}, ranked by estimated step-time saving)", findings.size()));
  if (findings.empty()) {
    o.Line("  " + o.Paint("no findings: nothing to fix was detected", Color::kGreen));
    return;
  }
  for (size_t i = 0; i < findings.size() && i < kMaxFindings; ++i) {
    const json& f = *findings[i];
    std::string severity = rf::String(f, "/severity", "info");
    auto saving = rf::Number(f, "/est_saving_pct");
    std::string head = fmt::format("  {}. {} {}", i + 1, o.Paint(fmt::format("[{}]", severity), SeverityColor(severity)),
                                   o.Paint(rf::String(f, "/id"), Color::kBold));
    if (saving && *saving > 0) head += fmt::format("  (est. saving {:.1f}% of step time)", *saving);
    o.Line(head);
    o.Line("     " + rf::String(f, "/title"));
    std::string evidence = rf::EvidenceText(rf::Section(f, "/evidence"), 96);
    if (!evidence.empty()) o.Line("     " + o.Paint("evidence: ", Color::kDim) + evidence);
    std::string rec = rf::String(f, "/recommendation");
    if (!rec.empty()) o.Line("     " + o.Paint("fix: ", Color::kDim) + rec);
  }
  if (findings.size() > kMaxFindings)
    o.Line(o.Paint(fmt::format("  ... {} more in the JSON/HTML report", findings.size() - kMaxFindings), Color::kDim));
}

void TopKernels(Out& o, const json& r) {
  const json& top = rf::Section(r, "/kernels/top");
  if (!top.is_array() || top.empty()) return;
  o.Heading("Top kernels by GPU time");
  std::vector<std::vector<Cell>> rows;
  for (size_t i = 0; i < top.size() && i < kMaxKernelRows; ++i) {
    const json& k = top[i];
    bool tc = k.value("tensor_core", false);
    rows.push_back({{rf::Pct(rf::Number(k, "/pct")), Color::kNone, true},
                    {rf::DurationUs(rf::Number(k, "/total_us")), Color::kNone, true},
                    {rf::Count(rf::Number(k, "/count")), Color::kNone, true},
                    {rf::DurationUs(rf::Number(k, "/mean_us")), Color::kNone, true},
                    {rf::String(k, "/category")},
                    {rf::String(k, "/precision")},
                    {tc ? "yes" : "-", tc ? Color::kGreen : Color::kDim},
                    {rf::Truncate(rf::String(k, "/name"), kNameColumns)}});
  }
  o.Table({"TIME", "TOTAL", "COUNT", "MEAN", "CATEGORY", "PREC", "TC", "NAME"}, rows);
}

void Ranks(Out& o, const json& r) {
  const json& ranks = rf::Section(r, "/ranks");
  if (!ranks.is_array() || ranks.size() < 2) return;
  o.Heading(fmt::format("Ranks ({})", ranks.size()));
  // The slowest ranks first: in a synchronous job they set the pace.
  std::vector<const json*> order;
  for (const json& rk : ranks) order.push_back(&rk);
  std::stable_sort(order.begin(), order.end(), [](const json* a, const json* b) {
    return rf::Number(*a, "/steps/time_us/mean").value_or(0) > rf::Number(*b, "/steps/time_us/mean").value_or(0);
  });
  std::vector<std::vector<Cell>> rows;
  for (size_t i = 0; i < order.size() && i < kMaxRankRows; ++i) {
    const json& rk = *order[i];
    rows.push_back({{rf::Count(rf::Number(rk, "/rank")), Color::kNone, true},
                    {rf::DurationUs(rf::Number(rk, "/steps/time_us/mean")), Color::kNone, true},
                    {rf::Pct(rf::Number(rk, "/gpu/busy_pct")), Color::kNone, true},
                    {rf::Pct(rf::Number(rk, "/gpu/kernel_busy_pct")), Color::kNone, true},
                    {rf::Pct(rf::Number(rk, "/gpu/idle_breakdown_pct/host_wait")), Color::kNone, true},
                    {rf::Pct(rf::Number(rk, "/tensor_cores/kernel_time_pct")), Color::kNone, true}});
  }
  o.Table({"RANK", "STEP MEAN", "BUSY", "KERNELS", "HOST_WAIT", "TC"}, rows);
  if (order.size() > kMaxRankRows)
    o.Line(o.Paint(fmt::format("  ... {} more ranks (slowest shown first)", order.size() - kMaxRankRows), Color::kDim));
}

void Diagnostics(Out& o, const json& r) {
  const json& counters = rf::Section(r, "/diagnostics/counters");
  if (!counters.is_object() || counters.empty()) return;
  std::string line;
  for (const auto& [code, n] : counters.items()) line += (line.empty() ? "" : ", ") + code + " " + rf::Value(n);
  // Data loss is worth a colour: numbers may be incomplete.
  bool data_loss = false;
  const json& messages = rf::Section(r, "/diagnostics/messages");
  if (messages.is_array())
    for (const json& m : messages) data_loss |= rf::String(m, "/severity") == "data_loss" || rf::String(m, "/severity") == "error";
  o.Heading("Input diagnostics");
  o.Line("  " + o.Paint(rf::Truncate(line, 160), data_loss ? Color::kYellow : Color::kDim));
}

}  // namespace

std::string RenderTerminalSummary(const json& report, bool color) {
  Out o(color);
  Overview(o, report);
  GpuTime(o, report);
  Matrix(o, report);
  Checklist(o, report);
  Findings(o, report);
  TopKernels(o, report);
  Ranks(o, report);
  Diagnostics(o, report);
  return o.str();
}

bool TerminalWantsColor(std::FILE* stream) {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::strcmp(term, "dumb") == 0) return false;
  return stream != nullptr && isatty(fileno(stream)) == 1;
}

}  // namespace ampscope::render
