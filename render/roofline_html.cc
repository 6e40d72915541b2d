#include "render/roofline_html.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "render/format.h"
#include "render/html_report.h"
#include "render/report_view.h"

namespace ampscope::render {
namespace {

using nlohmann::json;
using reports::RooflineSection;

constexpr size_t kMaxOpRows = 15;
constexpr size_t kMaxStepRows = 60;

// The chart's frame, in SVG user units.
constexpr double kWidth = 720, kHeight = 420;
constexpr double kLeft = 70, kRight = 150, kTop = 14, kBottom = 46;

std::string H(std::string_view s) { return HtmlEscape(s); }

struct Point {
  double intensity = 0;  // FLOP/byte
  double tflops = 0;
  double time_us = 0;
  std::string dtype, label;
};

struct Roof {
  std::string precision, unit;
  double tflops = 0;
};

// A log10 axis over whole decades.
struct LogAxis {
  double lo_exp = 0, hi_exp = 1;  // decades
  double from = 0, to = 1;        // pixels
  double At(double v) const {
    const double e = std::log10(v);
    return from + (e - lo_exp) / (hi_exp - lo_exp) * (to - from);
  }
  static LogAxis Over(double lo, double hi, double from, double to) {
    LogAxis a;
    a.lo_exp = std::floor(std::log10(lo));
    a.hi_exp = std::ceil(std::log10(hi));
    if (a.hi_exp <= a.lo_exp) a.hi_exp = a.lo_exp + 1;
    a.from = from;
    a.to = to;
    return a;
  }
};

// An axis label: 0.001 .. 1000 as decimals, beyond as 10 with a superscript exponent (no "1e5":
// readers see no exponent notation anywhere in the page).
std::string Decade(double e) {
  const double v = std::pow(10.0, e);
  if (e >= 0 && e <= 3) return fmt::format("{:.0f}", v);
  if (e < 0 && e >= -3) return fmt::format("{:.{}f}", v, static_cast<int>(-e));
  static const char* kSup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string out = "10";
  const long n = std::lround(e);
  if (n < 0) out += "⁻";
  for (char c : std::to_string(std::labs(n))) out += kSup[c - '0'];
  return out;
}

std::vector<Point> PlottedOps(const RooflineSection& roof) {
  std::vector<Point> pts;
  for (const reports::RooflineOp& o : roof.ops) {
    const auto fpb = o.flop_per_byte, tf = o.tflops, t = o.kernel_time_us, gflop = o.gflop;
    // A point needs both coordinates on a log scale: memory-only ops (0 FLOPs) are in the table.
    if (!fpb || !tf || !gflop || *fpb <= 0 || *tf <= 0 || *gflop <= 0) continue;
    Point p;
    p.intensity = *fpb;
    p.tflops = *tf;
    p.time_us = t.value_or(0);
    p.dtype = o.dtype.value_or("unknown");
    std::string pct = o.pct_of_peak ? ", " + Pct(o.pct_of_peak) + " of attainable" : "";
    if (!o.pct_note.empty()) pct += " (" + o.pct_note + ")";
    p.label = fmt::format("{} {} ({}, {}): {} FLOP/B, {} TFLOP/s{}, {} kernel time", o.op, Truncate(o.input_dims, 200),
                          p.dtype, o.pass, Significant(p.intensity), Significant(p.tflops), pct, DurationUs(t));
    pts.push_back(std::move(p));
  }
  return pts;
}

std::vector<Roof> Roofs(const RooflineSection& roof) {
  std::vector<Roof> roofs;
  for (const reports::RooflineRoof& r : roof.gpu.roofs)
    if (r.tflops && *r.tflops > 0) roofs.push_back({r.precision, r.unit, *r.tflops});
  return roofs;
}

// The SVG: axes per decade, one line per roof (min(peak, intensity x bandwidth)), the ops.
std::string Chart(const std::vector<Point>& pts, const std::vector<Roof>& roofs, std::optional<double> bw_tbps) {
  double xlo = 1e300, xhi = 0, ylo = 1e300, yhi = 0, tmax = 0;
  for (const Point& p : pts) {
    xlo = std::min(xlo, p.intensity), xhi = std::max(xhi, p.intensity);
    ylo = std::min(ylo, p.tflops), yhi = std::max(yhi, p.tflops);
    tmax = std::max(tmax, p.time_us);
  }
  for (const Roof& r : roofs) {
    yhi = std::max(yhi, r.tflops);
    if (bw_tbps && *bw_tbps > 0) xhi = std::max(xhi, r.tflops / *bw_tbps * 2);  // show the ridge
  }
  const LogAxis x = LogAxis::Over(xlo, xhi, kLeft, kWidth - kRight);
  const LogAxis y = LogAxis::Over(ylo, yhi * 1.5, kHeight - kBottom, kTop);
  std::string s = fmt::format(
      "<svg viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\" aria-label=\"Roofline: achieved TFLOP/s against FLOP per byte\">",
      kWidth, kHeight);
  s += "<g class=\"grid\">";
  for (double e = x.lo_exp; e <= x.hi_exp; ++e) {
    const double px = x.At(std::pow(10.0, e));
    s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\"/>", px, kTop, kHeight - kBottom);
  }
  for (double e = y.lo_exp; e <= y.hi_exp; ++e) {
    const double py = y.At(std::pow(10.0, e));
    s += fmt::format("<line x1=\"{1:.1f}\" x2=\"{2:.1f}\" y1=\"{0:.1f}\" y2=\"{0:.1f}\"/>", py, kLeft, kWidth - kRight);
  }
  s += "</g><g class=\"axis\">";
  for (double e = x.lo_exp; e <= x.hi_exp; ++e)
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", x.At(std::pow(10.0, e)),
                     kHeight - kBottom + 16, Decade(e));
  for (double e = y.lo_exp; e <= y.hi_exp; ++e)
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", kLeft - 6,
                     y.At(std::pow(10.0, e)) + 4, Decade(e));
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">FLOP per byte (arithmetic intensity)</text>",
                   (kLeft + kWidth - kRight) / 2, kHeight - 8);
  s += fmt::format("<text transform=\"translate(16 {:.1f}) rotate(-90)\" text-anchor=\"middle\">TFLOP/s achieved</text>",
                   (kTop + kHeight - kBottom) / 2);
  s += "</g>";

  // Roofs: attainable = min(peak, intensity x bandwidth), clipped to the frame's bottom.
  const double xmin = std::pow(10.0, x.lo_exp), xmax = std::pow(10.0, x.hi_exp), ymin = std::pow(10.0, y.lo_exp);
  for (const Roof& r : roofs) {
    std::vector<std::pair<double, double>> line;
    if (bw_tbps && *bw_tbps > 0) {
      const double ridge = r.tflops / *bw_tbps;
      const double start = std::max(xmin, ymin / *bw_tbps);
      if (start < ridge) line.emplace_back(start, start * *bw_tbps);
      line.emplace_back(std::max(std::min(ridge, xmax), start), std::min(r.tflops, std::max(std::min(ridge, xmax), start) * *bw_tbps));
    } else {
      line.emplace_back(xmin, r.tflops);
    }
    line.emplace_back(xmax, r.tflops);
    std::string d;
    for (const auto& [vx, vy] : line) d += fmt::format("{}{:.1f},{:.1f}", d.empty() ? "" : " ", x.At(vx), y.At(vy));
    s += fmt::format("<polyline class=\"roof\" data-precision=\"{}\" data-unit=\"{}\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
                     "stroke-width=\"1.5\" stroke-dasharray=\"{}\"/>",
                     H(r.precision), H(r.unit), d, PrecisionColour(r.precision), r.unit == "vector" ? "4 3" : "none");
  }
  // One label per roof height: roofs with the same peak (MI300X's fp32 matrix and vector) share it.
  std::vector<std::pair<double, std::string>> labels;
  for (const Roof& r : roofs) {
    const std::string name = r.precision + (r.unit == "vector" ? " vector" : "");
    auto same = std::find_if(labels.begin(), labels.end(), [&](const auto& l) { return std::fabs(l.first / r.tflops - 1) < 0.02; });
    if (same != labels.end()) same->second += ", " + name;
    else labels.emplace_back(r.tflops, name);
  }
  for (const auto& [tflops, names] : labels)
    s += fmt::format("<text class=\"roof-label\" x=\"{:.1f}\" y=\"{:.1f}\">{}: {}</text>", kWidth - kRight + 4, y.At(tflops) + 4,
                     H(names), Significant(tflops));
  // Biggest first, so small points stay visible on top.
  std::vector<const Point*> order;
  for (const Point& p : pts) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const Point* a, const Point* b) { return a->time_us > b->time_us; });
  for (const Point* p : order) {
    const double radius = 3 + 11 * (tmax > 0 ? std::sqrt(p->time_us / tmax) : 0);
    s += fmt::format("<circle class=\"op\" data-dtype=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\" "
                     "fill-opacity=\"0.7\" stroke=\"#fff\"><title>{}</title></circle>",
                     H(p->dtype), x.At(p->intensity), y.At(p->tflops), radius, PrecisionColour(p->dtype), H(p->label));
  }
  s += "</svg>";
  return s;
}

std::string Legend(const std::vector<Point>& pts) {
  std::vector<std::string> dtypes;
  for (const Point& p : pts)
    if (std::find(dtypes.begin(), dtypes.end(), p.dtype) == dtypes.end()) dtypes.push_back(p.dtype);
  std::string s = "<div class=\"legend\">";
  for (const std::string& d : dtypes)
    s += fmt::format("<span class=\"legend-item\" data-dtype=\"{0}\"><svg width=\"12\" height=\"12\"><circle cx=\"6\" cy=\"6\" "
                     "r=\"5\" fill=\"{1}\"/></svg> {0}</span> ",
                     H(d), PrecisionColour(d));
  s += "<span class=\"legend-item\">point size: kernel time; solid lines: matrix-unit peaks, dashed: vector fp32; "
       "the sloped line is HBM bandwidth</span></div>";
  return s;
}

std::string Tflops(std::optional<double> v) { return v ? Significant(*v) + " TFLOP/s" : "n/a"; }

void Summary(std::string& h, const RooflineSection& roof) {
  h += "<div class=\"cards\">";
  const std::string mfu_reason = roof.mfu_reason.value_or("");
  h += HtmlCard("MFU", Pct(roof.mfu_pct),
            roof.mfu_pct ? "model FLOPs / step time / peak" : (mfu_reason.empty() ? "unknown" : mfu_reason));
  if (roof.hfu_pct) h += HtmlCard("HFU", Pct(roof.hfu_pct), "with recomputed FLOPs");
  const auto gflop = roof.step_gflop;
  h += HtmlCard(roof.window == "steps" ? "FLOPs per step" : "FLOPs in the window",
            gflop ? Significant(*gflop) + " GFLOP" : "n/a", "forward and backward as executed");
  h += HtmlCard("Achieved", Tflops(roof.achieved_tflops), "model FLOPs / time");
  h += HtmlCard("Peak", Tflops(roof.peak_tflops), roof.peak_precision + " dense, " + roof.gpu.peak_id.value_or("GPU not known"));
  const auto total = roof.coverage.kernel_time_us, modelled = roof.coverage.modelled_kernel_time_us;
  if (total && modelled && *total > 0)
    h += HtmlCard("Modelled", Pct(*modelled / *total * 100), "of kernel time has an op with known FLOPs");
  h += "</div>\n";
}

void StepTable(std::string& h, const RooflineSection& roof) {
  const std::vector<reports::RooflineStep>& steps = roof.steps;
  if (steps.empty()) return;
  h += fmt::format("<details{}><summary>MFU per step</summary>\n<table>\n<thead><tr><th class=\"num\">Step</th>"
                   "<th class=\"num\">Time</th><th class=\"num\">Model GFLOP</th><th class=\"num\">Achieved</th>"
                   "<th class=\"num\">MFU</th></tr></thead>\n<tbody>\n",
                   steps.size() <= 20 ? " open" : "");
  for (size_t i = 0; i < steps.size() && i < kMaxStepRows; ++i) {
    const reports::RooflineStep& st = steps[i];
    const auto step = st.step, g = st.model_gflop;
    h += "<tr><td class=\"num\">" + H(step && *step >= 0 ? Count(step) : "window") + "</td><td class=\"num\">" +
         H(DurationUs(st.time_us)) + "</td><td class=\"num\">" + H(g ? Significant(*g) : "n/a") +
         "</td><td class=\"num\">" + H(Tflops(st.achieved_tflops)) + "</td><td class=\"num\">" + H(Pct(st.mfu_pct)) +
         "</td></tr>\n";
  }
  h += "</tbody></table>\n";
  if (steps.size() > kMaxStepRows)
    h += fmt::format("<p class=\"empty\">{} more steps in the JSON report.</p>\n", steps.size() - kMaxStepRows);
  h += "</details>\n";
}

void OpTable(std::string& h, const RooflineSection& roof) {
  const std::vector<reports::RooflineOp>& ops = roof.ops;
  if (ops.empty()) return;
  h += "<details open><summary>Top ops by kernel time</summary>\n<table>\n<thead><tr><th>Op</th><th>Pass</th><th>Precision</th>"
       "<th>Input dims</th><th class=\"num\">Calls</th><th class=\"num\">Kernel time</th><th class=\"num\">GFLOP/call</th>"
       "<th class=\"num\">Achieved</th><th>Bound</th><th class=\"num\">Of attainable</th></tr></thead>\n<tbody>\n";
  for (size_t i = 0; i < ops.size() && i < kMaxOpRows; ++i) {
    const reports::RooflineOp& o = ops[i];
    const auto g = o.gflop;
    std::string achieved = o.tflops && g && *g > 0 ? Tflops(o.tflops)
                           : o.tbps                ? Significant(*o.tbps) + " TB/s"
                                                   : "n/a";
    const std::string& note = o.note;
    h += "<tr><td class=\"name\">" + H(o.op) + "</td><td>" + H(o.pass) + "</td><td>" + H(o.dtype.value_or("")) +
         "</td><td class=\"name\">" + H(Truncate(o.input_dims, 120)) + "</td><td class=\"num\">" + H(Count(o.count)) +
         "</td><td class=\"num\">" + H(DurationUs(o.kernel_time_us)) + "</td><td class=\"num\"" +
         (note.empty() ? "" : " title=\"" + H(note) + "\"") + ">" + H(g ? Significant(*g) : "unknown") +
         "</td><td class=\"num\">" + H(achieved) + "</td><td>" + H(o.bound.value_or("unknown")) + "</td><td class=\"num\">" +
         H(Pct(o.pct_of_peak)) + (o.pct_note.empty() ? "" : "<div class=\"meta\">" + H(o.pct_note) + "</div>") +
         "</td></tr>\n";
  }
  h += "</tbody></table>\n";
  const auto total = roof.ops_total;
  if (total && *total > static_cast<double>(kMaxOpRows))
    h += "<p class=\"empty\">" + H(Plural(*total - static_cast<double>(kMaxOpRows), "more op")) + " in the JSON report.</p>\n";
  h += "</details>\n";
}

}  // namespace

const char* PrecisionColour(const std::string& precision) {
  // The palette of the precision-mix chart (html_assets.h, PRECISION).
  static const std::map<std::string, const char*> kColours = {
      {"fp8", "#7b1fa2"}, {"fp16", "#1e8e3e"}, {"bf16", "#34a853"}, {"tf32", "#1a73e8"},
      {"fp32", "#e8710a"}, {"fp64", "#c5221f"}, {"int8", "#9334e6"}};
  auto it = kColours.find(precision);
  return it == kColours.end() ? "#9aa0a6" : it->second;
}

void AppendRooflineSection(std::string& h, const json& report) {
  const reports::RooflineView view = reports::ReadRooflineView(report);
  std::string note;
  const RooflineSection& roof = RooflineToShow(view, &note);
  h += "<section id=\"roofline\">\n<h2>Roofline and MFU</h2>\n";
  if (!roof.present) {
    h += "<p class=\"empty\">This report has no roofline section.</p>\n</section>\n";
    return;
  }
  if (!roof.available) {
    h += "<p class=\"empty\">No roofline: " + H(roof.reason.value_or("unknown")) + "</p>\n</section>\n";
    return;
  }
  if (!note.empty()) h += "<p class=\"note\">" + H(note) + "</p>\n";
  Summary(h, roof);
  const std::vector<Point> pts = PlottedOps(roof);
  h += "<figure class=\"chart\" id=\"chart-roofline\"><figcaption>Roofline: each op's achieved TFLOP/s against its FLOP per "
       "byte</figcaption>";
  if (pts.empty()) {
    h += "<p class=\"empty\">No op has both FLOPs and bytes known, so none can be placed on the roofline.</p>";
  } else {
    h += "<div class=\"chart-body\">" + Chart(pts, Roofs(roof), roof.gpu.hbm_tbps) + "</div>" + Legend(pts);
    if (!roof.gpu.hbm_tbps)
      h += "<div class=\"note\">The GPU's peaks are not known: no roofs are drawn (" + H(roof.gpu.match) + ").</div>";
  }
  h += "</figure>\n";
  StepTable(h, roof);
  OpTable(h, roof);
  h += "</section>\n";
}

}  // namespace ampscope::render
